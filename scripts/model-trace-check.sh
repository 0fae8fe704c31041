#!/usr/bin/env bash
# Records memfloor traces of the reference model (fixed and with each bug) at a small configuration,
# next to the model's own per-iteration counter, for the tracer-vs-own-counter comparison.
# Usage: scripts/model-trace-check.sh MODEL_BIN MEMFLOOR_BIN HOOK_SO OUTDIR
set -uo pipefail
MODEL=$1 MEMFLOOR=$2 HOOK=$3 OUTDIR=$4
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
SMALL=(--layers 2 --hidden 128 --heads 4 --vocab 256 --seq 256 --micro-batch-size 1
       --micro-batches 2 --iterations 4 --idle-ms 20)
run() {  # name, model flags...
  local name=$1; shift
  "$MEMFLOOR" run --hook "$HOOK" -o "$WORK/$name.d" -- "$MODEL" "${SMALL[@]}" "$@" \
    >"$OUTDIR/$name.model.txt" 2>"$WORK/$name.stderr.txt"
  echo "== $name (exit $?)"
  grep -E '^(persistent|iteration)' "$OUTDIR/$name.model.txt" |
    awk '{for (i = 1; i < NF; i++) if ($i ~ /^(iteration|loss|idle_floor_bytes|persistent_bytes)$/) printf "%s %s ", $i, $(i+1); print ""}'
  local trace
  trace=$(ls "$WORK/$name.d"/*.mftrace 2>/dev/null | head -1)
  if [[ -n $trace ]]; then
    cp "$trace" "$OUTDIR/$name.mftrace"
    "$MEMFLOOR" analyze "$trace" 2>&1 | head -24
    tail -3 "$WORK/$name.stderr.txt"
  else
    tail -5 "$WORK/$name.stderr.txt"
  fi
}
run fixed
run hc-bug --bug hc-mlp-norm-manager
run combined-loss-bug --schedule combined-1f1b --bug loss-node-inputs
ls -la "$OUTDIR"
