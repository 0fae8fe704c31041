#!/usr/bin/env bash
# Benchmark of `memfloor analyze`: events read and replayed per second on one core, and peak memory
# for two trace sizes with the same live set (memory must stay flat as events grow). Each size is
# analysed RUNS times, pinned to one core; the row is the run with the median CPU time, and
# cpu_range the fastest and slowest (a shared machine's speed drifts between runs). events_per_s is
# per wall second; events_per_cpu_s per second of user + system time, the number that holds on a
# loaded machine (note `uptime` with it). max_rss_MB is the peak of one more run. MODE
# blocks-censuses makes the traces a caching allocator's as the Python companion records them:
# allocator blocks inside segments, and a census after iterations 2, 4, 8...
# Usage: bench/analyze_throughput.sh [BUILD_DIR] [SMALL_EVENTS] [LARGE_EVENTS] [RUNS] [MODE]
set -euo pipefail
build=${1:-build}
small=${2:-10000000}
large=${3:-100000000}
runs=${4:-5}
mode=${5:-plain}
case "$mode" in
  plain) extra=() ;;
  blocks-censuses) extra=(--blocks --censuses) ;;
  *) echo "analyze_throughput.sh: error: mode '$mode': plain or blocks-censuses" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/memfloor-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Bash's `time` gives the run's wall, user and system seconds to the millisecond (/usr/bin/time
# rounds them to 10 ms, 5% of a 10M-event run); /usr/bin/time gives its peak RSS (kB).
TIMEFORMAT='%3R %3U %3S'

printf '%-12s %-10s %-10s %-14s %-10s %-16s %-14s %-12s\n' events file_MB seconds events_per_s \
  cpu_s events_per_cpu_s cpu_range max_rss_MB
for n in "$small" "$large"; do
  trace="$work/t$n.mftrace"
  "$build/bench/memfloor-gen-trace" -o "$trace" --events "$n" --activations 4096 \
      --retain-bytes 67108864 "${extra[@]}" >/dev/null
  : >"$work/runs"
  # In a subshell pinned to one core, whose children inherit it: bash's `time` then counts
  # memfloor alone (wrapping each run in /usr/bin/time and taskset cost their own 2-3 ms of CPU,
  # 1.5% of a 10M-event run). One more run, under /usr/bin/time, gives the peak RSS.
  (
    taskset -pc 0 "$BASHPID" >/dev/null
    for _ in $(seq "$runs"); do
      # Warm the page cache so the number is the analysis, not the disk: before each run, as a
      # machine short of memory (or a VM that hands its free memory back) drops a large trace's
      # pages from the cache within seconds.
      cat "$trace" >/dev/null
      { time "$build/cli/memfloor" analyze "$trace" --no-table -o "$work/r.json" >/dev/null \
          2>"$work/stderr"; } 2>>"$work/runs"
    done
    cat "$trace" >/dev/null
    /usr/bin/time -f '%M' -o "$work/rss" "$build/cli/memfloor" analyze "$trace" --no-table \
        -o "$work/r.json" >/dev/null
  )
  mb=$(( $(stat -c %s "$trace") / 1048576 ))
  # Each line: wall user sys. Sorted by CPU time; the middle line is the median run.
  awk '{printf "%.3f %.3f\n", $2 + $3, $1}' "$work/runs" | sort -n |
      awk -v n="$n" -v mb="$mb" -v rss="$(cat "$work/rss")" '
    { cpu[NR] = $1; wall[NR] = $2 }
    END {
      m = int((NR + 1) / 2)
      printf "%-12s %-10s %-10s %-14.0f %-10s %-16.0f %-14s %-12d\n", n, mb, wall[m],
          n / wall[m], cpu[m], n / cpu[m], cpu[1] "-" cpu[NR], rss / 1024
    }'
  rm -f "$trace"
done
