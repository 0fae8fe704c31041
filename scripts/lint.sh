#!/usr/bin/env bash
# Style checks that fail the run (CI calls this after the build):
#   1. clang-format 14 (scripts/setup.sh installs it) on every C++ file: any difference fails;
#   2. clang-tidy 14 on every source of the modules, with the checks that .clang-tidy lists under
#      WarningsAsErrors (function size, names, magic numbers); any warning of theirs fails. The
#      report-only checks of .clang-tidy are for editors: with the static analyzer they cost
#      minutes per run here.
# Needs build/compile_commands.json (scripts/build.sh writes it).
#   scripts/lint.sh [--format-only]
set -euo pipefail
cd "$(dirname "$0")/.."
format=${CLANG_FORMAT:-clang-format-14}
tidy=${CLANG_TIDY:-clang-tidy-14}

# third_party/ is others' code, formatted their way.
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' ':!third_party')
"$format" --dry-run --Werror "${files[@]}"
echo "lint: $format clean on ${#files[@]} files"
[ "${1:-}" = "--format-only" ] && exit 0

if [ ! -f build/compile_commands.json ]; then
  echo "lint: no build/compile_commands.json (run scripts/build.sh first)" >&2
  exit 2
fi
# The modules' own sources (tests, benchmarks, fuzz targets and the CUDA model are not linted by
# clang-tidy: Clang 14 cannot parse CUDA 13's device code, and tests may use literal numbers).
mapfile -t sources < <(git ls-files 'common/*.cpp' 'trace/*.cpp' 'runtime_hook/*.cpp' \
  'symbols/*.cpp' 'report/*.cpp' 'analysis/*.cpp' 'reports/*.cpp' 'checker/*.cpp' 'cli/*.cpp')
built=()
for source in "${sources[@]}"; do
  grep -qF "\"file\": \"$PWD/$source\"" build/compile_commands.json && built+=("$source")
done
failing=$(sed -n '/^WarningsAsErrors:/,/^[A-Z]/p' .clang-tidy | grep -oE '[a-z]+-[a-z-]+' | paste -sd,)
log=$(mktemp)
status=0
"run-${tidy}" -clang-tidy-binary "$(command -v "$tidy")" -p build -j "$(nproc)" -quiet \
  -checks="-*,$failing" \
  "${built[@]/#/$PWD/}" >"$log" 2>&1 || status=$?
grep -E 'warning:|error:' "$log" | sed "s#$PWD/##" | sort -u || true
rm -f "$log"
if [ "$status" -ne 0 ]; then
  echo "lint: clang-tidy failed on ${#built[@]} sources (see the errors above)" >&2
  exit 1
fi
echo "lint: clang-tidy clean on ${#built[@]} sources"
