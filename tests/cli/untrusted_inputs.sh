#!/usr/bin/env bash
# The memfloor binary on hostile or mistaken inputs: findings that name files outside the source
# root, pipes and devices given as files, inputs past the size limits, byte sums past 2^64, and
# the messages that must say what is wrong. Every command runs under timeout(1): a reader that
# waits on a pipe fails the test instead of hanging it.
set -u
binary=$1
testdata=$2
limit=20  # seconds; every command here takes well under one
# expect() (expect.sh) runs "$memfloor": here memfloor under timeout(1) with no standard input.
limited() { timeout "$limit" "$binary" "$@" </dev/null; }
memfloor=limited
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/expect.sh"

# run ARGS...: the same for the checks of this file, stdout and stderr to $work/out and $work/err.
run() {
  limited "$@" >"$work/out" 2>"$work/err"
}

# absent FILE TEXT WHAT: FILE does not contain TEXT (a victim's contents).
absent() {
  if grep -qF -- "$2" "$1"; then fail "$3 contains '$2'"; else echo "ok: $3 does not contain it"; fi
}

trace=$testdata/demo/retention.mftrace

# 10. Findings name files outside --source-root: an absolute path, `..` out of the root, a link
# inside the root that points out, and a pipe inside it. None is read; each is one warning line;
# the finding inside the root keeps its snippet.
mkdir -p "$work/root/src" "$work/outside"
victim="VICTIM-$$-not-for-the-report"
printf 'first\n%s\nthird\n' "$victim" >"$work/outside/secret.txt"
chmod 600 "$work/outside/secret.txt"
ln -s "$work/outside/secret.txt" "$work/root/src/link.cpp"
mkfifo "$work/root/src/pipe.cpp"
printf 'int a;\nint inside_the_root;\nint c;\n' >"$work/root/src/ok.cpp"
passwd_line=$(head -1 /etc/passwd)
finding() {  # finding FILE LINE FINGERPRINT
  printf '{"rule": "MF001", "message": "m", "location": {"file": "%s", "line": %s, "column": 1},
   "related": [], "function": "Layer::forward", "field": "keep_", "fixits": [],
   "fingerprint": "%s"}' "$1" "$2" "$3"
}
{
  printf '{"schema": "memfloor.findings/1", "errors": [], "findings": [\n'
  finding /etc/passwd 1 00000000000000a1
  printf ',\n'
  finding ../outside/secret.txt 2 00000000000000a2
  printf ',\n'
  finding "$work/outside/secret.txt" 2 00000000000000a3
  printf ',\n'
  finding src/link.cpp 2 00000000000000a4
  printf ',\n'
  finding src/pipe.cpp 2 00000000000000a5
  printf ',\n'
  finding src/ok.cpp 2 00000000000000a6
  printf ']}\n'
} >"$work/findings.json"
run analyze "$trace" --findings "$work/findings.json" --source-root "$work/root" \
  -o "$work/report.json" --no-table
got=$?
if [ "$got" -ne 0 ]; then fail "analyze with escaping findings -> exit $got"; cat "$work/err"; fi
[ "$(wc -l <"$work/err")" -eq 5 ] || { fail "want 5 warning lines, got:"; cat "$work/err"; }
for name in "/etc/passwd: not under the source root" "finding 2: ../outside/secret.txt: not under" \
    "finding 3: $work/outside/secret.txt: not under" "finding 4: src/link.cpp: not under" \
    "finding 5: .*pipe.cpp: cannot read the source file: a pipe, not a regular file"; do
  grep -Eq -- "^memfloor: warning: .*findings.json: .*$name" "$work/err" ||
    fail "no warning line matching '$name'"
done
grep -q "finding 6" "$work/err" && fail "the finding inside the root was warned about"
grep -q "inside_the_root" "$work/report.json" || fail "the finding inside the root lost its snippet"
absent "$work/report.json" "$victim" "report.json"
absent "$work/report.json" "$passwd_line" "report.json"
run report "$work/report.json" -o "$work/report.html" || { fail "report -> $?"; cat "$work/err"; }
absent "$work/report.html" "$victim" "the HTML page"
absent "$work/report.html" "$passwd_line" "the HTML page"
grep -q "inside_the_root" "$work/report.html" || fail "the page lost the snippet inside the root"
expect 0 "source root '$work/nowhere': No such file or directory: no finding shows its source" -- \
  analyze "$trace" --findings "$work/findings.json" --source-root "$work/nowhere" --no-table

