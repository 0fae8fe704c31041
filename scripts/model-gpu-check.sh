#!/usr/bin/env bash
# Runs all GPU work of the reference model in one call: tests, loss curve, seed tables, memcheck.
# Usage (on the GPU machine): scripts/model-gpu-check.sh [dir with reference_model(_tests)] [out dir]
set -uo pipefail
DIST=${1:-build-model/dist}
OUTDIR=${2:-${OUT:-/tmp/model-gpu-check}}
mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader

echo "== tests"
timeout 240 "$DIST/reference_model_tests" 2>&1 | tee "$OUTDIR/tests.log" | grep -v '^gradcheck .*element'
echo "== loss curve (reference_model binary, 50 iterations, hc layers, bf16)"
timeout 120 "$DIST/reference_model" --layers 2 --hidden 256 --heads 4 --vocab 512 --seq 512 \
  --micro-batches 2 --iterations 50 --lr 3e-3 --idle-ms 0 --eval 2>&1 | tee "$OUTDIR/loss.log" |
  awk '/^config|^persistent/ || ($1 == "iteration" && ($2 == 1 || $2 % 10 == 0))'
echo "== seed tables"
timeout 300 scripts/model-seed-table.sh "$DIST/reference_model" 2>"$OUTDIR/seed-table.err" |
  tee "$OUTDIR/seed-table.txt"
tail -3 "$OUTDIR/seed-table.err"
echo "== compute-sanitizer memcheck (short run: 2 stages, hc bug on, offload on)"
timeout 240 compute-sanitizer --tool memcheck --leak-check full "$DIST/reference_model" \
  --layers 2 --hidden 64 --heads 4 --vocab 128 --seq 64 --micro-batch-size 2 --micro-batches 2 \
  --pipeline-stages 2 --iterations 2 --idle-ms 0 --offload --bug hc-mlp-norm-manager \
  >"$OUTDIR/memcheck.log" 2>&1
echo "memcheck exit $?"; tail -4 "$OUTDIR/memcheck.log"
timeout 120 compute-sanitizer --tool memcheck "$DIST/reference_model" --layers 1 --hidden 64 \
  --heads 4 --vocab 128 --seq 64 --micro-batches 3 --schedule combined-1f1b --iterations 1 \
  --idle-ms 0 --bug loss-node-inputs >"$OUTDIR/memcheck-combined.log" 2>&1
echo "memcheck (combined) exit $?"; tail -2 "$OUTDIR/memcheck-combined.log"
echo "== bench (mid-size)"
timeout 300 bench/model_step.sh "$DIST/reference_model" 2>&1 | tee "$OUTDIR/bench.txt"
