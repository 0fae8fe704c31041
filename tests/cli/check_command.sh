#!/usr/bin/env bash
# memfloor check: finds memfloor-check (next to memfloor, ../checker/, PATH), hands it every
# argument unchanged and becomes it (exit code and signals are the checker's); a missing checker is
# one line on stderr naming where memfloor looked, and exit code 2.
#
#   check_command.sh dispatch MEMFLOOR            stand-in checkers (shell scripts): always runs
#   check_command.sh checker MEMFLOOR TESTDATA [MEMFLOOR_CHECK]
#                                                  the real checker; skipped when it is not built
set -u
mode=$1
memfloor=$2
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/expect.sh"

# fake DIR CODE: a stand-in memfloor-check in DIR that writes its arguments, one per line in
# brackets, to $work/args and exits with CODE (a signal name: kills itself with it).
fake() {
  mkdir -p "$1"
  cat >"$1/memfloor-check" <<EOF
#!/bin/sh
for a in "\$@"; do printf '[%s]\\n' "\$a"; done >"$work/args"
case $2 in
  [0-9]*) exit $2 ;;
  *) kill -$2 \$\$ ;;
esac
EOF
  chmod +x "$1/memfloor-check"
}

# run EXPECTED_CODE ENV... -- ARGS...: runs memfloor with the environment given, checks the code.
run() {
  local want=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do
    envs+=("$1")
    shift
  done
  shift
  rm -f "$work/args"
  env -i "${envs[@]}" "$@" >"$work/out" 2>"$work/err"
  got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$* -> exit $got (want $want); stderr:"
    cat "$work/err"
    return 1
  fi
  echo "ok: $* -> $got"
}

dispatch() {
  # memfloor alone in a directory: nothing next to it, no ../checker/.
  mkdir -p "$work/alone/bin"
  cp "$memfloor" "$work/alone/bin/memfloor"
  local alone=$work/alone/bin/memfloor

  for path in "PATH=" "PATH=$work/nowhere:/nonexistent"; do
    if run 2 "$path" -- "$alone" check --version; then
      lines=$(wc -l <"$work/err")
      if [ "$lines" -ne 1 ] || ! grep -q "memfloor-check not found" "$work/err" ||
        ! grep -qF "$work/alone/bin" "$work/err" || ! grep -qF "$work/alone/checker" "$work/err" ||
        ! grep -q "MEMFLOOR_BUILD_CHECKER" "$work/err"; then
        fail "missing checker ($path): want one line naming where memfloor looked, got:"
        cat "$work/err"
      else
        echo "ok: $(cat "$work/err")"
      fi
    fi
  done

  # On PATH: every argument arrives unchanged, `--`, options of memfloor's own and empty ones too.
  fake "$work/onpath" 3
  local args=(-- -p build --help --version "two words" --format=json -j 4 "" check -o x.json)
  if run 3 "PATH=/nonexistent:$work/onpath" -- "$alone" check "${args[@]}"; then
    printf '[%s]\n' "${args[@]}" >"$work/want"
    if ! cmp -s "$work/want" "$work/args"; then
      fail "arguments changed on the way; want, got:"
      cat "$work/want" "$work/args"
    fi
  fi
  if run 3 "PATH=$work/onpath" -- "$alone" check && [ -s "$work/args" ]; then
    fail "no arguments should arrive as none, got: $(cat "$work/args")"
  fi

  # Next to memfloor wins over PATH.
  fake "$work/alone/bin" 4
  run 4 "PATH=$work/onpath" -- "$alone" check -p build

  # The build tree: build/cli/memfloor finds build/checker/memfloor-check.
  mkdir -p "$work/build/cli"
  cp "$memfloor" "$work/build/cli/memfloor"
  fake "$work/build/checker" 5
  run 5 "PATH=$work/onpath" -- "$work/build/cli/memfloor" check -p build

  # memfloor becomes the checker: a signal that ends the checker ends `memfloor check` the same way.
  mkdir -p "$work/signal/bin"
  cp "$memfloor" "$work/signal/bin/memfloor"
  fake "$work/signal/bin" TERM
  run 143 "PATH=" -- "$work/signal/bin/memfloor" check

  # memfloor --help lists the subcommand.
  "$memfloor" --help >"$work/help" 2>&1
  grep -Eq '^ +check ' "$work/help" || fail "memfloor --help does not list check"
  grep -Eq '^ +export ' "$work/help" || fail "memfloor --help does not list export"
}

# bad_database WHAT MESSAGE ARGS...: the real checker run with ARGS exits 2 with the one line
# "memfloor-check: error: MESSAGE..." on stderr and nothing on stdout.
bad_database() {
  local what=$1 message=$2
  shift 2
  "$real" "$@" >"$work/db.out" 2>"$work/db.err"
  local got=$?
  if [ "$got" -ne 2 ] || [ -s "$work/db.out" ] || [ "$(wc -l <"$work/db.err")" -ne 1 ] ||
    ! grep -qF -- "memfloor-check: error: $message" "$work/db.err"; then
    fail "memfloor-check $* ($what) -> $got (want 2), stdout $(wc -c <"$work/db.out") bytes, stderr:"
    cat "$work/db.err"
  else
    echo "ok: memfloor-check with database $what -> 2: $(cat "$work/db.err")"
  fi
}

