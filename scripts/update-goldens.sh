#!/usr/bin/env bash
# Regenerates the golden reports: testdata/analysis/*.expected.json from the fixtures *.txt next to
# them, and testdata/model/merged.expected.json from the shipped model traces and findings. Run it
# only when a change of the analysis or the report schema is meant to change them, then read the
# diff (git diff testdata) before committing it.
# Usage: scripts/update-goldens.sh [BUILD_DIR]   (default: build; configured if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target memfloor_reports_tests memfloor_cli_tests
for tests in "$build/tests/reports/memfloor_reports_tests" "$build/tests/cli/memfloor_cli_tests"; do
  MEMFLOOR_UPDATE_GOLDENS=1 "$tests" "[golden]"
  # The same replay again, now comparing: the files just written must read back equal.
  "$tests" "[golden]"
done
git status --short testdata/analysis testdata/model