# 11. Pipes and devices are refused without waiting, naming the file and what it is; sizes past
# the limits are refused before anything is read (sparse files: no disk is used).
mkfifo "$work/fifo.mftrace" "$work/fifo.txt" "$work/fifo.json"
expect 2 "fifo.mftrace: cannot read the trace: a pipe, not a regular file" -- \
  analyze "$work/fifo.mftrace"
expect 2 "fifo.txt: cannot read the trace: a pipe" -- analyze "$work/fifo.txt"
expect 2 "fifo.mftrace: cannot read the trace: a pipe" -- trace to-text "$work/fifo.mftrace"
expect 2 "fifo.txt: cannot read the text trace: a pipe" -- \
  trace from-text "$work/fifo.txt" -o "$work/from-fifo.mftrace"
expect 2 "fifo.mftrace: cannot read the trace: a pipe" -- \
  export --perfetto "$work/fifo.mftrace" -o "$work/fifo-export.json"
expect 2 "fifo.json: cannot read the findings file: a pipe" -- \
  analyze "$trace" --findings "$work/fifo.json"
expect 2 "fifo.json: cannot read the report: a pipe" -- report "$work/fifo.json" -o "$work/f.html"
expect 2 "fifo.json: cannot read the report: a pipe" -- gate --baseline "$work/fifo.json" \
  "$testdata/gate/fixed.report.json"
expect 2 "/dev/zero: cannot read the text trace: a device, not a regular file" -- \
  trace from-text /dev/zero -o "$work/zero.mftrace"
expect 2 "/dev/urandom: cannot read the findings file: a device" -- \
  analyze "$trace" --findings /dev/urandom
expect 2 "/dev/zero: cannot read the trace: a device" -- analyze /dev/zero
truncate -s 1025M "$work/huge.txt"
expect 2 "huge.txt: the text trace is too large: 1074790400 bytes, more than the 1073741824" -- \
  trace from-text "$work/huge.txt" -o "$work/huge.mftrace"
expect 2 "huge.txt: the text trace is too large" -- analyze "$work/huge.txt"
truncate -s 4097M "$work/huge.json"
expect 2 "huge.json: the findings file is too large: .* more than the 4294967296 bytes" -- \
  analyze "$trace" --findings "$work/huge.json"
for output in from-fifo.mftrace zero.mftrace huge.mftrace fifo-export.json f.html; do
  [ -e "$work/$output" ] && fail "a refused command left $output"
done

# 12. Byte sums past 2^64: 40 allocations of 2^60 bytes. The report says so, and so does the table;
# the page and the gate refuse the run rather than show or compare wrong sizes.
{
  for i in $(seq 1 40); do
    printf 'alloc t=%d kind=device dev=0 addr=0x%x size=1152921504606846976\n' "$i" "$((i << 40))"
  done
  echo "trailer records=40 end=100"
} >"$work/overflow.txt"
run analyze "$work/overflow.txt" -o "$work/overflow.json"
got=$?
[ "$got" -eq 0 ] || { fail "analyze overflow.txt -> exit $got"; cat "$work/err"; }
grep -q "^warning: the sizes in this trace add up past 2^64 bytes" "$work/out" ||
  fail "the table of overflow.txt has no overflow warning"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["runs"][0].get("overflow") is True else 1)' \
  "$work/overflow.json" || fail "overflow.json has no \"overflow\": true"
expect 2 "overflow.json: runs\[0\].overflow: the trace's byte sums passed 2\^64 - 1 and wrapped" -- \
  report "$work/overflow.json" -o "$work/overflow.html"
expect 2 "current report: .*overflow.json: runs\[0\].overflow: the trace's byte sums passed" -- \
  gate --baseline "$testdata/gate/fixed.report.json" "$work/overflow.json"
run analyze "$trace" -o "$work/plain.json" --no-table
grep -q '"overflow"' "$work/plain.json" && fail "a report without overflow carries the field"

# 13. Messages that say what is wrong.
mkdir -p "$work/dir.mftrace"
expect 2 "dir.mftrace: cannot read the trace: a directory, not a regular file" -- \
  trace to-text "$work/dir.mftrace"
expect 2 "dir.mftrace: cannot read the text trace: a directory" -- \
  trace from-text "$work/dir.mftrace" -o "$work/from-dir.mftrace"
expect 2 "dir.mftrace: cannot read the findings file: a directory" -- \
  analyze "$trace" --findings "$work/dir.mftrace"
expect 2 "dir.mftrace: cannot read the report: a directory" -- \
  report "$work/dir.mftrace" -o "$work/dir.html"
