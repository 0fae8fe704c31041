# Sourced by the command line's shell tests (tests/cli/*.sh, after setting $memfloor): a work
# directory removed at exit, the count of failures, and the checks they share.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect CODE PATTERN -- ARGS...: memfloor ARGS exits CODE and prints one line on stderr that
# matches PATTERN (an error, which names what is wrong). Returns non-zero when it did not.
expect() {
  local code=$1 pattern=$2
  shift 3
  "$memfloor" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  local lines
  lines=$(wc -l <"$work/err")
  if [ "$got" -ne "$code" ] || ! grep -Eq -- "$pattern" "$work/err" || [ "$lines" -ne 1 ]; then
    fail "memfloor $* -> exit $got (want $code), stderr ($lines lines): $(cat "$work/err")"
    return 1
  fi
  echo "ok: memfloor $* -> $got: $(cat "$work/err")"
}

# expect_exit CODE -- ARGS...: exit code CODE and nothing on stderr (a verdict, not an error).
expect_exit() {
  local code=$1
  shift 2
  "$memfloor" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$code" ] || [ -s "$work/err" ]; then
    fail "memfloor $* -> exit $got (want $code), stderr: $(cat "$work/err")"
    return 1
  fi
  echo "ok: memfloor $* -> $got"
}

# finish NAME: the summary line, and the test's exit status.
finish() {
  echo "$1: $failures failed"
  [ "$failures" -eq 0 ]
}
