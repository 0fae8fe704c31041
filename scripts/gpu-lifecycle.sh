#!/usr/bin/env bash
# The hook under the host-process events of issue "robustness", on the GPU, in one call:
#   1. another CUPTI subscriber in the process: one clear line, the program runs on untraced
#   2. cudaDeviceReset then SIGKILL: the records flushed at the reset are in the trace
#   3. fork with a child that exits through exit(): one complete trace, the parent's
# usage: scripts/gpu-lifecycle.sh [DIST]   DIST from scripts/gpu-dist.sh (default build-hook/dist)
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
WORK=$(mktemp -d /tmp/memfloor-lifecycle.XXXXXX)
M="$DIST/memfloor"
L="$DIST/memfloor_lifecycle"
probe() {
  local n=0
  for t in "$1"/*.mftrace; do
    [ -e "$t" ] || continue
    n=$((n + 1))
    echo "  trace $(basename "$t"): $("$DIST/memfloor_trace_probe" "$t" | cut -c1-300)"
  done
  echo "  traces in $1: $n"
}

for mode in subscriber reset-kill fork; do
  echo "== $mode"
  "$M" run -o "$WORK/$mode" -- "$L" "$mode" 2>&1 | sed 's/^/  /'
  echo "  exit code: ${PIPESTATUS[0]}"
  probe "$WORK/$mode"
done
echo "== reset-kill, analyzed"
"$M" analyze --no-table "$WORK"/reset-kill/*.mftrace -o "$WORK/r.json" 2>&1 | tail -n 3
rm -rf "$WORK"
