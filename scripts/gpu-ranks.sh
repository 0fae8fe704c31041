#!/usr/bin/env bash
# A PyTorch DDP job under memfloor run (tests/gpu/pytorch/ddp_ranks.py): one trace per rank, one
# report with per-rank floors and the worst rank, the page, and the gate pairing the ranks of the
# bug run with those of the fixed one.
#   scripts/gpu-ranks.sh [DIST] [BACKEND]   DIST from scripts/gpu-dist.sh (default build-hook/dist);
#   BACKEND gloo (default: two ranks on GPU 0) or nccl (a rank per GPU, two at most; NCCL's own
#   allocations are sites of their own, listed).
#   Results in $OUT/ranks-BACKEND (default ./gpu-ranks-out).
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
BACKEND=${2:-gloo}
NPROC=2
if [ "$BACKEND" = nccl ]; then
  NPROC=$(nvidia-smi -L | wc -l)
  [ "$NPROC" -gt 2 ] && NPROC=2
fi
FINAL=${OUT:-$PWD/gpu-ranks-out}/ranks-$BACKEND
mkdir -p "$FINAL"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
M="$DIST/memfloor"
for variant in fixed bug; do
  bug=-1
  [ "$variant" = bug ] && bug=$((NPROC - 1))
  rm -rf "$FINAL/$variant"
  echo "== $variant (bug rank $bug)"
  "$M" run -q -o "$FINAL/$variant" -- torchrun --standalone --nproc-per-node "$NPROC" \
    tests/gpu/pytorch/ddp_ranks.py --iterations 8 --bug-rank "$bug" --backend "$BACKEND" 2>&1 |
    tail -n 4
  ls "$FINAL/$variant"
  "$M" analyze "$FINAL/$variant" --no-symbolize -o "$FINAL/$variant.report.json" \
    >"$FINAL/$variant.table.txt" 2>&1
  echo "analyze exit $?"; grep -E "^(rank|worst|run)" "$FINAL/$variant.table.txt" | head -12
  "$M" report "$FINAL/$variant.report.json" -o "$FINAL/$variant.html"
  echo "NCCL's sites:"
  python3 - "$FINAL/$variant.report.json" <<'PY'
import json, sys
sites = {}
def walk(node):
    if isinstance(node, dict):
        where = node.get("where")
        if isinstance(where, str) and where.startswith("libnccl"):
            sites[where] = max(sites.get(where, 0), node.get("bytes", 0))
        for v in node.values():
            walk(v)
    elif isinstance(node, list):
        for v in node:
            walk(v)
walk(json.load(open(sys.argv[1])))
for where, size in sorted(sites.items()):
    print(f"  {size / 2**20:10.2f} MiB  {where}")
print(f"  {len(sites)} site(s)")
PY
done
"$M" gate --baseline "$FINAL/fixed.report.json" "$FINAL/bug.report.json" >"$FINAL/gate.txt" 2>&1
echo "gate fixed -> bug: exit $?"
head -30 "$FINAL/gate.txt"
du -sh "$FINAL"
