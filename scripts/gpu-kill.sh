#!/usr/bin/env bash
# SIGKILL mid-run (step 4 of scripts/gpu-check.sh, runnable alone): PyTorch under `memfloor run`
# is killed once its trace passes 200 KB; the trace must read up to its last chunk, the analysis
# must say it was truncated, and the anomalies of the last flush period must be kept apart.
# usage: scripts/gpu-kill.sh [DIST]   (default build-hook/dist); rows go to $SUMMARY if set.
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
WORK=${WORK:-$(mktemp -d /tmp/memfloor-gpu-kill.XXXXXX)}
SUMMARY=${SUMMARY:-/dev/null}
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
M="$DIST/memfloor"
row() { printf '%-44s %s\n' "$1" "$2" | tee -a "$SUMMARY"; }

rm -rf "$WORK/kill"
"$M" run -q --torch-allocator async --stacks none -o "$WORK/kill" -- python3 bench/torch_step.py --steps 100000 --warmup 0 &
MPID=$!
for i in $(seq 60); do
  sleep 1
  T=$(ls "$WORK/kill"/*.mftrace 2>/dev/null | head -1)
  [ -n "$T" ] && [ "$(stat -c %s "$T")" -gt 200000 ] && break
done
sleep 3
CPID=$(pgrep -P "$MPID" | head -1)
kill -KILL "$CPID"
wait "$MPID"; RC=$?
row "SIGKILL: memfloor run exit code" "$RC (expect 137)"
T=$(ls "$WORK/kill"/*.mftrace | head -1)
"$DIST/memfloor_trace_probe" "$T" | cut -c1-400
row "SIGKILL: trace" "$("$DIST/memfloor_trace_probe" "$T" | sed -E 's/.* end="([^"]*)".*/\1/'), $(stat -c %s "$T") bytes"
"$M" analyze --no-table "$T" 2>&1 | tail -n 3
row "SIGKILL: analyze says" "$("$M" analyze --no-table "$T" 2>&1 | grep -i -E 'truncat|warning' | head -1)"
"$M" analyze "$T" -o "$WORK/kill.json" 2>&1 | grep -E 'pairing|was cut' | tee "$WORK/kill-table.txt"
row "SIGKILL: pairing" "$(grep pairing "$WORK/kill-table.txt" | head -1)"
row "SIGKILL: cut tail" "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['anomalies']['cut_tail'])" "$WORK/kill.json" 2>&1)"
