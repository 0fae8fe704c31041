#!/usr/bin/env bash
# The memfloor binary on bad input: one line on stderr naming the problem, exit code 2.
set -u
memfloor=$1
testdata=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect CODE PATTERN -- ARGS...: exit code CODE, and stderr one line matching PATTERN.
expect() {
  local code=$1 pattern=$2
  shift 3
  "$memfloor" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [ "$got" -ne "$code" ] || ! grep -Eq -- "$pattern" "$work/err" || [ "$lines" -ne 1 ]; then
    echo "FAIL: memfloor $* -> exit $got (want $code), stderr ($lines lines):"
    cat "$work/err"
    failures=$((failures + 1))
  else
    echo "ok: memfloor $* -> $got: $(cat "$work/err")"
  fi
}

: >"$work/empty.mftrace"
printf 'hello, not a trace\n' >"$work/text.mftrace"
printf 'MFTRACE\0\x02\x00\x00\x00\x00\x00\x00\x00' >"$work/newer.mftrace"

expect 2 "missing.mftrace.*(No such file|does not exist)" -- analyze "$work/missing.mftrace"
expect 2 "empty.mftrace.*empty" -- analyze "$work/empty.mftrace"
expect 2 "text.mftrace.*not a memfloor trace" -- analyze "$work/text.mftrace"
expect 2 "newer.mftrace.*major version 2" -- analyze "$work/newer.mftrace"
printf 'alloc t=oops\n' >"$work/bad.txt"
expect 2 "bad.txt:1:" -- analyze "$work/bad.txt"
expect 2 "unknown-command|following argument|subcommand" -- no-such-command

echo "exit code checks: $failures failed"
[ "$failures" -eq 0 ]
