#!/usr/bin/env bash
# The memfloor binary on bad input: one line on stderr naming the problem, exit code 2.
set -u
memfloor=$1
testdata=$2
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/expect.sh"

: >"$work/empty.mftrace"
printf 'hello, not a trace\n' >"$work/text.mftrace"
printf 'MFTRACE\0\x02\x00\x00\x00\x00\x00\x00\x00' >"$work/newer.mftrace"

expect 2 "missing.mftrace.*(No such file|does not exist)" -- analyze "$work/missing.mftrace"
expect 2 "empty.mftrace.*empty" -- analyze "$work/empty.mftrace"
expect 2 "text.mftrace.*not a memfloor trace" -- analyze "$work/text.mftrace"
expect 2 "newer.mftrace.*major version 2" -- analyze "$work/newer.mftrace"
printf 'alloc t=oops\n' >"$work/bad.txt"
expect 2 "bad.txt:1:" -- analyze "$work/bad.txt"
expect 2 "unknown command 'no-such-command' \\(commands: analyze, .*see memfloor --help\\)" -- no-such-command
expect 2 "^memfloor: error: unknown command 'analyse'; did you mean 'analyze'\\?$" -- analyse x
expect 2 "^memfloor: error: unknown command 'anlyze'; did you mean 'analyze'\\?$" -- anlyze x
expect 2 "unknown command 'trace to-txt'; did you mean 'trace to-text'\\?" -- trace to-txt x
# A pickle is code: one that names os.system is refused before anything in it runs.
python3 - "$work/evil.pickle" "$work/ran" <<'PY'
import os, pickle, sys
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + sys.argv[2],))
with open(sys.argv[1], "wb") as f:
    pickle.dump({"segments": [], "device_traces": [[Evil()]]}, f)
PY
expect 2 "evil.pickle: offset [0-9]+: the pickle names the global '(posix|os) system'" -- \
  analyze "$work/evil.pickle"
[ -e "$work/ran" ] && fail "a refused pickle ran its code"
# A memory-viz snapshot is one process's, and a pickle: not several traces, not standard output.
t=$testdata/analysis/caching_allocator.txt
expect 2 "format.*required" -- export "$t" -o "$work/x.pickle"
expect 2 "one trace \(got 2\)" -- export --format memory-viz "$t" "$t" -o "$work/x.pickle"
expect 2 "give -o a file" -- export --format memory-viz "$t" -o -
expect 2 "perfetto.*excludes|excludes.*perfetto" -- export --perfetto --format memory-viz "$t" -o "$work/x"
[ -e "$work/x.pickle" ] && fail "a refused export wrote its output"
expect 2 "loop_snapshot.log.json: neither 'segments' nor 'device_traces'" -- \
  analyze "$testdata/snapshots/loop_snapshot.log.json"
# memfloor's own documents where a trace belongs: named, with the command that reads them.
expect 2 "held_by.report.json: a memfloor report \\(memfloor.report/2\\), not a trace.*\`memfloor report " -- \
  analyze "$testdata/reports/held_by.report.json"
expect 2 "ranges.findings.json: memfloor-check findings .*--findings" -- \
  analyze "$testdata/snapshots/loop_snapshot.pickle" "$testdata/reports/ranges.findings.json"
# A gate of one program's report against another's: compared as ever (exit 1 here), and warned of.
expect 1 "warning: gate: different programs: the baseline .*fixed.report.json ran 'reference_model', the current .*held_by.report.json ran 'train.py'" -- \
  gate --baseline "$testdata/gate/fixed.report.json" "$testdata/reports/held_by.report.json"
