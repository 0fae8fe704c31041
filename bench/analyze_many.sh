#!/usr/bin/env bash
# Benchmark of `memfloor analyze DIR` over many traces (one per rank, as `memfloor run -o DIR`
# writes them): wall time with one worker (-j 1) and with one per core (-j 0), and the speed-up.
# TRACES names in one directory, each a trace of EVENTS events from memfloor-gen-trace (about 0.05
# s of analysis each at the default); DISTINCT of them are generated with their own seeds and the
# others are hard links to those, so 256 traces take 16 traces' disk (0.8 GB) rather than 13 GB, and
# every name is still opened, read and analysed as its own run. Each mode runs RUNS times,
# alternating, and the row is its median wall time (a shared machine's speed drifts between runs;
# note `uptime` with it).
# Usage: bench/analyze_many.sh [BUILD_DIR] [TRACES] [EVENTS] [RUNS] [DISTINCT]
set -euo pipefail
build=${1:-build}
traces=${2:-256}
events=${3:-1500000}
runs=${4:-3}
distinct=${5:-16}
work=$(mktemp -d "${TMPDIR:-/tmp}/memfloor-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir "$work/traces"
for i in $(seq 0 $((traces - 1))); do
  name=$(printf '%s/traces/rank%05d.mftrace' "$work" "$i")
  if ((i < distinct)); then
    "$build/bench/memfloor-gen-trace" -o "$name" --events "$events" --seed "$((i + 1))" >/dev/null
  else
    ln "$(printf '%s/traces/rank%05d.mftrace' "$work" $((i % distinct)))" "$name"
  fi
done
# Warm the page cache so the numbers are the analysis, not the disk.
cat "$work"/traces/*.mftrace >/dev/null

: >"$work/times"
for _ in $(seq "$runs"); do
  for jobs in 1 0; do
    { /usr/bin/time -f "$jobs %e" "$build/cli/memfloor" analyze "$work/traces" --no-symbolize \
        -j "$jobs" -o /dev/null --no-table >/dev/null; } 2>&1 | tail -n 1 >>"$work/times"
  done
done
# Each line: jobs wall_s. The median of each mode's runs.
median() { awk -v j="$1" '$1 == j {print $2}' "$work/times" | sort -n | awk '{w[NR] = $1}
  END {print w[int((NR + 1) / 2)]}'; }
one=$(median 1)
all=$(median 0)
printf '%-8s %-10s %-6s %-12s %-12s %-8s\n' traces events cores wall_s_j1 wall_s_all speedup
printf '%-8s %-10s %-6s %-12s %-12s %-8.2f\n' "$traces" "$events" "$(nproc)" "$one" "$all" \
  "$(awk -v a="$one" -v b="$all" 'BEGIN {print a / b}')"
