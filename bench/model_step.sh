#!/usr/bin/env bash
# Throughput of the reference model at a mid-size configuration: median step time, tokens/s, the
# share of the step spent in cuBLAS products (measured in a second run with --time-gemm), and the
# step time of a third run traced by `memfloor run --stacks native` against the first (the hook's
# cost on a C++ training program whose sites are named by native frames).
# Usage: bench/model_step.sh [path/to/reference_model]   MEMFLOOR: the memfloor binary (default: the
#        one next to the model, as in a dist folder, else build/cli/memfloor); without one the
#        traced columns say n/a.
set -euo pipefail
BIN=${1:-build-model/reference_model/reference_model}
ITERS=${ITERS:-10}
BASE=(--layers 4 --hidden 2048 --heads 16 --vocab 32000 --seq 4096 --micro-batch-size 1
      --micro-batches 4 --iterations "$ITERS" --idle-ms 0)
MEMFLOOR=${MEMFLOOR:-$(dirname "$BIN")/memfloor}
[ -x "$MEMFLOOR" ] || MEMFLOOR=build/cli/memfloor
WORK=$(mktemp -d /tmp/memfloor-model-step.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# median of a field over iterations >= 3 (the first ones warm up cuBLAS and the memory pool)
median() {
  awk -v k="$1" '$1 == "iteration" && $2 >= 3 {for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' |
    sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

printf "%-34s %10s %12s %12s %10s %10s %10s\n" "configuration (4 layers, h 2048)" "step ms" \
  "tokens/s" "cuBLAS ms" "cuBLAS %" "traced ms" "traced %"
for layer in base hc; do
  for recompute in none full; do
    plain=$("$BIN" "${BASE[@]}" --layer "$layer" --recompute "$recompute")
    timed=$("$BIN" "${BASE[@]}" --layer "$layer" --recompute "$recompute" --time-gemm)
    step=$(median step_ms <<<"$plain")
    tps=$(median tokens_per_s <<<"$plain")
    gemm=$(median gemm_ms <<<"$timed")
    tstep=$(median step_ms <<<"$timed")
    share=$(awk -v g="$gemm" -v s="$tstep" 'BEGIN {printf "%.1f", 100 * g / s}')
    traced=n/a
    over=n/a
    if [ -x "$MEMFLOOR" ]; then
      rm -rf "$WORK/trace"
      traced=$("$MEMFLOOR" run -q --stacks native -o "$WORK/trace" -- \
        "$BIN" "${BASE[@]}" --layer "$layer" --recompute "$recompute" | median step_ms)
      over=$(awk -v t="$traced" -v s="$step" 'BEGIN {printf "%+.2f", 100 * (t - s) / s}')
    fi
    printf "%-34s %10s %12s %12s %10s %10s %10s\n" "$layer, recompute $recompute, seq 4096 x 4 mb" \
      "$step" "$tps" "$gemm" "$share" "$traced" "$over"
  done
done