mkdir -p "$work/traces"
cp "$trace" "$work/traces/a.mftrace"
ln -s "$work/gone.mftrace" "$work/traces/b.mftrace"
expect 2 "traces/b.mftrace: a dangling symbolic link \(to '$work/gone.mftrace', which does not exist\)" -- \
  analyze "$work/traces"
python3 -c 'print("string 1 \"" + "a" * (1 << 20) + "\"")' >"$work/long-string.txt"
printf 'alloc t=1 kind=device dev=0 addr=0x1000 size=16\n' | cat - "$work/long-string.txt" \
  >"$work/long-string2.txt"
expect 2 "long-string2.txt:2: the record does not fit in a trace chunk of 1048576 bytes" -- \
  analyze "$work/long-string2.txt"
expect 2 "long-string.txt:1: the record does not fit" -- \
  trace from-text "$work/long-string.txt" -o "$work/long.mftrace"
printf '{"schema": "memfloor.report/2"}\n' >"$work/fields.json"
expect 2 "fields.json: runs: missing" -- report "$work/fields.json" -o "$work/fields.html"
expect 2 "baseline report: .*fields.json: runs: missing" -- \
  gate --baseline "$work/fields.json" "$testdata/gate/fixed.report.json"
for output in from-dir.mftrace dir.html long.mftrace fields.html; do
  [ -e "$work/$output" ] && fail "a refused command left $output"
done

# has FILE TEXT WHAT: FILE holds the line TEXT (a fixed string).
has() {
  if grep -qF -- "$2" "$1"; then echo "ok: $3"; else fail "$3: no '$2' in $(cat "$1")"; fi
}

# 14. Step 0 is a step (it was also "no step open", and a second begin crashed every command).
printf '%s\n' 'alloc t=1 kind=device dev=0 addr=0x1000 size=4096 thread=1' \
  'step begin t=10 step=0 thread=1' 'step end t=20 step=0 thread=1 optimizers=1' \
  'step begin t=30 step=0 thread=1' 'trailer records=4 end=40' >"$work/step0.txt"
run analyze "$work/step0.txt"
has "$work/out" "iterations: 2 from optimizer steps" "analyze step0.txt"
expect_exit 0 -- export --perfetto "$work/step0.txt" -o "$work/step0.perfetto.json"
expect_exit 0 -- export --format memory-viz "$work/step0.txt" -o "$work/step0.pickle"

# 15. A device number is a list's length in PyTorch's snapshot: past 1023 it is refused, named.
printf 'alloc t=1 kind=device dev=4294967295 addr=0x1000 size=4096\n' >"$work/device.txt"
expect 2 "device.txt: device 4294967295: a PyTorch memory snapshot names devices 0 to 1023" -- \
  export --format memory-viz "$work/device.txt" -o "$work/device.pickle"
[ -e "$work/device.pickle" ] && fail "a refused export left device.pickle"

# 16. The analysis' own limits name the trace; to-text reads a snapshot as analyze does.
for i in $(seq 0 600); do printf 'alloc t=%d kind=device dev=%d addr=0x1000 size=16\n' "$i" "$i"; done \
  >"$work/devices.txt"
expect 2 "devices.txt: the trace uses more than 512 \(device, memory kind\) pairs" -- \
  analyze "$work/devices.txt"
{
  echo 'frame 1 module=0 offset=0x10'
  printf 'stack 1 frames=1'; for _ in $(seq 1 5000); do printf ',1'; done; echo
  echo 'alloc t=1 kind=device dev=0 addr=0x1000 size=16 stack=1'
} >"$work/deep.txt"
expect 2 "deep.txt: stack 1: 5001 frames, more than the 4096 a trace's stack may hold" -- \
  analyze "$work/deep.txt"
run trace to-text "$testdata/snapshots/loop_snapshot.pickle"
has "$work/out" "cmd=" "trace to-text of a snapshot"

# 17. An iteration domain that no matching range is in says where they are.
printf '%s\n' 'string 1 "train"' 'string 2 "iteration 0"' 'string 3 "iteration 1"' \
  'alloc t=1 kind=device dev=0 addr=0x1000 size=16' \
  'marker push t=10 thread=1 name=2 domain=1' 'marker pop t=20 thread=1 domain=1' \
  'marker push t=30 thread=1 name=3 domain=1' 'marker pop t=40 thread=1 domain=1' >"$work/domain.txt"
run analyze "$work/domain.txt" --iteration-domain trian
has "$work/out" "warning: no range in the iteration domain (domain 'trian') matches the iteration pattern; 2 ranges that match it are in domain 'train'" \
  "analyze --iteration-domain with a typo"

finish "untrusted input checks"
