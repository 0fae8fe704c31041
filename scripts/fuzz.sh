#!/usr/bin/env bash
# Builds the libFuzzer targets, one per family of readers of untrusted bytes, and runs each for a
# bounded time:
#   fuzz_binary_reader    binary traces (trace/reader.h), with the text and binary round trips
#   fuzz_text_reader      text traces (trace/text.h)
#   fuzz_report_inputs    the findings document (analysis/findings.h), ELF build ids and symbol
#                         tables, llvm-symbolizer's JSON lines, report.json (gate, HTML page, typed
#                         reader), gate results
#   fuzz_trace_analysis   the analysis of a text trace (iteration patterns on fuzzed markers)
#   fuzz_checker_inputs   memfloor-check's: .memfloor-check.json, --facts documents, --baseline
#                         findings, suppression comments, the Python front end's output; the facts
#                         then through the rules, the outputs and the fix-its
#   fuzz_hook_config      the hook's environment (MEMFLOOR_*, rank and recorded variables)
#   fuzz_pickle_reader    pickles (common/pickle.h: PyTorch's memory snapshots), with the pickle
#                         writer's round trip
#   fuzz_torch_snapshot   a snapshot's pickle read, encoded as a trace and analysed
#                         (trace/torch_snapshot_reader.h)
#
#   scripts/fuzz.sh [SECONDS]    seconds per target (default 30); exits non-zero on any crash
#
# fuzz_hook_config runs a quarter of SECONDS (at least 5): a few short strings, its coverage stops
# growing within seconds.
# Seeds: testdata/trace/corpus/*.txt (text fixtures; make_seeds turns them into binary traces),
# testdata/trace/regressions/{binary,text}/, testdata/reports/regressions/,
# testdata/checker/regressions/ and testdata/hook/regressions/ (inputs that once crashed; keep new
# ones there), the reports, findings and gate results of testdata/, fuzz/checker-*.json and the
# suppression comments of testdata/checker/, the pickles of testdata/pickle/ (and its
# regressions/, when there are any).
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
  fuzz_report_inputs fuzz_trace_analysis fuzz_checker_inputs fuzz_hook_config fuzz_pickle_reader \
  fuzz_torch_snapshot memfloor_make_seeds

mkdir -p "$work/binary" "$work/text" "$work/binary-seeds" "$work/artifacts" "$work/report" \
  "$work/report-seeds" "$work/analysis" "$work/checker" "$work/checker-seeds" "$work/hook" \
  "$work/hook-seeds" "$work/pickle" "$work/pickle-seeds" "$work/snapshot" "$work/snapshot-seeds"
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
seed() { printf "\\x$1" | cat - "$2" >"${3:-$work/report-seeds}/$1-$(basename "$2")"; }
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
# memfloor-check's readers: the first byte picks one (fuzz/fuzz_checker_inputs.cpp).
seed 00 fuzz/checker-config.json "$work/checker-seeds"
seed 01 fuzz/checker-facts.json "$work/checker-seeds"
seed 02 testdata/model/findings.json "$work/checker-seeds"
for source in testdata/checker/mf001_release_idioms.cpp testdata/checker/mf002_retained_member.cpp \
    testdata/checker/python/mf002_retained_member.py; do
  seed 03 "$source" "$work/checker-seeds"
done
seed 04 fuzz/checker-pyfacts.json "$work/checker-seeds"
# shellcheck disable=SC2046
run checker_inputs -max_len=65536 "$work/checker" "$work/checker-seeds" \
  $(existing testdata/checker/regressions)
# The hook's environment: values separated by NUL bytes (fuzz/fuzz_hook_config.cpp).
printf '%s\0' out auto 8m 64 250 'step_*' 1 3 1 4 >"$work/hook-seeds/typical"
printf '%s\0' '' python 512k 1 3600000 '' 0 -1 7 8 ' 5' '+2' 'expandable_segments:True' \
  >"$work/hook-seeds/edges"
# A quarter of the time (at least 5 s): in 5 s it covers all but a few edges of what it reaches in
# a minute.
# shellcheck disable=SC2046
seconds=$(( seconds / 4 > 5 ? seconds / 4 : 5 )) run hook_config "$work/hook" "$work/hook-seeds" \
  $(existing testdata/hook/regressions)
# The pickle reader: Python's own pickles of every protocol, and those it must refuse.
cp testdata/pickle/*.pickle "$work/pickle-seeds/"
# shellcheck disable=SC2046
run pickle_reader "$work/pickle" "$work/pickle-seeds" $(existing testdata/pickle/regressions)
# A snapshot's pickle through the analysis: the loop's snapshot, an export of memfloor's, the
# snapshot-shaped pickle, and the hostile shapes (shared segments and entries, numbers past their
# fields, long texts and stacks: testdata/snapshots/make_hostile_snapshots.py).
cp testdata/snapshots/loop_snapshot.pickle testdata/snapshots/exported_census_holders.pickle \
  testdata/pickle/snapshot.p4.pickle testdata/snapshots/hostile/*.pickle "$work/snapshot-seeds/"
# shellcheck disable=SC2046
run torch_snapshot -max_len=65536 "$work/snapshot" "$work/snapshot-seeds" \
  $(existing testdata/snapshots/regressions)
exit $status
