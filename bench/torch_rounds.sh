#!/usr/bin/env bash
# PyTorch step time under the hook, in interleaved rounds: each round runs bench/torch_step.py
# untraced and under `memfloor run` with --stacks none, python (Python frames only), auto (the
# default: Python frames, and native ones under them but for stream-ordered allocations) and
# native (native frames under the Python ones for every call), each in its own process, the
# order rotated by one mode per round. The table (bench/rounds_table.py) gives per mode the median
# and interquartile range of the step time (each run's median step) and the percent over the
# untraced run of the same round.
# usage: bench/torch_rounds.sh DIST OUTDIR   DIST from scripts/gpu-dist.sh; writes OUTDIR/
#        torch-<allocator>-rounds.txt and torch-<allocator>-table.txt. ALLOCATORS ("async":
#        cudaMallocAsync, one CUDA call per tensor; add "native" for PyTorch's caching allocator),
#        ROUNDS (5), STEPS (30), WARMUP (5), MODES (all five; untraced must be among them).
set -euo pipefail
DIST=$(cd "$1" && pwd)
OUTDIR=$2
ALLOCATORS=${ALLOCATORS:-async}
ROUNDS=${ROUNDS:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
STEP=(python3 "$HERE/torch_step.py" --steps "${STEPS:-30}" --warmup "${WARMUP:-5}")
mkdir -p "$OUTDIR"
WORK=$(mktemp -d /tmp/memfloor-torch-rounds.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
read -r -a MODES <<<"${MODES:-untraced none python auto native}"  # untraced first: the baseline

run_mode() {  # run_mode ALLOCATOR MODE: torch_step's result line
  local alloc=$1 mode=$2
  if [ "$mode" = untraced ]; then
    local conf=()
    [ "$alloc" = async ] && conf=(env PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync)
    "${conf[@]}" "${STEP[@]}" --label "$mode"
  else
    local flags=()
    [ "$alloc" = async ] && flags=(--torch-allocator async)
    rm -rf "$WORK/trace"
    "$DIST/memfloor" run -q "${flags[@]}" --stacks "$mode" -o "$WORK/trace" -- \
      "${STEP[@]}" --label "$mode"
  fi
}

for alloc in $ALLOCATORS; do
  rounds="$OUTDIR/torch-$alloc-rounds.txt"
  echo "# ROUND MODE STEP_MS (bench/torch_step.py, allocator $alloc)" >"$rounds"
  for r in $(seq "$ROUNDS"); do
    for i in "${!MODES[@]}"; do
      mode=${MODES[$(((i + r - 1) % ${#MODES[@]}))]}
      ms=$(run_mode "$alloc" "$mode" 2>&1 | sed -nE 's/^torch_step .*step_ms_median=([0-9.]+).*/\1/p')
      if [ -z "$ms" ]; then
        echo "torch_rounds: round $r, $alloc, $mode: no result from torch_step.py" >&2
        continue
      fi
      echo "$r $mode $ms" | tee -a "$rounds"
    done
  done
  limits=(--limit auto=3)  # the default at most +3% under either allocator
  [ "$alloc" = async ] && limits+=(--limit native=3)  # native stacks at most +3%
  python3 "$HERE/rounds_table.py" "$rounds" --baseline untraced --unit ms --percent \
    --title "torch_step.py step time, allocator $alloc" "${limits[@]}" |
    tee "$OUTDIR/torch-$alloc-table.txt"
done
