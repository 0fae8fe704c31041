#!/usr/bin/env bash
# The hook's cost per allocation call, in interleaved rounds: each round runs memfloor_hook_bench
# (cudaMallocAsync/cudaFreeAsync of 4 KiB on one stream) untraced, under the minimal MEMORY2
# consumer (bench/hook_min_consumer.cpp), under that consumer with the rest of the hook's CUPTI
# setup (minimal+setup: what CUPTI itself adds to --stacks none), under the hook with --stacks
# none and with --stacks native, each mode in its own process, the order rotated by one mode per
# round. The table
# (bench/rounds_table.py) gives per mode the median and interquartile range of ns per call and of
# its ratio to the minimal consumer of the same round: a slow round slows every mode, so the ratio
# holds where the raw medians drift.
# usage: bench/hook_rounds.sh DIST OUTDIR   DIST from scripts/gpu-dist.sh; writes OUTDIR/
#        hook-rounds.txt (ROUND MODE NS lines), hook-table.txt, hook-native-trace.txt. ROUNDS (12),
#        PAIRS (50000) and REPS (3: the bench's own median of repetitions) set the size.
set -euo pipefail
DIST=$(cd "$1" && pwd)
OUTDIR=$2
ROUNDS=${ROUNDS:-12}
PAIRS=${PAIRS:-50000}
REPS=${REPS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUTDIR"
WORK=$(mktemp -d /tmp/memfloor-hook-rounds.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
BENCH=("$DIST/memfloor_hook_bench" --pairs "$PAIRS" --reps "$REPS")
MODES=(untraced minimal minimal+setup hook-none hook-native)
ROUNDS_FILE="$OUTDIR/hook-rounds.txt"
echo "# ROUND MODE NS_PER_CALL (memfloor_hook_bench --pairs $PAIRS --reps $REPS)" >"$ROUNDS_FILE"

run_mode() {  # run_mode MODE: the bench's stdout under that mode
  case "$1" in
    untraced) "${BENCH[@]}" ;;
    minimal) CUDA_INJECTION64_PATH="$DIST/libmemfloor_min_consumer.so" "${BENCH[@]}" 2>/dev/null ;;
    minimal+setup)
      MEMFLOOR_MIN_CONSUMER_SETUP=hook CUDA_INJECTION64_PATH="$DIST/libmemfloor_min_consumer.so" \
        "${BENCH[@]}" 2>/dev/null ;;
    hook-*)
      rm -rf "$WORK/trace"
      "$DIST/memfloor" run -q -o "$WORK/trace" --stacks "${1#hook-}" -- "${BENCH[@]}" ;;
  esac
}

for r in $(seq "$ROUNDS"); do
  for i in "${!MODES[@]}"; do
    mode=${MODES[$(((i + r - 1) % ${#MODES[@]}))]}
    ns=$(run_mode "$mode" | sed -nE 's/^hook_bench .*ns_per_call=([0-9.]+).*/\1/p')
    if [ -z "$ns" ]; then
      echo "hook_rounds: round $r, $mode: no result from memfloor_hook_bench" >&2
      continue
    fi
    echo "$r $mode $ns" | tee -a "$ROUNDS_FILE"
    if [ "$mode" = hook-native ] && [ "$r" = "$ROUNDS" ]; then
      # What the last native trace holds: its stacks, and how many captures libgcc made.
      trace=$(ls "$WORK"/trace/*.mftrace | head -1)
      "$DIST/memfloor" trace to-text "$trace" -o "$WORK/trace.txt"
      {
        echo "stacks=$(grep -c '^stack ' "$WORK/trace.txt" || true)"
        awk '$1 == "string" {text[$2] = substr($0, length($1 " " $2 " ") + 1)}
             $1 == "property" {split($2, k, "="); split($3, v, "="); print text[k[2]] "=" text[v[2]]}' \
          "$WORK/trace.txt" | grep -E '^"?hook\.(stacks|native_unwind_fallbacks)' || true
      } >"$OUTDIR/hook-native-trace.txt"
    fi
  done
done

python3 "$HERE/rounds_table.py" "$ROUNDS_FILE" --baseline minimal --unit ns/call \
  --title "cudaMallocAsync/cudaFreeAsync, 4 KiB, ns per call" \
  --limit hook-none=1.1 --limit hook-native=1.3 | tee "$OUTDIR/hook-table.txt"
echo "native trace: $(tr '\n' ';' <"$OUTDIR/hook-native-trace.txt" 2>/dev/null)" |
  tee -a "$OUTDIR/hook-table.txt"
