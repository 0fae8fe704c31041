#!/usr/bin/env bash
# The HTML report in a real browser: writes the fixtures' pages with `memfloor report`, then loads
# them in headless Chromium (report_page_test.mjs). Exits 77 (ctest: skipped) with a SKIP line when
# chromium, node or the node packages are missing, except under CI=true, where that fails:
# scripts/setup.sh installs all three.
#   run_page_test.sh MEMFLOOR TESTDATA_DIR OUT_DIR
set -euo pipefail
memfloor=$1 testdata=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)

missing() {
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: $1 (scripts/setup.sh installs it)" >&2
    exit 1
  fi
  echo "SKIP: $1; run scripts/setup.sh to install it" >&2
  exit 77
}

mkdir -p "$out"
html=$out/two_runs.html plain=$out/one_run_no_markers.html
"$memfloor" report "$testdata/reports/two_runs.report.json" --gate "$testdata/reports/two_runs.gate.json" \
  -o "$html"
"$memfloor" report "$testdata/reports/one_run_no_markers.report.json" -o "$plain"
detected=$out/detected.html
"$memfloor" analyze "$testdata/model/hc-bug.mftrace" --iteration-pattern 'no marker is named this' \
  --no-table -o "$out/detected.report.json"
"$memfloor" report "$out/detected.report.json" -o "$detected"
peaks=$out/peaks.html
"$memfloor" analyze "$testdata/model/combined-loss-bug.mftrace" --no-table -o "$out/peaks.report.json"
"$memfloor" report "$out/peaks.report.json" -o "$peaks"
# PyTorch's caching allocator: segments (reserved) and blocks (allocated), with the gate of the
# report against itself.
blocks=$out/blocks.html
"$memfloor" analyze "$testdata/analysis/caching_allocator.txt" --no-table -o "$out/blocks.report.json"
"$memfloor" gate --baseline "$out/blocks.report.json" "$out/blocks.report.json" --json "$out/blocks.gate.json" \
  >/dev/null
"$memfloor" report "$out/blocks.report.json" --gate "$out/blocks.gate.json" -o "$blocks"
# Idle censuses: which Python paths hold the memory of each window that has one.
held=$out/held_by.html
"$memfloor" report "$testdata/reports/held_by.report.json" -o "$held"
# The same section from a report the analysis wrote: the censuses of a text fixture.
census=$out/census.html
"$memfloor" analyze "$testdata/analysis/census_holders.txt" --no-table -o "$out/census.report.json"
"$memfloor" report "$out/census.report.json" -o "$census"
# The first screen: a PyTorch run's holders with the Python finding that names them (the seed's
# manager, checked now), analyzed with the findings.
holders=$out/holders.html
status=0
"$memfloor" check --python "${PYTHON3:-python3}" --format json --root "$testdata/.." \
  "$testdata/checker/python/seed_offload_manager.py" >"$out/seed.findings.json" || status=$?
[ "$status" -le 1 ] || { echo "FAIL: memfloor check exited $status" >&2; exit 1; }
"$memfloor" analyze "$testdata/analysis/torch_holders_graph.txt" --findings "$out/seed.findings.json" \
  --source-root "$testdata/.." --no-table -o "$out/holders.report.json"
"$memfloor" report "$out/holders.report.json" -o "$holders"
# Ranges of alike iterations (memfloor.report/3), hand-written: tests/html/fixtures, not testdata/,
# whose reports the round-trip test reads back one by one.
ranges=$out/ranges.html
"$memfloor" report "$here/fixtures/ranges.report.json" -o "$ranges"
# A trend range: a leak's windows, each a step above the one before (testdata/analysis/leak_trend.txt).
trend=$out/trend.html
"$memfloor" analyze "$testdata/analysis/leak_trend.txt" --no-table -o "$out/trend.report.json"
"$memfloor" report "$out/trend.report.json" -o "$trend"

chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || missing "no chromium"
command -v node >/dev/null || missing "no node"
[ -f "$here/node_modules/puppeteer-core/package.json" ] || missing "no puppeteer-core in tests/html/node_modules"

node "$here/report_page_test.mjs" --chromium "$chromium" --html "$html" --screenshot "$out/two_runs.png" \
  --plain-html "$plain" --detected-html "$detected" --peaks-html "$peaks" --blocks-html "$blocks" \
  --held-html "$held" --census-html "$census" --ranges-html "$ranges" --trend-html "$trend" \
  --holders-html "$holders"
