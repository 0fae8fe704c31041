#!/usr/bin/env bash
# Regenerates the golden reports testdata/analysis/*.expected.json from the fixtures *.txt next to
# them. Run it only when a change of the analysis or the report schema is meant to change them,
# then read the diff (git diff testdata/analysis) before committing it.
# Usage: scripts/update-goldens.sh [BUILD_DIR]   (default: build; configured if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target memfloor_reports_tests
MEMFLOOR_UPDATE_GOLDENS=1 "$build/tests/reports/memfloor_reports_tests" "[golden]"
# The same replay again, now comparing: the files just written must read back equal.
"$build/tests/reports/memfloor_reports_tests" "[golden]"
git status --short testdata/analysis