expect_exit 1 -- gate --baseline "$testdata/gate/fixed.report.json" "$testdata/gate/hc-bug.report.json"
mkdir "$work/no-traces"
expect 2 "no-traces: no trace \\(.mftrace\\) and no PyTorch memory snapshot" -- analyze "$work/no-traces"
expect 2 "missing.mftrace.*(No such file|does not exist)" -- export --perfetto "$work/missing.mftrace" -o "$work/out.json"
expect 2 "--format is required" -- export "$work/empty.mftrace" -o "$work/out.json"
expect 2 "--site-include: an empty pattern" -- analyze "$testdata/demo/retention.mftrace" --site-include ''
expect 2 "--site-exclude: an empty pattern" -- export --perfetto "$testdata/demo/retention.mftrace" -o "$work/out.json" --site-exclude ''
expect 2 "--prefix-map.*'/work': expected OLD=NEW" -- trace symbolize "$work/empty.mftrace" -o "$work/sym.mftrace" --prefix-map /work
expect 2 "--prefix-map.*OLD .*is empty" -- trace symbolize "$work/empty.mftrace" -o "$work/sym.mftrace" --prefix-map =/opt
expect 2 "--census must be auto, every, off or optimizer steps such as 2,10 .*not '3,x'" -- run --census 3,x -- true
expect 2 "--census must be .*not '0'" -- run --census 0 -- true
[ -e "$work/sym.mftrace" ] && fail "a refused trace symbolize left its output"
# Without llvm-symbolizer on PATH, --no-resolve still copies a trace and rewrites its paths.
if PATH=/nonexistent "$memfloor" trace symbolize "$testdata/model/fixed.mftrace" -o "$work/sym.mftrace" \
    --no-resolve --prefix-map /opt/none= >"$work/out" 2>"$work/err" && [ ! -s "$work/err" ]; then
  echo "ok: trace symbolize --no-resolve without llvm-symbolizer: $(head -1 "$work/out")"
else
  fail "trace symbolize --no-resolve without llvm-symbolizer: $(cat "$work/err")"
fi

# Untrusted traces and documents: a marker name that recursed per character in a backtracking
# regex engine, patterns it could not take, JSON nested past the limit.
long_name=$(python3 -c 'print("iteration" + "_" * 50000 + "1")')
sed "s/name=\"iteration 1\"/name=\"$long_name\"/" "$testdata/analysis/census_holders.txt" >"$work/long-marker.txt"
grep -q "iteration_____" "$work/long-marker.txt" || fail "no long marker name"
expect_exit 0 -- analyze "$work/long-marker.txt" -o "$work/long-marker.json"
expect_exit 0 -- analyze "$work/long-marker.txt" --iteration-pattern 'iteration.*' -o "$work/long2.json"
expect 2 "invalid iteration pattern .*invalid escape sequence" -- analyze "$work/long-marker.txt" --iteration-pattern '(a)\1'
python3 -c 'print("[" * 100000)' >"$work/deep.json"
expect 2 "deep.json: not a memfloor document: nested deeper than 128 levels" -- report "$work/deep.json" -o "$work/deep.html"

# Messages quote what they read with its control bytes escaped, and whole past a NUL byte.
printf 'bogus\033[2J x=1\n' >"$work/escape.txt"
expect 2 "escape.txt:1: unknown record type 'bogus\\\\x1b\\[2J'" -- analyze "$work/escape.txt"
grep -q $'\033' "$work/err" && fail "an escape sequence reached the terminal: $(cat -v "$work/err")"
printf 'bo\000gus x=1\n' >"$work/nul.txt"
expect 2 "nul.txt:1: unknown record type 'bo\\\\x00gus'" -- analyze "$work/nul.txt"
mkdir "$work/named"
printf 'not a trace at all\n' >"$work/named/"$'\033]0;title\007'".mftrace"
expect 2 "named/\\\\x1b\\]0;title\\\\x07.mftrace: not a memfloor trace" -- analyze "$work/named"

# A trace whose chunks all verify but one was dropped or written twice: the trailer's count says
# so, as a warning (the table and the report say it too), and under --strict as an error.
python3 - "$testdata/demo/retention.mftrace" "$work" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
header, spans, offset = data[:16], [], 16
while offset < len(data):  # chunk header: checksum u64, body length u32, ... (32 bytes)
    body = struct.unpack_from("<I", data, offset + 8)[0]
    spans.append(data[offset:offset + 32 + body])
    offset += 32 + body
