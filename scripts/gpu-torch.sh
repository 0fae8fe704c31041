#!/usr/bin/env bash
# The PyTorch checks that need a GPU, in one call on the device machine (a summary last):
#   1. planted programs (tests/gpu/pytorch/planted.py: attr, list, plain) under PyTorch's default
#      caching allocator and under cudaMallocAsync: the report's idle floors against
#      memory_allocated() / memory_reserved(), the top site's name and class
#   2. transformers' GPT-2 from a config: persistent bytes against parameters + optimizer state
#   3. bench/torch_step.py step time, untraced vs --stacks none, python and native, both
#      allocators, interleaved rounds with medians and IQR (bench/torch_rounds.sh)
#   4. the GIL-free frame walk on this machine's Python (tests/python/test_python_frames.py)
#   5. processes: planted.py under torchrun (its child gets the companion), and a training loop fed
#      by a DataLoader with forked workers
#   6. censuses after optimizer steps on the GPU, both allocators (tests/gpu/pytorch/census_gpu.py),
#      then planted holders (tests/gpu/pytorch/holders.py: graph, list, cache, plain, each bug and
#      fixed) traced with a census in every window; their traces come back to be analyzed (their
#      logs hold the bytes each holder kept)
# usage: scripts/gpu-torch.sh [DIST] [parts]   DIST from scripts/gpu-dist.sh (default
#        build-hook/dist); parts: any of "frames planted gpt2 processes census overhead" (default
#        all); ROUNDS (5).
set -u
DIST=$(cd "${1:-build-hook/dist}" && pwd)
PARTS=${2:-frames planted gpt2 processes census overhead}
FINAL=${OUT:-$PWD/gpu-torch-out}  # summary.txt and gpu-torch.tgz (reports, tables, logs) go here
mkdir -p "$FINAL"
WORK=$(mktemp -d /tmp/memfloor-gpu-torch.XXXXXX)
OUT="$WORK/out"
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
M="$DIST/memfloor"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
ROUNDS=${ROUNDS:-5}
T=tests/gpu/pytorch

traced() {  # traced NAME ALLOCATOR -- CMD...: one run, its report, in $WORK/NAME
  local name=$1 alloc=$2; shift 3
  local flags=()
  [ "$alloc" = async ] && flags=(--torch-allocator async)
  rm -rf "$WORK/$name"
  "$M" run -q "${flags[@]}" -o "$WORK/$name" -- "$@" 2>&1 | tail -n 5
  "$M" analyze "$WORK/$name" -o "$WORK/$name/report.json" >"$WORK/$name/table.txt" 2>&1
  cp "$WORK/$name/table.txt" "$OUT/$name.table.txt"
  cp "$WORK/$name/report.json" "$OUT/$name.report.json"
  cp "$(ls "$WORK/$name"/*.mftrace | head -1)" "$OUT/$name.mftrace"  # to analyze again elsewhere
}

if [[ " $PARTS " == *" frames "* ]]; then
  echo "== 0. the frame walk on $(python3 --version)"
  (cd tests/python && MEMFLOOR_FRAMES_PROBE="$DIST/libmemfloor_frames_probe.so" \
    python3 -m unittest -v test_python_frames 2>&1) | tee "$OUT/frames.log" | tail -n 20
  echo "frame walk on $(python3 --version): $(tail -n 1 "$OUT/frames.log")" | tee -a "$SUMMARY"
fi

