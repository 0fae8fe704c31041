#!/usr/bin/env bash
# `memfloor report`: exit 0 and a page for a v2 report; exit 2 and a message naming the file for
# a missing file, a file that is not JSON, an older report schema, a report given as the gate.
#   report_command.sh MEMFLOOR TESTDATA_DIR OUT_DIR
set -uo pipefail
memfloor=$1 testdata=$2 out=$3
mkdir -p "$out"
fails=0 passes=0

expect() {  # expect CODE TEXT -- memfloor args...
  local code=$1 text=$2
  shift 3
  local stderr rc
  stderr=$("$memfloor" "$@" 2>&1 >/dev/null)
  rc=$?
  if [ "$rc" -ne "$code" ] || [[ "$stderr" != *"$text"* ]]; then
    echo "FAIL: memfloor $*: exit $rc (want $code), stderr: $stderr (want: $text)"
    fails=$((fails + 1))
  else
    passes=$((passes + 1))
  fi
}

report=$testdata/reports/two_runs.report.json
gate=$testdata/reports/two_runs.gate.json
printf '{"schema": ' >"$out/not_json.json"
printf '{"schema": "memfloor.report/1", "runs": []}' >"$out/v1.json"
rm -f "$out/page.html"

expect 0 "" -- report "$report" --gate "$gate" -o "$out/page.html"
[ -s "$out/page.html" ] && passes=$((passes + 1)) || { echo "FAIL: no page written"; fails=$((fails + 1)); }
expect 2 "$out/missing.json: cannot open" -- report "$out/missing.json" -o "$out/x.html"
expect 2 "$out/not_json.json: not JSON" -- report "$out/not_json.json" -o "$out/x.html"
expect 2 "memfloor.report/1" -- report "$out/v1.json" -o "$out/x.html"
expect 2 "expected \"memfloor.gate/1\"" -- report "$report" --gate "$report" -o "$out/x.html"
expect 2 "$out/no-such-dir/x.html: cannot write" -- report "$report" -o "$out/no-such-dir/x.html"
expect 2 "--output is required" -- report "$report"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
