#!/usr/bin/env bash
# The reference model's pipeline with one process per stage (reference_model --ranks 2), on the
# GPU machine:
#   1. the same losses and gradients as the two stages in one process (same seed);
#   2. the seed-000 table per rank, from the model's own counter and from memfloor's traces
#      (seq 4096 and 8192, bug vs fixed), the report's worst rank, and the gate fixed -> bug.
# Usage: scripts/model-ranks.sh [DIST] [P2P]
#   DIST from scripts/gpu-dist.sh with the reference model built (default build/dist);
#   P2P host (ranks may share a GPU) or nccl (one GPU per rank). Results in $OUT/model-ranks.
set -u
DIST=$(cd "${1:-build/dist}" && pwd)
P2P=${2:-host}
FINAL=${OUT:-$PWD/model-ranks-out}/model-ranks
rm -rf "$FINAL"
mkdir -p "$FINAL"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
# libnccl.so.2 from pip's nvidia-nccl wheel, where PyTorch has it (the model loads it at run time).
nccl_lib=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
[ -n "$nccl_lib" ] && export LD_LIBRARY_PATH=$nccl_lib:$LD_LIBRARY_PATH
M="$DIST/memfloor"
BIN="$DIST/reference_model"
COMMON=(--layers 2 --streams 4 --layer hc --dtype bf16 --micro-batch-size 1 --recompute full
        --hidden 2048 --heads 16 --vocab 32000 --idle-ms 0 --pipeline-stages 2 --micro-batches 4)

echo "== 1. one process vs two ranks (p2p $P2P), seq 1024, 4 iterations"
"$BIN" "${COMMON[@]}" --seq 1024 --iterations 4 --grad-norm >"$FINAL/one.txt" 2>&1
echo "one process: exit $?"
"$BIN" "${COMMON[@]}" --seq 1024 --iterations 4 --grad-norm --ranks 2 --p2p "$P2P" \
  >"$FINAL/ranks.txt" 2>&1
echo "two ranks: exit $?"
python3 - "$FINAL/one.txt" "$FINAL/ranks.txt" <<'PY'
import sys
def fields(line):
    t = line.split()
    return dict(zip(t[::2], t[1::2]))
one = [fields(l) for l in open(sys.argv[1]) if l.startswith("iteration ")]
ranks = {}
for l in open(sys.argv[2]):
    if l.startswith("iteration "):
        f = fields(l)
        ranks.setdefault(f["iteration"], {}).update(f)
same = True
print(f"{'iteration':>9} {'loss (1 proc)':>14} {'loss (ranks)':>14} {'grad_sq stage0 (1 / ranks)':>40} {'grad_sq stage1 (1 / ranks)':>40}")
for f in one:
    r = ranks.get(f["iteration"], {})
    row = [f["loss"], r.get("loss", "-")]
    for k in ("grad_sq_stage0", "grad_sq_stage1"):
        row.append(f"{f[k]} / {r.get(k, '-')}")
        same &= f[k] == r.get(k)
    same &= f["loss"] == r.get("loss")
    print(f"{f['iteration']:>9} {row[0]:>14} {row[1]:>14} {row[2]:>40} {row[3]:>40}")
print("identical:", "yes" if same and one else "NO")
PY

echo "== 2. seed 000 per rank (own counter and traces)"
for seq in 4096 8192; do
  for variant in fixed bug; do
    flags=()
    [ "$variant" = bug ] && flags=(--bug hc-mlp-norm-manager)
    dir="$FINAL/seq$seq-$variant"
    "$M" run -q -o "$dir" -- "$BIN" "${COMMON[@]}" --seq "$seq" --iterations 3 --ranks 2 \
      --p2p "$P2P" "${flags[@]}" >"$dir.txt" 2>&1
    echo "seq $seq $variant: run exit $? traces: $(ls "$dir" | tr '\n' ' ')"
    "$M" analyze "$dir" --no-symbolize -o "$dir.report.json" >"$dir.table.txt" 2>&1
    echo "  analyze exit $?"
  done
done
python3 - "$FINAL" <<'PY'
import json, sys
final = sys.argv[1]
MiB, GiB = 1 << 20, 1 << 30
def own(path, key="idle_floor_bytes"):  # rank -> the last iteration's value (own counter)
    out = {}
    for l in open(path):
        t = l.split()
        if t and t[0] == "iteration" and "rank" in t:
            f = dict(zip(t[::2], t[1::2]))
            out[int(f["rank"])] = int(f[key])
    return out
def traced(path):  # rank -> steady idle floor of device memory (report)
    r = json.load(open(path))
    out = {}
    for run in r["runs"]:
        for s in run["steady_idle_floor"]:
            if s["kind"] == "device" and run["label"].startswith("rank "):
                out[int(run["label"][5:])] = s["idle_floor"]
    return out, r.get("worst")
print("Seed 000 per rank: 2 layers over 2 ranks (one layer each), n=4, bf16, mbs 1, 4 micro-batches, full recompute, h=2048")
print(f"{'seq':>5} {'rank':>4} {'own fixed':>11} {'own bug':>11} {'own +MiB':>9} {'trace fixed':>12} {'trace bug':>12} {'trace +MiB':>10} {'peak fixed':>11}")
for seq in (4096, 8192):
    of, ob = own(f"{final}/seq{seq}-fixed.txt"), own(f"{final}/seq{seq}-bug.txt")
    pf = own(f"{final}/seq{seq}-fixed.txt", "peak_bytes")
    (tf, wf), (tb, wb) = traced(f"{final}/seq{seq}-fixed.report.json"), traced(f"{final}/seq{seq}-bug.report.json")
    for rank in sorted(set(of) | set(tf)):
        g = lambda d: f"{d[rank] / GiB:.3f}G" if rank in d else "-"
        d = lambda a, b: f"{(b[rank] - a[rank]) / MiB:.1f}" if rank in a and rank in b else "-"
        print(f"{seq:>5} {rank:>4} {g(of):>11} {g(ob):>11} {d(of, ob):>9} {g(tf):>12} {g(tb):>12} {d(tf, tb):>10} {g(pf):>11}")
    for name, w in (("fixed", wf), ("bug", wb)):
        if w:
            print(f"      worst ({name}): {w['label']} {w['idle_floor'] / GiB:.3f} GiB")
print(f"buffer [s,b,n*h] bf16 at seq 8192: {8192 * 4 * 2048 * 2 / MiB:.0f} MiB")
PY
"$M" gate --baseline "$FINAL/seq4096-fixed.report.json" "$FINAL/seq4096-bug.report.json" \
  >"$FINAL/gate.txt" 2>&1
echo "gate seq 4096 fixed -> bug: exit $?"
head -20 "$FINAL/gate.txt"
echo "== 3. --p2p nccl here: $(nvidia-smi -L 2>/dev/null | wc -l) GPU(s)"
"$BIN" "${COMMON[@]}" --seq 1024 --iterations 1 --ranks 2 --p2p nccl >"$FINAL/nccl.txt" 2>&1
echo "nccl exit: $?"
tail -3 "$FINAL/nccl.txt"
"$M" report "$FINAL/seq8192-bug.report.json" -o "$FINAL/seq8192-bug.html"
echo "page: exit $?"
# The traces in one file: fewer files to bring back.
tar -C "$FINAL" -czf "$FINAL/traces.tar.gz" seq4096-fixed seq4096-bug seq8192-fixed seq8192-bug &&
  rm -rf "$FINAL"/seq*-fixed "$FINAL"/seq*-bug
du -sh "$FINAL"
