#!/usr/bin/env bash
# The wheel on the GPU machine, as a PyTorch user installs it (a summary last):
#   1. a venv that sees the machine's torch (--system-site-packages), the wheel installed into it
#      from the file alone (pip --no-index);
#   2. without libcupti on LD_LIBRARY_PATH: what `memfloor run` says;
#   3. `memfloor run -- python3 tests/gpu/pytorch/planted.py --case attr` from the venv (trace
#      written), `memfloor analyze` on it (report produced), the report against the program's log
#      (tests/gpu/pytorch/check_report.py), and the version in the trace and the report.
# usage: scripts/gpu-wheel.sh WHEEL   (build it with scripts/build-wheel.sh: build-wheel/dist/);
#        results (summary.txt, the table, report, trace and logs) go to $OUT, else ./gpu-wheel-out
set -u
wheel=$(realpath "$1")
FINAL=${OUT:-$PWD/gpu-wheel-out}
mkdir -p "$FINAL"
WORK=$(mktemp -d /tmp/memfloor-gpu-wheel.XXXXXX)
SUMMARY="$FINAL/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
cuda_libs=/usr/local/cuda-13.0/targets/x86_64-linux/lib:/usr/local/cuda/lib64
planted=$(realpath tests/gpu/pytorch/planted.py)
check=$(realpath tests/gpu/pytorch/check_report.py)

echo "== 1. venv and wheel ($(basename "$wheel"))"
venv="$WORK/venv"
# A python3 without ensurepip gets a venv without pip and installs with the system's pip.
if python3 -m venv --system-site-packages "$venv" >"$FINAL/venv.log" 2>&1 &&
  [ -x "$venv/bin/pip" ]; then
  pip=("$venv/bin/pip")
else
  rm -rf "$venv"
  python3 -m venv --system-site-packages --without-pip "$venv" >>"$FINAL/venv.log" 2>&1
  pip=("$venv/bin/python3" -m pip)
fi
"${pip[@]}" install --no-index --no-deps "$wheel" >"$FINAL/pip.log" 2>&1
say "pip install --no-index: exit $? ($(tail -n 1 "$FINAL/pip.log"))"
# --system-site-packages sees the base interpreter's packages only; where the machine's python3 is
# itself a venv (its torch in that venv), the new venv sees that one's through a .pth file, as
# `pip install` into a layered environment would.
if ! "$venv/bin/python3" -c 'import torch' 2>/dev/null; then
  parent=$(python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
  site=$("$venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  if [ -n "$parent" ]; then
    echo "$parent" >"$site/machine-torch.pth"
    say "python3 is $(python3 -c 'import sys; print(sys.prefix, "(a venv over", sys.base_prefix + ")" if sys.prefix != sys.base_prefix else "")'): its torch ($parent) linked into the venv"
  fi
fi
M="$venv/bin/memfloor"
say "memfloor --version: $("$M" --version 2>&1); python -m memfloor --version: $("$venv/bin/python3" -m memfloor --version 2>&1)"
say "torch in the venv: $("$venv/bin/python3" -c 'import torch; print(torch.__version__, torch.cuda.is_available())' 2>&1 | tail -n 1)"

echo "== 2. without libcupti on LD_LIBRARY_PATH"
(cd "$WORK" && env LD_LIBRARY_PATH= "$M" run -o no-cupti -- "$venv/bin/python3" -c 'pass') \
  >"$FINAL/no-cupti.log" 2>&1
say "without libcupti: $(grep -m1 'warning' "$FINAL/no-cupti.log" || echo 'no warning (libcupti found through ld.so.conf)')"

echo "== 3. memfloor run from the venv"
export LD_LIBRARY_PATH=$cuda_libs:${LD_LIBRARY_PATH:-}
cd "$WORK" || exit 1
"$M" run -o traces -- "$venv/bin/python3" "$planted" --case attr --log attr.json >run.log 2>&1
rc=$?
cp run.log attr.json "$FINAL/" 2>/dev/null
trace=$(find traces -name "*.mftrace" 2>/dev/null | sort | head -1)
say "memfloor run: exit $rc, trace: ${trace:-none} ($(stat -c %s "$trace" 2>/dev/null || echo 0) bytes)"
"$M" analyze traces -o report.json >table.txt 2>&1
say "memfloor analyze: exit $?"
cp table.txt report.json "$FINAL/" 2>/dev/null
[ -n "$trace" ] && cp "$trace" "$FINAL/attr.mftrace"
head -n 30 table.txt
if [ -f report.json ]; then
  "$venv/bin/python3" "$check" report.json attr.json | tee -a "$SUMMARY"
  say "versions: $("$venv/bin/python3" -c 'import json, sys
r = json.load(open(sys.argv[1]))
props = r["runs"][0]["process"]["properties"]
print("report tool.version", r["tool"]["version"], "trace hook.memfloor_version",
      props.get("hook.memfloor_version", "absent"))' report.json)"
fi
echo
echo "== summary"
cat "$SUMMARY"