if [[ " $PARTS " == *" planted "* ]]; then
  echo "== 1. planted programs"
  for alloc in native async; do
    for case in attr list plain; do
      traced "$case-$alloc" "$alloc" -- python3 $T/planted.py --case "$case" --log "$WORK/$case-$alloc.json"
      cp "$WORK/$case-$alloc.json" "$OUT/"
      python3 $T/check_report.py "$WORK/$case-$alloc/report.json" "$WORK/$case-$alloc.json" | tee -a "$SUMMARY"
    done
  done
  ls -l "$WORK"/attr-native/*.mftrace | awk '{print "trace bytes attr-native:", $5}' | tee -a "$SUMMARY"
fi

if [[ " $PARTS " == *" gpt2 "* ]]; then
  echo "== 2. transformers GPT-2"
  traced gpt2-native native -- python3 $T/gpt2_steps.py --log "$WORK/gpt2.json"
  cp "$WORK/gpt2.json" "$OUT/"
  python3 $T/check_report.py "$WORK/gpt2-native/report.json" "$WORK/gpt2.json" | tee -a "$SUMMARY"
  head -n 40 "$WORK/gpt2-native/table.txt"
fi

if [[ " $PARTS " == *" processes "* ]]; then
  echo "== 5. torchrun and DataLoader workers"
  traced attr-torchrun native -- torchrun --standalone --nproc-per-node 1 $T/planted.py \
    --case attr --log-file "$WORK/attr-torchrun.json"  # torchrun takes --log for its own --log-dir
  cp "$WORK/attr-torchrun.json" "$OUT/"
  echo "torchrun: $(ls "$WORK/attr-torchrun"/*.mftrace | wc -l) traces" | tee -a "$SUMMARY"
  python3 $T/check_report.py "$WORK/attr-torchrun/report.json" "$WORK/attr-torchrun.json" | tee -a "$SUMMARY"
  traced loader native -- python3 $T/loader_workers.py --log "$WORK/loader.json"
  echo "loader: $(ls "$WORK/loader"/*.mftrace | wc -l) traces" | tee -a "$SUMMARY"
  python3 $T/check_report.py "$WORK/loader/report.json" "$WORK/loader.json" | tee -a "$SUMMARY"
fi

if [[ " $PARTS " == *" census "* ]]; then
  echo "== 6. censuses on the GPU (a recording stand-in for the hook)"
  for alloc in native async; do
    PYTHONPATH=companion python3 $T/census_gpu.py --allocator "$alloc" | tee -a "$SUMMARY"
  done
  echo "== 6b. planted holders, traced"
  for case in graph list cache plain; do
    for variant in bug fixed; do
      [ "$case" = plain ] && [ "$variant" = fixed ] && continue
      name="holders-$case-$variant"
      fixed=(); [ "$variant" = fixed ] && fixed=(--fixed)
      MEMFLOOR_VERBOSE=1 traced "$name" native -- env MEMFLOOR_CENSUS=every python3 $T/holders.py \
        --case "$case" "${fixed[@]}" --log "$WORK/$name.json"
      cp "$WORK/$name.json" "$OUT/"
      echo "$name: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("planted", d["planted_bytes"], "allocated", d["windows"][-1]["allocated"])' "$WORK/$name.json")" | tee -a "$SUMMARY"
    done
  done
  traced holders-graph-async async -- python3 $T/holders.py --case graph --log "$WORK/holders-graph-async.json"
  cp "$WORK/holders-graph-async.json" "$OUT/"
fi

if [[ " $PARTS " == *" overhead "* ]]; then
  echo "== 3. torch_step overhead, $ROUNDS interleaved rounds"
  ROUNDS="$ROUNDS" ALLOCATORS="native async" bench/torch_rounds.sh "$DIST" "$WORK/step" 2>&1 |
    tail -n 60
  for alloc in native async; do
    cat "$WORK/step/torch-$alloc-table.txt" >>"$SUMMARY" 2>/dev/null ||
      echo "step $alloc: no table (bench/torch_rounds.sh failed)" | tee -a "$SUMMARY"
    cp "$WORK/step/torch-$alloc-rounds.txt" "$OUT/" 2>/dev/null
  done
fi

echo
echo "================ gpu-torch summary ================"
cat "$SUMMARY"
cp "$SUMMARY" "$FINAL/summary.txt"
tar -czf "$FINAL/gpu-torch.tgz" -C "$OUT" .
rm -rf "$WORK"
