#!/usr/bin/env bash
# memfloor export --format memory-viz / memory-viz-1.13 read by PyTorch's own tools: Python's
# pickle loads both forms, and torch.cuda._memory_viz of the installed PyTorch (Debian's 1.13 in
# CI) prints `stats` of the 1.13 form and folds its `segments` into flame graph lines. The lines
# are checked, not drawn: `segments` then hands them to flamegraph.pl, which it downloads.
set -u
memfloor=$1
testdata=$2
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$python" -c 'import torch.cuda._memory_viz' 2>/dev/null; then
  echo "SKIPPED: $python has no torch.cuda._memory_viz"
  exit 0
fi
trace=$testdata/analysis/census_holders.txt
"$memfloor" export --format memory-viz "$trace" -o "$work/dict.pickle" || exit 1
"$memfloor" export --format memory-viz-1.13 "$trace" -o "$work/list.pickle" || exit 1

# The dict form: what the viewer reads; classes as categories, holders in user_metadata, and
# every segment tiled by its blocks.
"$python" - "$work/dict.pickle" <<'PY' || exit 1
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
assert set(s) >= {"segments", "device_traces", "allocator_settings", "memfloor"}, list(s)
entries = s["device_traces"][0]
cats = {e.get("category") for e in entries if e["action"] == "alloc"}
assert cats == {"persistent", "inter_iteration", "leak", "iteration"}, cats
assert any(e.get("user_metadata") == "holder:model.layers[1].planted" for e in entries)
for seg in s["segments"]:
    assert sum(b["size"] for b in seg["blocks"]) == seg["total_size"], seg
print("dict form: %d entries, %d segments" % (len(entries), len(s["segments"])))
PY

# The 1.13 form through the installed _memory_viz: `stats` as its command line runs it.
out=$(cd "$work" && "$python" -m torch.cuda._memory_viz stats list.pickle) || {
  echo "FAIL: _memory_viz stats"; exit 1; }
echo "$out"
expected=$("$python" - "$work/dict.pickle" <<'PY'
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
print(sum(b["size"] for seg in s["segments"] for b in seg["blocks"] if b["state"] == "active_allocated"))
PY
)
echo "$out" | grep -q "'active_allocated': .*" || { echo "FAIL: no active_allocated in stats"; exit 1; }
# `segments`: the folded lines it would draw, their bytes summed per state.
"$python" - "$work/list.pickle" "$expected" <<'PY' || exit 1
import pickle, sys
import torch.cuda._memory_viz as viz
data = pickle.load(open(sys.argv[1], "rb"))
lines = viz.segments(data, format_flamegraph=lambda folded: folded)
allocated = sum(int(l.rsplit(" ", 1)[1]) for l in lines.splitlines() if ";active_allocated" in l)
assert allocated == int(sys.argv[2]), (allocated, sys.argv[2])
assert "model.py" in lines, lines[:400]
print("segments: %d folded lines, %d bytes allocated" % (len(lines.splitlines()), allocated))
PY
echo "ok"
