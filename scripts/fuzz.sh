#!/usr/bin/env bash
# Builds the libFuzzer targets (the trace readers, the reports' readers, the analysis of a text
# trace) and runs each for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]    seconds per target (default 30); exits non-zero on any crash
#
# Seeds: testdata/trace/corpus/*.txt (text fixtures; make_seeds turns them into binary traces),
# testdata/trace/regressions/{binary,text}/ and testdata/reports/regressions/ (inputs that once
# crashed; keep new ones there), and the reports, findings and gate results of testdata/.
# The growing corpus and any crash artifacts go to fuzz-corpus/ (not tracked).
# Environment: MEMFLOOR_FUZZ_BUILD_DIR (default build-fuzz), JOBS (default 2), CLANGXX, CLANG.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
build=${MEMFLOOR_FUZZ_BUILD_DIR:-build-fuzz}
clangxx=${CLANGXX:-clang++-14}
clang=${CLANG:-clang-14}
work=fuzz-corpus

if ! command -v "$clangxx" >/dev/null; then
  echo "fuzz.sh: $clangxx not found (install clang-14, or set CLANGXX)" >&2
  exit 2
fi

mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$clang" -DCMAKE_CXX_COMPILER="$clangxx" -DMEMFLOOR_BUILD_FUZZ=ON \
  -DMEMFLOOR_BUILD_TESTS=OFF -DMEMFLOOR_BUILD_HOOK=OFF -DMEMFLOOR_BUILD_CHECKER=OFF \
  -DMEMFLOOR_BUILD_REFERENCE_MODEL=OFF -DMEMFLOOR_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; exit 2; }
cmake --build "$build" -j "${JOBS:-2}" --target fuzz_binary_reader fuzz_text_reader \
  fuzz_report_inputs fuzz_trace_analysis memfloor_make_seeds

mkdir -p "$work/binary" "$work/text" "$work/binary-seeds" "$work/artifacts" "$work/report" \
  "$work/report-seeds" "$work/analysis"
"$build/fuzz/memfloor_make_seeds" "$work/binary-seeds" testdata/trace/corpus/*.txt

status=0
run() {  # run NAME CORPUS SEEDS... [-- OPTIONS]
  local name=$1
  shift
  echo "== fuzz_$name for ${seconds}s"
  if ! "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/artifacts/$name-" "$@"; then
    echo "fuzz.sh: fuzz_$name found a crash; its input is in $work/artifacts/" >&2
    status=1
  fi
}
existing() {  # the given folders that exist (git keeps no empty ones)
  for dir in "$@"; do [ -d "$dir" ] && echo "$dir"; done
  return 0
}
# shellcheck disable=SC2046  # folder names have no spaces
run binary_reader "$work/binary" "$work/binary-seeds" $(existing testdata/trace/regressions/binary)
# shellcheck disable=SC2046
run text_reader -dict=fuzz/text.dict "$work/text" testdata/trace/corpus \
  $(existing testdata/trace/regressions/text)
# The reports' readers: the first byte of an input picks the reader (fuzz/fuzz_report_inputs.cpp).
seed() { printf "\\x$1" | cat - "$2" >"$work/report-seeds/$1-$(basename "$2")"; }
seed 00 testdata/model/findings.json
seed 01 "$build/fuzz/memfloor_make_seeds"
seed 02 fuzz/symbolizer-output.jsonl
for report in testdata/reports/*.json testdata/gate/*.json; do
  [ -f "$report" ] && seed 03 "$report" && seed 04 "$report"
done
seed 05 testdata/reports/two_runs.gate.json
# Up to 1 MB: reports of real runs are that large, and nesting past the depth limit needs length.
# shellcheck disable=SC2046
run report_inputs -max_len=1048576 "$work/report" "$work/report-seeds" \
  $(existing testdata/reports/regressions)
# The analysis of a text trace: iteration patterns matched against fuzzed marker names
# (fuzz/fuzz_trace_analysis.cpp); marker names of 50,000 characters need the length.
# shellcheck disable=SC2046
run trace_analysis -dict=fuzz/text.dict -max_len=131072 "$work/analysis" testdata/trace/corpus \
  $(existing testdata/trace/regressions/text)
exit $status
