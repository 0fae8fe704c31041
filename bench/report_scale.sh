#!/usr/bin/env bash
# Benchmark of the report of a long run: for two trace sizes, the analysis (wall time and peak
# memory), the size of report.json and of its HTML page, and the page's time to first render in
# headless Chromium (bench/render_time.mjs: "timeout" when it does not draw within 120 s). The
# traces are memfloor-gen-trace's defaults, whose iterations are alike: the report's size follows
# the number of iterations unless alike ones are stored once (report-schema.md, iteration_ranges).
# Usage: bench/report_scale.sh [BUILD_DIR] [SMALL_EVENTS] [LARGE_EVENTS]
# Needs /usr/bin/time, node, Debian's chromium and tests/html/node_modules (scripts/setup.sh).
set -euo pipefail
build=${1:-build}
small=${2:-10000000}
large=${3:-100000000}
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || echo /usr/bin/chromium)}
work=$(mktemp -d "${TMPDIR:-/tmp}/memfloor-report-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }

printf '%-12s %-12s %-10s %-11s %-10s %-10s %-10s\n' events iterations analyze_s max_rss_MB report_MB \
  html_MB render_s
for n in "$small" "$large"; do
  trace="$work/t$n.mftrace" report="$work/r$n.json" html="$work/r$n.html"
  "$build/bench/memfloor-gen-trace" -o "$trace" --events "$n" >/dev/null
  { /usr/bin/time -f '%e %M' "$build/cli/memfloor" analyze "$trace" --no-symbolize --no-table \
      -o "$report" >/dev/null; } 2>"$work/time"
  read -r analyze_s rss_kb < <(tail -n 1 "$work/time")
  rm -f "$trace"
  # Every iteration once: the rows kept whole (one "index" each, counted without parsing a report
  # of a GB) and the ranges of alike ones (memfloor.report/3, whose reports are small).
  if grep -q '"iteration_ranges"' "$report"; then
    iterations=$(jq '[.runs[] | (.iterations | length) + ([.iteration_ranges[].count] | add // 0)] | add' \
      "$report")
  else
    iterations=$(grep -o '"index":' "$report" | wc -l)
  fi
  "$build/cli/memfloor" report "$report" -o "$html" >/dev/null
  render_s=$(node "$here/render_time.mjs" --chromium "$chromium" --html "$html" --timeout 120 |
    tail -n 1)
  printf '%-12s %-12s %-10s %-11d %-10s %-10s %-10s\n' "$n" "$iterations" "$analyze_s" \
    $((rss_kb / 1024)) "$(mb "$report")" "$(mb "$html")" "$render_s"
  rm -f "$report" "$html"
done
