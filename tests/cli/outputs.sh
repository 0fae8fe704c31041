#!/usr/bin/env bash
# Every file memfloor writes: never through a symbolic link, never over one of the command's own
# inputs, never half-written (a failed write leaves the old file and no temporary), and output
# lost on standard output is exit 2. Each case checks the exit code, the one-line message and
# that the victim file did not change.
set -u
memfloor=$1
testdata=$2
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/expect.sh"

trace=$testdata/model/fixed.mftrace
bug=$testdata/model/hc-bug.mftrace
cp "$trace" "$work/fixed.mftrace"
"$memfloor" analyze "$trace" -o "$work/fixed.json" --no-table || fail "analyze fixed"
"$memfloor" analyze "$bug" -o "$work/bug.json" --no-table || fail "analyze hc-bug"
"$memfloor" trace to-text "$trace" -o "$work/fixed.txt" || fail "to-text"
printf 'do not overwrite\n' >"$work/victim"
victim_sum=$(sha256sum <"$work/victim")

# refused CODE PATTERN -- ARGS...: expect, and the victim as it was, and no temporary file left
# in the work directory.
refused() {
  expect "$@" || return
  shift 3
  if [ "$(sha256sum <"$work/victim")" != "$victim_sum" ]; then
    fail "memfloor $* changed the victim file"
  elif compgen -G "$work/.*.tmp" >/dev/null; then
    fail "memfloor $* left a temporary file: $(ls -a "$work")"
  fi
}

# An empty output path (an unset variable in `-o "$OUT"`) is refused, not taken for no output.
empty="an empty path names no file"
refused 2 "--output: $empty" -- analyze "$trace" -o "" --no-table
refused 2 "--output: $empty" -- trace to-text "$trace" -o ""
refused 2 "--json: $empty" -- gate --baseline "$work/fixed.json" "$work/bug.json" --json ""
refused 2 "--markdown: $empty" -- gate --baseline "$work/fixed.json" "$work/bug.json" --markdown ""

# Item 3: a symbolic link as the output, for every command that writes one.
link=$work/link
ln -sf "$work/victim" "$link"
through="will not write the .* through a symbolic link"
refused 2 "$through" -- analyze "$trace" -o "$link" --no-table
refused 2 "$through" -- report "$work/fixed.json" -o "$link"
refused 2 "$through" -- export --perfetto "$trace" -o "$link"
refused 2 "$through" -- trace to-text "$trace" -o "$link"
refused 2 "$through" -- trace from-text "$work/fixed.txt" -o "$link"
refused 2 "$through" -- trace symbolize "$trace" -o "$link" --no-resolve
refused 2 "$through" -- gate --baseline "$work/fixed.json" "$work/fixed.json" --json "$link"
refused 2 "$through" -- gate --baseline "$work/fixed.json" "$work/fixed.json" --markdown "$link"
refused 2 "$through" -- gate --baseline "$link" "$work/fixed.json" --update-baseline
# A link planted where the old baseline update put its temporary file is never opened.
cp "$work/fixed.json" "$work/baseline.json"
ln -sf "$work/victim" "$work/baseline.json.tmp"
if "$memfloor" gate --baseline "$work/baseline.json" "$work/bug.json" --update-baseline >/dev/null &&
  cmp -s "$work/baseline.json" "$work/bug.json" && [ "$(sha256sum <"$work/victim")" = "$victim_sum" ]; then
  echo "ok: --update-baseline past a planted <baseline>.tmp link"
else
  fail "--update-baseline with a planted <baseline>.tmp link"
fi
rm -f "$work/baseline.json.tmp"

# Item 6: an output that is one of the command's inputs (by name, or a hard link to it).
over="will not write the .* over .*an input of this command"
ln "$work/fixed.mftrace" "$work/hardlink.mftrace"
trace_sum=$(sha256sum <"$work/fixed.mftrace")
refused 2 "$over" -- trace to-text "$work/fixed.mftrace" -o "$work/fixed.mftrace"
refused 2 "$over" -- trace symbolize "$work/fixed.mftrace" -o "$work/hardlink.mftrace" --no-resolve
refused 2 "$over" -- export --perfetto "$work/fixed.mftrace" -o "$work/fixed.mftrace"
refused 2 "$over" -- analyze "$work/fixed.mftrace" -o "$work/hardlink.mftrace" --no-table
refused 2 "$over" -- trace from-text "$work/fixed.txt" -o "$work/fixed.txt"
[ "$(sha256sum <"$work/fixed.mftrace")" = "$trace_sum" ] || fail "an input trace changed"
json_sum=$(sha256sum <"$work/fixed.json")
refused 2 "$over" -- report "$work/fixed.json" -o "$work/fixed.json"
refused 2 "$over" -- gate --baseline "$work/fixed.json" "$work/bug.json" --json "$work/fixed.json"
refused 2 "$over" -- gate --baseline "$work/fixed.json" "$work/fixed.json" --update-baseline
[ "$(sha256sum <"$work/fixed.json")" = "$json_sum" ] || fail "an input report changed"

# Item 7: two writers of one output at once leave one whole document, never a mix.
for try in 1 2 3 4 5 6; do
  "$memfloor" analyze "$trace" -o "$work/same.json" --no-table &
  "$memfloor" analyze "$bug" -o "$work/same.json" --no-table &
  wait
  if ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/same.json" 2>/dev/null; then
    fail "two analyze -o same.json at once left invalid JSON (try $try)"
  fi
done
echo "ok: 6 tries of two analyze -o same.json at once: valid JSON each time"

