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
#        Further modes: modules (auto with --modules) and, to tell where its cost goes,
#        modules-hooks and modules-forward (bench/module_cost.py). Each run's CPU part of a step
#        (launch_ms: every kernel launched, before the final synchronize) goes to
#        torch-<allocator>-launch.txt and its table: a step whose CPU part nears its time is
#        bound by the CPU, and every microsecond the companion adds there shows.
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
    local flags=() step=("${STEP[@]}") stacks=$mode
    [ "$alloc" = async ] && flags=(--torch-allocator async)
    case $mode in
      modules) stacks=auto flags+=(--modules) ;;
      modules-*) stacks=auto flags+=(--modules)
        step=(python3 "$HERE/module_cost.py" "${mode#modules-}" "${STEP[@]:1}") ;;
    esac
    rm -rf "$WORK/trace"
    "$DIST/memfloor" run -q "${flags[@]}" --stacks "$stacks" -o "$WORK/trace" -- \
      "${step[@]}" --label "$mode"
  fi
}

for alloc in $ALLOCATORS; do
  rounds="$OUTDIR/torch-$alloc-rounds.txt" launch="$OUTDIR/torch-$alloc-launch.txt"
  echo "# ROUND MODE STEP_MS (bench/torch_step.py, allocator $alloc)" >"$rounds"
  echo "# ROUND MODE LAUNCH_MS (the CPU's part of a step, allocator $alloc)" >"$launch"
  for r in $(seq "$ROUNDS"); do
    for i in "${!MODES[@]}"; do
      mode=${MODES[$(((i + r - 1) % ${#MODES[@]}))]}
      line=$(run_mode "$alloc" "$mode" 2>&1 | grep '^torch_step ' || true)
      ms=$(sed -nE 's/.*step_ms_median=([0-9.]+).*/\1/p' <<<"$line")
      cpu=$(sed -nE 's/.*launch_ms_median=([0-9.]+).*/\1/p' <<<"$line")
      if [ -z "$ms" ]; then
        echo "torch_rounds: round $r, $alloc, $mode: no result from torch_step.py" >&2
        continue
      fi
      echo "$r $mode $ms" | tee -a "$rounds"
      if [ -n "$cpu" ]; then echo "$r $mode $cpu" >>"$launch"; fi
    done
  done
  limits=(--limit auto=3)  # the default at most +3% under either allocator
  [ "$alloc" = async ] && limits+=(--limit native=3)  # native stacks at most +3%
  python3 "$HERE/rounds_table.py" "$rounds" --baseline untraced --unit ms --percent \
    --title "torch_step.py step time, allocator $alloc" "${limits[@]}" |
    tee "$OUTDIR/torch-$alloc-table.txt"
  python3 "$HERE/rounds_table.py" "$launch" --baseline untraced --unit ms --percent \
    --title "torch_step.py CPU part of a step, allocator $alloc" |
    tee "$OUTDIR/torch-$alloc-launch-table.txt"
done
