#!/usr/bin/env bash
# A two-rank PyTorch job under memfloor run, on one GPU (tests/gpu/pytorch/ddp_ranks.py: gloo, both
# ranks on device 0): one trace per rank, one report with per-rank floors and the worst rank, the
# page, and the gate pairing the ranks of the bug run with those of the fixed one.
#   scripts/gpu-ranks.sh [DIST]   DIST from scripts/gpu-dist.sh (default build-hook/dist);
#   results in $OUT/ranks (default ./gpu-ranks-out).
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
FINAL=${OUT:-$PWD/gpu-ranks-out}/ranks
mkdir -p "$FINAL"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
M="$DIST/memfloor"
for variant in fixed bug; do
  bug=-1
  [ "$variant" = bug ] && bug=1
  rm -rf "$FINAL/$variant"
  echo "== $variant (bug rank $bug)"
  "$M" run -q -o "$FINAL/$variant" -- torchrun --standalone --nproc-per-node 2 \
    tests/gpu/pytorch/ddp_ranks.py --iterations 8 --bug-rank "$bug" 2>&1 | tail -n 4
  ls "$FINAL/$variant"
  "$M" analyze "$FINAL/$variant" --no-symbolize -o "$FINAL/$variant.report.json" \
    >"$FINAL/$variant.table.txt" 2>&1
  echo "analyze exit $?"; grep -E "^(rank|worst|run)" "$FINAL/$variant.table.txt" | head -12
  "$M" report "$FINAL/$variant.report.json" -o "$FINAL/$variant.html"
done
"$M" gate --baseline "$FINAL/fixed.report.json" "$FINAL/bug.report.json" >"$FINAL/gate.txt" 2>&1
echo "gate fixed -> bug: exit $?"
head -30 "$FINAL/gate.txt"
du -sh "$FINAL"
