#!/usr/bin/env bash
# Prints the seed-effect tables of the reference model (idle floor by its own counter, bug vs fixed).
#
# Seed 000 (hc-mlp-norm-manager): 2 layers, n = 4 streams, bf16, micro-batch 1, full recompute, at
# seq 4096 and 8192; the floor is the minimum live bytes in the idle window after the last iteration.
# Seed 003 (loss-node-inputs): combined 1F1B, live bytes at the end of each combined backward.
# Usage: scripts/model-seed-table.sh [path/to/reference_model] [extra model flags...]
set -euo pipefail
BIN=${1:-build-model/reference_model/reference_model}
shift || true
EXTRA=("$@")
HIDDEN=${HIDDEN:-2048}
HEADS=${HEADS:-16}
VOCAB=${VOCAB:-32000}
ITERS=${ITERS:-3}
COMMON=(--layers 2 --streams 4 --layer hc --dtype bf16 --micro-batch-size 1 --recompute full
        --hidden "$HIDDEN" --heads "$HEADS" --vocab "$VOCAB" --iterations "$ITERS" --idle-ms 0)

# field NAME LINE: the value after NAME in a model output line
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }
last_iteration() { grep '^iteration ' | tail -1; }
gib() { awk -v b="$1" 'BEGIN {printf "%.3f", b / 1073741824}'; }
mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

declare -A FLOOR PERSIST
for seq in 4096 8192; do
  for variant in fixed bug; do
    flags=()
    [[ $variant == bug ]] && flags=(--bug hc-mlp-norm-manager)
    out=$("$BIN" "${COMMON[@]}" --seq "$seq" "${flags[@]}" "${EXTRA[@]}")
    line=$(last_iteration <<<"$out")
    FLOOR[$seq,$variant]=$(field idle_floor_bytes <<<"$line")
    PERSIST[$seq,$variant]=$(grep '^persistent_bytes' <<<"$out" | awk '{print $2}')
    echo "# seq $seq $variant: $line" >&2
  done
done

echo "Seed 000: hyper-connection MLP-norm manager (2 layers, n=4, bf16, mbs 1, full recompute," \
     "h=$HIDDEN, heads=$HEADS, vocab=$VOCAB)"
printf "%-28s %14s %14s %14s\n" "idle floor (own counter)" "fixed" "bug" "bug - fixed"
for seq in 4096 8192; do
  f=${FLOOR[$seq,fixed]}; b=${FLOOR[$seq,bug]}
  printf "%-28s %10s GiB %10s GiB %10s MiB\n" "seq $seq" "$(gib "$f")" "$(gib "$b")" "$(mib $((b - f)))"
done
gf=$((FLOOR[8192,fixed] - FLOOR[4096,fixed])); gb=$((FLOOR[8192,bug] - FLOOR[4096,bug]))
printf "%-28s %10s MiB %10s MiB\n" "growth 4096 -> 8192" "$(mib $gf)" "$(mib $gb)"
printf "%-28s %10s GiB %10s GiB\n" "persistent (params, optim)" "$(gib "${PERSIST[8192,fixed]}")" \
  "$(gib "${PERSIST[8192,bug]}")"
buf=$((8192 * 4 * HIDDEN * 2))
echo "retained at seq 8192 = $(awk -v r=$((FLOOR[8192,bug] - FLOOR[8192,fixed])) -v b=$buf \
  'BEGIN {printf "%.2f", r / b}') x [s,b,n*h] bf16 buffers ($(mib $buf) MiB each) over 2 layers"
echo

echo "Seed 003: combined 1F1B loss node (micro-batches 4; bytes at the end of each combined backward)"
printf "%-12s %22s %22s %14s %18s\n" "seq" "fixed live (max)" "bug live (max)" "bug - fixed" "loss node (bug)"
for seq in 4096 8192; do
  declare -A LIVE HELD
  for variant in fixed bug; do
    flags=()
    [[ $variant == bug ]] && flags=(--bug loss-node-inputs)
    out=$("$BIN" "${COMMON[@]}" --seq "$seq" --schedule combined-1f1b --micro-batches 4 "${flags[@]}" "${EXTRA[@]}")
    line=$(last_iteration <<<"$out")
    LIVE[$variant]=$(field backward_end_live_bytes <<<"$line")
    HELD[$variant]=$(field loss_node_held_bytes <<<"$line")
    echo "# combined seq $seq $variant: $line" >&2
  done
  printf "%-12s %22s %22s %14s %18s\n" "$seq" "${LIVE[fixed]}" "${LIVE[bug]}" \
    "$((LIVE[bug] - LIVE[fixed]))" "${HELD[bug]}"
done
echo "(per-token fp32 loss input + its gradient = 8 * seq bytes per micro-batch)"
