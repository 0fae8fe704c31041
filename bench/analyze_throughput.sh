#!/usr/bin/env bash
# Benchmark of `memfloor analyze`: events read and replayed per second on one core, and peak memory
# for two trace sizes with the same live set (memory must stay flat as events grow). events_per_s is
# per wall second; events_per_cpu_s per second of user + system time, the number that holds on a
# loaded machine (note `uptime` with it).
# Usage: bench/analyze_throughput.sh [BUILD_DIR] [SMALL_EVENTS] [LARGE_EVENTS]
set -euo pipefail
build=${1:-build}
small=${2:-10000000}
large=${3:-100000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/memfloor-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

printf '%-12s %-10s %-10s %-14s %-10s %-16s %-12s\n' events file_MB seconds events_per_s cpu_s \
  events_per_cpu_s max_rss_MB
for n in "$small" "$large"; do
  trace="$work/t$n.mftrace"
  "$build/bench/memfloor-gen-trace" -o "$trace" --events "$n" --activations 4096 \
      --retain-bytes 67108864 >/dev/null
  # Warm the page cache so the number is the analysis, not the disk.
  cat "$trace" >/dev/null
  read -r secs user sys rss < <( { /usr/bin/time -f '%e %U %S %M' taskset -c 0 \
      "$build/cli/memfloor" analyze "$trace" --no-table -o "$work/r.json" >/dev/null; } 2>&1 |
      tail -n 1)
  mb=$(( $(stat -c %s "$trace") / 1048576 ))
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{print u + s}')
  printf '%-12s %-10s %-10s %-14.0f %-10s %-16.0f %-12s\n' "$n" "$mb" "$secs" \
      "$(awk -v n="$n" -v s="$secs" 'BEGIN{print n/s}')" "$cpu" \
      "$(awk -v n="$n" -v s="$cpu" 'BEGIN{print n/s}')" "$((rss / 1024))"
  rm -f "$trace"
done
