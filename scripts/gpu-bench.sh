#!/usr/bin/env bash
# The hook's cost, everything in one call on the device machine (about 5 minutes), tables last:
#   1. per allocation call: memfloor_hook_bench untraced, minimal MEMORY2 consumer, --stacks none,
#      --stacks native, ROUNDS interleaved rounds (bench/hook_rounds.sh)
#   2. PyTorch step (bench/torch_step.py, cudaMallocAsync): untraced, none, python, native,
#      TORCH_ROUNDS interleaved rounds (bench/torch_rounds.sh); TORCH=0 leaves it out
#   3. the reference model at its mid-size configuration, untraced and traced with native stacks
#      (bench/model_step.sh); skipped where the dist has no reference_model
# usage: scripts/gpu-bench.sh [DIST]   DIST from `scripts/gpu-dist.sh build` (default build/dist);
#        tables and logs go to $OUT/bench (the device tool's OUT) or ./gpu-bench-out.
set -u
DIST=$(cd "${1:-build/dist}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=${OUT:-$PWD/gpu-bench-out}/bench
mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
SUMMARY="$OUTDIR/summary.txt"
: >"$SUMMARY"
START=$(date +%s)
elapsed() { echo "[$(($(date +%s) - START)) s]"; }

echo "== device"; nvidia-smi -L 2>&1 | head -2 | tee -a "$SUMMARY"

echo "== 1. per call $(elapsed)"
ROUNDS=${ROUNDS:-12} "$ROOT/bench/hook_rounds.sh" "$DIST" "$OUTDIR" >"$OUTDIR/hook.log" 2>&1
echo "hook rounds exit $?" >>"$OUTDIR/hook.log"
cat "$OUTDIR/hook-table.txt" >>"$SUMMARY" 2>/dev/null || tail -n 20 "$OUTDIR/hook.log" | tee -a "$SUMMARY"

if [ "${TORCH:-1}" = 1 ]; then
  echo "== 2. PyTorch step $(elapsed)"
  ROUNDS=${TORCH_ROUNDS:-5} ALLOCATORS=async "$ROOT/bench/torch_rounds.sh" "$DIST" "$OUTDIR" \
    >"$OUTDIR/torch.log" 2>&1
  echo "torch rounds exit $?" >>"$OUTDIR/torch.log"
  echo >>"$SUMMARY"
  cat "$OUTDIR/torch-async-table.txt" >>"$SUMMARY" 2>/dev/null ||
    tail -n 20 "$OUTDIR/torch.log" | tee -a "$SUMMARY"
fi

echo "== 3. reference model $(elapsed)"
echo >>"$SUMMARY"
if [ -x "$DIST/reference_model" ]; then
  MEMFLOOR="$DIST/memfloor" timeout 300 "$ROOT/bench/model_step.sh" "$DIST/reference_model" \
    >"$OUTDIR/model-step.txt" 2>"$OUTDIR/model-step.log"
  echo "reference model step time, untraced and traced (--stacks native):" >>"$SUMMARY"
  cat "$OUTDIR/model-step.txt" >>"$SUMMARY"
else
  echo "reference model: not in $DIST (scripts/gpu-dist.sh builds it where the build has it)" |
    tee -a "$SUMMARY"
fi

echo
echo "================ gpu-bench summary $(elapsed) ================"
cat "$SUMMARY"