checker() {
  local testdata=$1 real=${2:-}
  if [ -z "$real" ]; then
    echo "SKIPPED: memfloor-check is not built (configure with -DMEMFLOOR_BUILD_CHECKER=ON)"
    return
  fi
  # Compare with the checker run directly: same output, same exit code.
  compare() {
    "$real" "$@" >"$work/direct.out" 2>"$work/direct.err"
    local direct=$?
    "$memfloor" check "$@" >"$work/via.out" 2>"$work/via.err"
    local via=$?
    if [ "$via" -ne "$direct" ] || ! cmp -s "$work/direct.out" "$work/via.out"; then
      fail "memfloor check $* -> $via, memfloor-check $* -> $direct; outputs:"
      diff "$work/direct.out" "$work/via.out" | head -20
    else
      echo "ok: memfloor check $* -> $via, as memfloor-check ($(wc -l <"$work/via.out") lines)"
    fi
  }
  compare --version
  compare --format json --root "$testdata/checker" "$testdata/checker/mf002_retained_member.cpp" \
    -- -std=c++17
  grep -q '"MF002"' "$work/via.out" || fail "no MF002 finding through memfloor check"
  compare "$testdata/checker/no_such_file.cpp" -- -std=c++17

  # An input that gives the checker nothing to check is an error naming it, exit 2: not a clean
  # check of 0 units. A directory with sources is checked as before, beside it or alone.
  mkdir -p "$work/no-python/sub" "$work/excluded"
  echo 'not Python' >"$work/no-python/notes.txt"
  echo 'x = 1' >"$work/excluded/only.py"
  echo 'y = 2' >"$work/seed.py"
  nothing_to_check "$work/no-python" -- "$work/no-python"
  nothing_to_check "$work/no-python/" -- "$work/seed.py" "$work/no-python/"
  nothing_to_check "$work/excluded" -- --exclude 'only.py' "$work/excluded"
  "$memfloor" check "$work/excluded" >"$work/some.out" 2>"$work/some.err"
  local some=$?
  if [ "$some" -le 1 ] && grep -q "in 1 unit(s)" "$work/some.err"; then
    echo "ok: memfloor check on a directory with a source -> $some"
  else
    fail "memfloor check $work/excluded -> $some: $(cat "$work/some.err")"
  fi

  # A compilation database that is named (-p) and missing, unreadable or not JSON is an error: exit
  # 2, one line naming the directory or the file, no findings (LLVM's tools run "without flags").
  # Root is not stopped by file modes: a directory named compile_commands.json cannot be read.
  mkdir -p "$work/unreadable/compile_commands.json" "$work/garbage"
  echo '[{"directory": "/", "file": ' >"$work/garbage/compile_commands.json"
  local source="$testdata/checker/mf002_retained_member.cpp"
  bad_database "$work/nonexistent/build" "-p $work/nonexistent/build: No such file or directory" \
    -p "$work/nonexistent/build" "$source"
  bad_database "$work/unreadable" "$work/unreadable/compile_commands.json: not a usable" \
    -p "$work/unreadable" "$source"
  bad_database "$work/garbage" "$work/garbage/compile_commands.json: not a usable" \
    -p "$work/garbage" "$source"
  bad_database "$work/garbage, no file" "$work/garbage/compile_commands.json: not a usable" \
    -p "$work/garbage"
  bad_database "$work/garbage, = form" "$work/garbage/compile_commands.json: not a usable" \
    -p="$work/garbage" --format json "$source"

  # A mistyped enumerated option is refused before any work: no facts file is written.
  rm -f "$work/facts.json"
  "$real" --format bogus --emit-facts "$work/facts.json" "$testdata/checker/mf002_retained_member.cpp" \
    -- -std=c++17 >"$work/bogus.out" 2>"$work/bogus.err"
  local bogus=$?
  if [ "$bogus" -ne 2 ] || [ -e "$work/facts.json" ] || ! grep -q -- "--format" "$work/bogus.err"; then
    fail "memfloor-check --format bogus -> $bogus, facts written: $([ -e "$work/facts.json" ] && echo yes || echo no)"
  else
    echo "ok: memfloor-check --format bogus -> 2 before any work ($(cat "$work/bogus.err"))"
  fi

  # LLVM's own output lost to a full disk is exit 2 with the reason, not an abort (134).
  if [ -w /dev/full ]; then
    for args in "check --version" "check --help"; do
      # shellcheck disable=SC2086 # the arguments are words
      "$memfloor" $args >/dev/full 2>"$work/full.err"
      local code=$?
      if [ "$code" -eq 2 ] && grep -q "standard output: cannot write: No space left on device" \
        "$work/full.err" && [ "$(wc -l <"$work/full.err")" -eq 1 ]; then
        echo "ok: memfloor $args >/dev/full -> 2: $(cat "$work/full.err")"
      else
        fail "memfloor $args >/dev/full -> $code: $(cat "$work/full.err")"
      fi
    done
  else
    echo "SKIPPED: no writable /dev/full here"
  fi
}

# nothing_to_check INPUT -- ARGS...: memfloor check ARGS exits 2 and names INPUT as having no
# Python source to check.
nothing_to_check() {
  local input=$1
  shift 2
  "$memfloor" check "$@" >"$work/none.out" 2>"$work/none.err"
  local code=$?
  if [ "$code" -eq 2 ] && grep -qF "error: $input: no Python source (.py) to check" "$work/none.err"; then
    echo "ok: memfloor check $* -> 2: $(grep -F "$input:" "$work/none.err")"
  else
    fail "memfloor check $* -> $code (want 2 naming $input): $(cat "$work/none.err")"
  fi
}

case $mode in
  dispatch) dispatch ;;
  checker) checker "${3:-}" "${4:-}" ;;
  *)
    echo "usage: $0 dispatch|checker MEMFLOOR [TESTDATA [MEMFLOOR_CHECK]]"
    exit 2
    ;;
esac
finish "memfloor check"
