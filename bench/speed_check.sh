#!/usr/bin/env bash
# CI's speed check: the benchmark's traces at 1M events, plain and with allocator blocks and
# censuses, each analysed against a reference loop timed beside it (bench/speed_check.cpp) and
# compared with its committed figure in bench/speed_figures.txt. Fails at a 25% drop.
# Usage: bench/speed_check.sh [BENCH_DIR] [--print]   (BENCH_DIR: the build's bench/)
set -euo pipefail
bench=${1:-build/bench}
print=()
[ "${2:-}" = --print ] && print=(--print)
figures="$(cd "$(dirname "$0")" && pwd)/speed_figures.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/memfloor-speed.XXXXXX")
trap 'rm -rf "$work"' EXIT

status=0
for name in plain blocks-censuses; do
  extra=()
  [ "$name" = blocks-censuses ] && extra=(--blocks --censuses)
  "$bench/memfloor-gen-trace" -o "$work/$name.mftrace" --events 1000000 --activations 4096 \
      --retain-bytes 67108864 "${extra[@]}" >/dev/null
  "$bench/memfloor-speed-check" "$work/$name.mftrace" "$name" "$figures" "${print[@]}" || status=1
done
exit $status
