#!/usr/bin/env bash
# Python checker speed: memfloor-check end to end (front end, facts, rules, text output) on the Python
# sources of a code base nobody here wrote (default: Debian's python3-torch, the torch/ package),
# with one job and with every core. Each run is repeated and the fastest kept.
#
#   [PYTHON=INTERPRETER] bench/checker_python_speed.sh BUILD_DIR [SOURCE_DIR | --generate=MB] [REPEATS]
#
# PYTHON names the interpreter of the front end (memfloor-check --python; default python3 on PATH,
# which may be a version manager's shim that costs more to start than the interpreter itself).
# --generate=MB checks a program of MB megabytes written by bench/gen_python_program.py (classes
# of one tensor field each), the shape whose cost once grew with the square of its size.
#
# Prints files, MB of source, wall and CPU (user+sys) seconds, MB/s per core (source MB over CPU
# seconds), peak RSS of the front end's processes and of memfloor-check, and the findings per rule.
set -euo pipefail
build=${1:?usage: checker_python_speed.sh BUILD_DIR [SOURCE_DIR | --generate=MB] [REPEATS]}
src=${2:-/usr/lib/python3/dist-packages/torch}
repeats=${3:-3}
python=${PYTHON:-python3}
checker=$(realpath "$build")/checker/memfloor-check
[ -x "$checker" ] || { echo "no $checker (build with MEMFLOOR_BUILD_CHECKER)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $src == --generate=* ]]; then
  python3 "$(dirname "$(realpath "$0")")/gen_python_program.py" "$work/generated" "${src#*=}"
  src=$work/generated
fi
[ -d "$src" ] || { echo "no $src (apt install python3-torch, or name a directory)" >&2; exit 2; }
cd "$work"  # no .memfloor-check.json above: the defaults

bytes=$(find "$src" -name '*.py' -type f -printf '%s\n' | awk '{s += $1} END {print s}')
files=$(find "$src" -name '*.py' -type f | wc -l)
echo "source: $src ($files files, $(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}') MB)"
echo "interpreter: $(command -v "$python" || echo "$python (not found)")"
printf '%-6s %8s %8s %12s %10s\n' jobs wall_s cpu_s MB/s/core rss_MB
for jobs in 1 "$(nproc)"; do
  best=""
  for ((i = 0; i < repeats; i++)); do
    # GNU time reports the largest RSS of the process tree's members (the front end, then the rules).
    status=0
    /usr/bin/time -f '%e %U %S %M' -o time.txt "$checker" --python "$python" -j "$jobs" "$src" \
      > out.txt 2> err.txt || status=$?
    if ((status > 1)); then cat err.txt >&2; exit "$status"; fi  # 1: findings
    read -r wall user sys rss < <(tail -n 1 time.txt)  # after "Command exited with ..."
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')
    if [ -z "$best" ] || awk -v a="$cpu" -v b="${best%% *}" 'BEGIN {exit !(a < b)}'; then
      best="$cpu $wall $rss"
    fi
  done
  read -r cpu wall rss <<< "$best"
  awk -v j="$jobs" -v w="$wall" -v c="$cpu" -v b="$bytes" -v r="$rss" \
    'BEGIN {printf "%-6s %8.2f %8.2f %12.2f %10.0f\n", j, w, c, b / 1e6 / c, r / 1024}'
done
tail -n 1 err.txt
grep -o '\[MF00[0-9]\]$' out.txt | sort | uniq -c || true