assert len(spans) >= 3, len(spans)
open(sys.argv[2] + "/dropped.mftrace", "wb").write(header + b"".join(spans[:1] + spans[2:]))
open(sys.argv[2] + "/twice.mftrace", "wb").write(header + b"".join(spans[:2] + spans[1:]))
PY
"$memfloor" analyze "$work/dropped.mftrace" -o "$work/dropped.json" >"$work/out" 2>"$work/err"
code=$?
if [ "$code" -eq 0 ] && grep -q "warning: .*dropped.mftrace: incomplete: the trailer counts [0-9]* records, [0-9]* were read (chunks are missing)" "$work/err" &&
  grep -q "incomplete: the trailer counts" "$work/out" && grep -q '"complete": false' "$work/dropped.json"; then
  echo "ok: a dropped chunk is said: $(cat "$work/err")"
else
  fail "a dropped chunk -> $code: $(cat "$work/err")"
fi
expect 2 "twice.mftrace: incomplete: the trailer counts [0-9]* records, [0-9]* were read \(chunks are repeated or added\) \(--strict\)" -- \
  analyze "$work/twice.mftrace" --strict -o "$work/twice.json"
[ -e "$work/twice.json" ] && fail "analyze --strict wrote a report of an incomplete trace"
expect_exit 0 -- analyze "$testdata/model/fixed.mftrace" --strict -o "$work/fixed-strict.json"

# gate: 0 pass, 1 regression, 2 when the baseline or current is unusable (never a silent pass).
# Nothing to compare is no pass: a report without runs, or of a trace with no complete iteration.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["runs"]=[]; json.dump(d, open(sys.argv[2], "w"))' \
  "$testdata/gate/fixed.report.json" "$work/no-runs.json"
{ grep -E "^(process|device)" "$testdata/analysis/census_holders.txt"; echo "trailer records=5 end=0"; } >"$work/header-only.txt"  # 2 records, 3 strings
expect_exit 0 -- analyze "$work/header-only.txt" -o "$work/header-only.json"
expect 2 "current report: .*no-runs.json: nothing to compare: no run has a complete iteration" -- \
  gate --baseline "$testdata/gate/fixed.report.json" "$work/no-runs.json"
expect 2 "baseline report: .*no-runs.json: nothing to compare" -- \
  gate --baseline "$work/no-runs.json" "$testdata/gate/fixed.report.json"
expect 2 "current report: .*header-only.json: nothing to compare" -- \
  gate --baseline "$testdata/gate/fixed.report.json" "$work/header-only.json"
expect 2 "nothing to compare" -- gate --baseline "$work/new-baseline2.json" "$work/header-only.json" --update-baseline
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
# A mistyped size is an error, never a threshold wrapped around to 2^64 that lets a regression pass.
expect 2 "idle-floor-bytes: '-1' is not a size" -- gate --baseline "$fixed" "$bug" --idle-floor-bytes -1
expect 2 "is not a size.*too large" -- gate --baseline "$fixed" "$bug" --peak-bytes 18446744073709551616
expect 2 "is not a size.*too large" -- gate --baseline "$fixed" "$bug" --site-bytes 16EiB
expect 2 "is not a size" -- gate --baseline "$fixed" "$bug" --holder-bytes 1.5MiB
expect_exit 1 -- gate --baseline "$fixed" "$bug" --idle-floor-bytes 1KiB --allow-new-findings
expect 2 "baseline|required" -- gate "$bug"
expect_exit 0 -- gate --baseline "$work/new-baseline.json" "$bug" --update-baseline
cmp -s "$bug" "$work/new-baseline.json" || fail "gate --update-baseline did not copy $bug"
expect 2 "current report: .*corrupt.json" -- gate --baseline "$work/new-baseline.json" "$work/corrupt.json" --update-baseline
cmp -s "$bug" "$work/new-baseline.json" || fail "a bad current replaced the baseline"

finish "exit code checks"
