#!/usr/bin/env bash
# memfloor-check end to end on inputs made to trip it: control bytes in a walked file's name and in
# a source line (the terminal sees them escaped, JSON keeps them), an Emacs lock file in a walked
# directory (skipped; named, an error), syntax newer than the front end's interpreter (the message
# names the interpreter and --python; the other files are still checked).
#
#   hostile_inputs.sh MEMFLOOR_CHECK PYTHON TESTDATA
set -u
check=$(realpath "$1")
python=$2
testdata=$(realpath "$3")
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/../cli/expect.sh"

# run ARGS...: memfloor-check on $python, stdout and stderr in $work/out and $work/err; sets $code.
run() {
  "$check" --python "$python" "$@" >"$work/out" 2>"$work/err"
  code=$?
}

# A layer with one MF001 finding; its last line (24) is the finding's, given as $1.
layer() {
  cat <<'EOF'
import torch


class Stage:
    def __init__(self):
        self.activation = torch.zeros(4)

    def finish(self):
        return self.activation.sum()

    def _release_state(self):
        self.activation = None


class Pipeline:
    def __init__(self):
        self.stage = Stage()

    def teacher(self):
        self.stage.finish()
        self.stage._release_state()

    def other(self):
EOF
  printf '%s\n' "$1"
}

cd "$work" || exit 2
esc=$'\x1b'
bel=$'\x07'

# 13: control bytes in a walked file's name and in the line the text output echoes.
mkdir ctl
name="red${esc}[31m${bel}.py"
layer "        s = \"${esc}[2J${bel}\"; self.stage.finish()" >"ctl/$name"
printf 'def f(:\n' >"ctl/bad${esc}[31m.py"
run ctl
if [ "$code" -ne 2 ] || LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' out err ||
  ! grep -qF 'ctl/red\x1b[31m\x07.py:24:22: warning:' out ||
  ! grep -qF '        s = "\x1b[2J\x07"; self.stage.finish()' out ||
  ! grep -qF 'ctl/bad\x1b[31m.py:1: cannot parse' err; then
  fail "control bytes: exit $code (want 2), stdout/stderr:"
  cat -v out err
else
  echo "ok: a walked name and a source line with ESC and BEL print escaped"
fi
run --format json ctl
if ! "$python" -c 'import json, sys
doc = json.load(open("out"))
want = "red\x1b[31m\x07.py"
sys.exit(0 if doc["findings"][0]["location"]["file"] == "ctl/" + want else 1)'; then
  fail "control bytes: the findings document does not hold the name exactly: $(cat -v out)"
else
  echo "ok: the findings document holds the name exactly"
fi

# 16: an Emacs lock file (a dangling link) found by a walk is skipped; named, it is an error.
mkdir lock
layer "        self.stage.finish()" >lock/layer.py
ln -s 'user@host.1234:1700000000' 'lock/.#layer.py'
run lock
if [ "$code" -ne 1 ] || grep -q 'error' err; then
  fail "a lock file in a walk: exit $code (want 1), stderr: $(cat err)"
else
  echo "ok: a lock file in a walk is skipped: $(cat err)"
fi
run 'lock/.#layer.py'
named="error: lock/.#layer.py: a symbolic link to 'user@host.1234:1700000000', which does not exist"
if [ "$code" -ne 2 ] || ! grep -qF "$named" err; then
  fail "a lock file named: exit $code (want 2), stderr: $(cat err)"
else
  echo "ok: a lock file named is an error: $(head -n 1 err)"
fi

# 17: syntax newer than the interpreter: the message says which Python parsed and how to pick
# another; the other files of the run are checked and reported.
mkdir newer
cp "$testdata/checker/newer_python/pep695_pep701.py" newer/
layer "        self.stage.finish()" >newer/layer.py
run newer
if "$python" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
  want=1 pattern='^memfloor-check: 1 finding'
else
  want=2
  pattern="error: $(pwd -P)/newer/pep695_pep701.py:4: cannot parse: .* \\(parsed by Python "
  pattern+="3\\.[0-9]+ at .*; code for a newer Python needs --python naming that interpreter\\)$"
fi
if [ "$code" -ne "$want" ] || ! grep -Eq -- "$pattern" err ||
  ! grep -q 'newer/layer.py:24:9: warning' out; then
  fail "newer syntax: exit $code (want $want), stderr: $(cat err)"
else
  echo "ok: newer syntax -> $code: $(head -n 1 err)"
fi

finish hostile_inputs
