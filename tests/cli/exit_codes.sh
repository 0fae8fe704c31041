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
expect 2 "missing.mftrace.*(No such file|does not exist)" -- export --perfetto "$work/missing.mftrace" -o "$work/out.json"
expect 2 "perfetto.*required" -- export "$work/empty.mftrace" -o "$work/out.json"
expect 2 "--site-include: an empty pattern" -- analyze "$testdata/demo/retention.mftrace" --site-include ''
expect 2 "--site-exclude: an empty pattern" -- export --perfetto "$testdata/demo/retention.mftrace" -o "$work/out.json" --site-exclude ''
expect 2 "--prefix-map.*'/work': expected OLD=NEW" -- trace symbolize "$work/empty.mftrace" -o "$work/sym.mftrace" --prefix-map /work
expect 2 "--prefix-map.*OLD .*is empty" -- trace symbolize "$work/empty.mftrace" -o "$work/sym.mftrace" --prefix-map =/opt
expect 2 "--census must be auto, every, off or optimizer steps such as 2,10 .*not '3,x'" -- run --census 3,x -- true
expect 2 "--census must be .*not '0'" -- run --census 0 -- true
[ -e "$work/sym.mftrace" ] && { echo "FAIL: a refused trace symbolize left its output"; failures=$((failures + 1)); }
# Without llvm-symbolizer on PATH, --no-resolve still copies a trace and rewrites its paths.
if PATH=/nonexistent "$memfloor" trace symbolize "$testdata/model/fixed.mftrace" -o "$work/sym.mftrace" \
    --no-resolve --prefix-map /opt/none= >"$work/out" 2>"$work/err" && [ ! -s "$work/err" ]; then
  echo "ok: trace symbolize --no-resolve without llvm-symbolizer: $(head -1 "$work/out")"
else
  echo "FAIL: trace symbolize --no-resolve without llvm-symbolizer:"
  cat "$work/err"
  failures=$((failures + 1))
fi

# expect_exit CODE -- ARGS...: exit code CODE and nothing on stderr (a verdict, not an error).
expect_exit() {
  local code=$1
  shift 2
  "$memfloor" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$code" ] || [ -s "$work/err" ]; then
    echo "FAIL: memfloor $* -> exit $got (want $code), stderr:"
    cat "$work/err"
    failures=$((failures + 1))
  else
    echo "ok: memfloor $* -> $got"
  fi
}

# gate: 0 pass, 1 regression, 2 when the baseline or current is unusable (never a silent pass).
fixed=$testdata/gate/fixed.report.json
bug=$testdata/gate/hc-bug.report.json
printf '{"schema": "memfloor.report/2", "ru' >"$work/corrupt.json"
printf '{"schema": "memfloor.report/1", "trace": {}}\n' >"$work/v1.json"
printf '{"schema": "memfloor.report/2"}\n' >"$work/fields.json"
expect_exit 0 -- gate --baseline "$fixed" "$fixed"
expect_exit 1 -- gate --baseline "$fixed" "$bug"
expect_exit 0 -- gate --baseline "$fixed" "$bug" --idle-floor-bytes 2MiB --allow-new-findings
expect_exit 0 -- gate --baseline "$bug" "$fixed"
expect 2 "baseline report: .*missing.json.*No such file" -- gate --baseline "$work/missing.json" "$fixed"
expect 2 "baseline report: .*empty.mftrace.*empty" -- gate --baseline "$work/empty.mftrace" "$fixed"
expect 2 "baseline report: .*corrupt.json: not JSON" -- gate --baseline "$work/corrupt.json" "$fixed"
expect 2 "baseline report: .*v1.json.*memfloor.report/1.*not supported" -- gate --baseline "$work/v1.json" "$fixed"
expect 2 "baseline report: .*fields.json: runs: missing" -- gate --baseline "$work/fields.json" "$fixed"
expect 2 "current report: .*missing.json" -- gate --baseline "$fixed" "$work/missing.json"
expect 2 "idle-floor-percent.*not a percentage" -- gate --baseline "$fixed" "$bug" --idle-floor-percent -1
expect_exit 0 -- gate --baseline "$fixed" "$bug" --idle-floor-bytes 2MiB --allow-new-findings \
  --peak-site-bytes 1GiB --peak-site-percent 50
expect 2 "peak-site-percent.*not a percentage" -- gate --baseline "$fixed" "$bug" --peak-site-percent -1
expect 2 "baseline|required" -- gate "$bug"
expect_exit 0 -- gate --baseline "$work/new-baseline.json" "$bug" --update-baseline
if ! cmp -s "$bug" "$work/new-baseline.json"; then
  echo "FAIL: gate --update-baseline did not copy $bug"
  failures=$((failures + 1))
fi
expect 2 "current report: .*corrupt.json" -- gate --baseline "$work/new-baseline.json" "$work/corrupt.json" --update-baseline
cmp -s "$bug" "$work/new-baseline.json" || { echo "FAIL: a bad current replaced the baseline"; failures=$((failures + 1)); }

echo "exit code checks: $failures failed"
[ "$failures" -eq 0 ]