# Item 8: a write that fails (the file size limit stands in for a full disk) leaves the old file
# whole and no temporary; /dev/full and a full standard output are exit 2.
cp "$work/fixed.json" "$work/old.json"
old_sum=$(sha256sum <"$work/old.json")
(
  trap '' XFSZ
  ulimit -f 8
  "$memfloor" analyze "$trace" -o "$work/old.json" --no-table 2>"$work/err"
  echo $? >"$work/code"
)
if [ "$(cat "$work/code")" -eq 2 ] && grep -q "old.json: cannot write the report: File too large" "$work/err" &&
  [ "$(sha256sum <"$work/old.json")" = "$old_sum" ] && ! compgen -G "$work/.*.tmp" >/dev/null; then
  echo "ok: a failed write: exit 2, $(cat "$work/err"), the old report whole, no temporary"
else
  fail "a failed write: exit $(cat "$work/code"), $(cat "$work/err"), $(ls -a "$work")"
fi
if [ -w /dev/full ]; then
  refused 2 "/dev/full: cannot write the export: No space left on device" -- \
    export --perfetto "$trace" -o /dev/full
  refused 2 "/dev/full: cannot write the symbolized trace: No space left on device" -- \
    trace symbolize "$trace" -o /dev/full --no-resolve
  for args in "export --perfetto $trace -o -" "analyze $trace" "trace to-text $trace" "--help" \
    "--version" "analyze --help"; do
    # shellcheck disable=SC2086 # the arguments are words
    "$memfloor" $args >/dev/full 2>"$work/err"
    code=$?
    if [ "$code" -eq 2 ] && grep -q "standard output: cannot write: No space left on device" "$work/err"; then
      echo "ok: memfloor $args >/dev/full -> 2: $(cat "$work/err")"
    else
      fail "memfloor $args >/dev/full -> $code: $(cat "$work/err")"
    fi
  done
else
  echo "SKIPPED: no writable /dev/full here"
fi
# trace symbolize on a truncated trace: the copy up to where it stops, and a warning.
head -c 3000 "$trace" >"$work/cut.mftrace"
"$memfloor" trace symbolize "$work/cut.mftrace" -o "$work/cut-sym.mftrace" --no-resolve \
  >/dev/null 2>"$work/err"
code=$?
if [ "$code" -eq 0 ] && grep -q "warning: .*cut.mftrace: truncated" "$work/err"; then
  echo "ok: trace symbolize on a truncated trace warns: $(cat "$work/err")"
else
  fail "trace symbolize on a truncated trace -> $code: $(cat "$work/err")"
fi
# A symbolize that fails leaves nothing behind (it left the 16-byte header it had written).
printf 'MFTRACE\0\x02\x00\x00\x00\x00\x00\x00\x00' >"$work/bad.mftrace"
refused 2 "bad.mftrace.*major version 2" -- trace symbolize "$work/bad.mftrace" -o "$work/bad-sym.mftrace" --no-resolve
[ -e "$work/bad-sym.mftrace" ] && fail "a failed trace symbolize left its output"

# Item 13: messages that say what happened.
refused 2 "nodir/out.json: cannot write the report: No such file or directory \(creating a file in " \
  -- analyze "$trace" -o "$work/nodir/out.json" --no-table
refused 2 "cannot write the report: it is a directory" -- analyze "$trace" -o "$work" --no-table
refused 2 "victim: cannot make the demo's directory" -- demo -o "$work/victim" --no-record
if [ "$(id -u)" -ne 0 ]; then
  mkdir "$work/ro" && chmod 555 "$work/ro"
  refused 2 "ro/out.json: cannot write the report: Permission denied" -- \
    analyze "$trace" -o "$work/ro/out.json" --no-table
else
  echo "SKIPPED: a read-only directory (running as root, which may write anywhere)"
fi

# Every writer says what it wrote, the same way: "memfloor: wrote FILE (N KiB)", its last line.
wrote() {
  local file=$1
  shift
  if "$memfloor" "$@" >"$work/out" 2>"$work/err" &&
    tail -1 "$work/out" | grep -Eq "^memfloor: wrote $file \([0-9]+ KiB\)"; then
    echo "ok: memfloor $* -> $(tail -1 "$work/out")"
  else
    fail "memfloor $* said of its output: $(tail -1 "$work/out") $(cat "$work/err")"
  fi
}
wrote "$work/says.json" analyze "$trace" -o "$work/says.json"
wrote "$work/says.json" analyze "$trace" -o "$work/says.json" --no-table
wrote "$work/says.html" report "$work/fixed.json" -o "$work/says.html"
wrote "$work/says.perfetto.json" export --perfetto "$trace" -o "$work/says.perfetto.json"
wrote "$work/says.pickle" export --format memory-viz "$trace" -o "$work/says.pickle"
wrote "$work/says.txt" trace to-text "$trace" -o "$work/says.txt"
wrote "$work/says.mftrace" trace from-text "$work/says.txt" -o "$work/says.mftrace"
wrote "$work/says.sym.mftrace" trace symbolize "$trace" -o "$work/says.sym.mftrace" --no-resolve
wrote "$work/says.gate.json" gate --baseline "$work/fixed.json" "$work/fixed.json" --json "$work/says.gate.json"
wrote "$work/says.base.json" gate --baseline "$work/says.base.json" "$work/fixed.json" --update-baseline

# Overwriting a regular file keeps its permissions.
chmod 600 "$work/old.json"
"$memfloor" analyze "$trace" -o "$work/old.json" --no-table || fail "analyze over old.json"
[ "$(stat -c %a "$work/old.json")" = 600 ] || fail "an overwritten report lost its mode"

finish "output checks"
