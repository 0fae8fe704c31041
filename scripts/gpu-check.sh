#!/usr/bin/env bash
# Everything of runtime_hook that needs a GPU, in one call on the device machine, a table last:
#   1. the [gpu] tests (alloc_paths traced with --stacks none and native, compared exactly)
#   2. per-call overhead of cudaMallocAsync/cudaFreeAsync: untraced, minimal MEMORY2 consumer,
#      hook --stacks none, hook --stacks native (bench/hook_rounds.sh: ROUNDS interleaved rounds,
#      medians, IQR and per-round ratios to the minimal consumer)
#   3. PyTorch (async allocator): step-time medians untraced vs traced, and trace live bytes at
#      each iteration marker vs torch.cuda.memory_allocated()
#   4. SIGKILL mid-run: the trace reads up to its last chunk and the analysis says truncated
# usage: scripts/gpu-check.sh [DIST]   DIST holds the binaries (default build-hook/dist, made by
#        scripts/gpu-dist.sh); logs go to $OUT (the device tool's) or ./gpu-check-out.
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
OUT=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/memfloor-gpu-check.XXXXXX)
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
M="$DIST/memfloor"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
row() { printf '%-44s %s\n' "$1" "$2" | tee -a "$SUMMARY"; }
ROUNDS=${ROUNDS:-12}
TORCH=${TORCH:-1}

echo "== device"; nvidia-smi -L 2>&1 | head -2

echo "== 1. [gpu] tests"
MEMFLOOR_TEST_BIN_DIR="$DIST" "$DIST/memfloor_runtime_hook_tests" 2>&1 | tee "$WORK/tests.log"
row "tests (all, incl. [gpu])" "$(tail -n 3 "$WORK/tests.log" | grep -E 'passed|failed' | tr -s ' ' | head -1)"
grep '^gpu-check alloc_paths' "$WORK/tests.log" | while read -r line; do
  row "alloc_paths $(echo "$line" | sed -E 's/.*stacks=([a-z]+).*/\1/')" \
      "$(echo "$line" | sed -E 's/^gpu-check alloc_paths stacks=[a-z]+: //')"
done

echo "== 1b. memfloor run --analyze on alloc_paths"
"$M" run -o "$WORK/analyze" --analyze -- "$DIST/memfloor_alloc_paths" --iterations 3 2>&1 | tail -n 25
row "run --analyze exit code" "$?"

echo "== 2. overhead: cudaMallocAsync/cudaFreeAsync, 4 KiB, ns per call, $ROUNDS interleaved rounds"
ROUNDS="$ROUNDS" bench/hook_rounds.sh "$DIST" "$WORK/hook" 2>&1 | tail -n 40
cp "$WORK/hook/hook-rounds.txt" "$OUT/" 2>/dev/null
cat "$WORK/hook/hook-table.txt" >>"$SUMMARY" 2>/dev/null || row "hook overhead" "no table (bench/hook_rounds.sh failed)"

if [ "$TORCH" = 1 ]; then
  echo "== 3. PyTorch step time (async allocator) and live bytes"
  STEP="bench/torch_step.py --steps 30 --warmup 5"
  for r in 1 2; do
    PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync python3 $STEP --label untraced 2>&1 | grep torch_step | tee -a "$WORK/torch.log"
    for mode in none native; do
      rm -rf "$WORK/torch-$mode"
      "$M" run -q --torch-allocator async --stacks "$mode" -o "$WORK/torch-$mode" -- \
        python3 $STEP --label "$mode" --log "$WORK/torch-$mode.json" 2>&1 | grep torch_step | tee -a "$WORK/torch.log"
    done
  done
  for mode in untraced none native; do
    row "torch step ms $mode (2 runs)" "$(grep "torch_step $mode " "$WORK/torch.log" | sed -E 's/.*step_ms_median=([0-9.]+).*/\1/' | tr '\n' ' ')"
  done
  for mode in none native; do
    T=$(ls "$WORK/torch-$mode"/*.mftrace | head -1)
    "$DIST/memfloor_trace_probe" "$T" --live-at 'iteration [0-9]+' >"$WORK/live-$mode.txt"
    tail -n 1 "$WORK/live-$mode.txt" | cut -c1-400
    row "torch live vs memory_allocated ($mode)" "$(python3 - "$WORK/live-$mode.txt" "$WORK/torch-$mode.json" <<'PY'
import json, sys
live = {}
for line in open(sys.argv[1]):
    if line.startswith("live "):
        parts = line.split()
        step = int(parts[2]); live[step] = dict(kv.split("=") for kv in parts[4:])
log = json.load(open(sys.argv[2]))
diffs_async, diffs_total, n = [], [], 0
for s in log["steps"]:
    if s["step"] in live:
        n += 1
        diffs_async.append(int(live[s["step"]]["async"]) - s["memory_allocated"])
        diffs_total.append(int(live[s["step"]]["total"]) - s["memory_allocated"])
exact = sum(1 for d in diffs_async if d == 0)
print(f"{n}/{len(log['steps'])} markers; async-live == memory_allocated at {exact}; "
      f"async diff min/max {min(diffs_async)}/{max(diffs_async)} B; "
      f"all-device diff min/max {min(diffs_total)}/{max(diffs_total)} B; backend {log['backend']}")
PY
)"
  done
  head -n 5 "$WORK/live-none.txt"; python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['steps'][:5])" "$WORK/torch-none.json"

  echo "== 4. SIGKILL mid-run"
  WORK="$WORK" SUMMARY="$SUMMARY" scripts/gpu-kill.sh "$DIST"
fi

cp "$WORK"/*.log "$OUT"/ 2>/dev/null
echo
echo "================ gpu-check summary ================"
cat "$SUMMARY"
rm -rf "$WORK"
