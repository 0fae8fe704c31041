#!/usr/bin/env bash
# Checker speed: memfloor-check against `clang-tidy-14 --checks=-*,bugprone-use-after-move` on the
# same translation units in the same run, both one unit at a time. The units are headers of a -dev
# package nobody here wrote (default: Clang/LLVM 14's own headers, from llvm-14-dev and
# libclang-14-dev), each compiled as a C++17 translation unit.
#
#   bench/checker_speed.sh BUILD_DIR [MAX_UNITS] [HEADER_DIR...]
#
# Prints units, seconds per unit for both tools (wall, and CPU user+sys, which is what to compare on
# a shared machine), the ratio, findings and failed units.
set -euo pipefail
build=${1:?usage: checker_speed.sh BUILD_DIR [MAX_UNITS] [HEADER_DIR...]}
max=${2:-400}
shift $(( $# >= 2 ? 2 : 1 ))
dirs=("$@")
if ((${#dirs[@]} == 0)); then
  dirs=(/usr/lib/llvm-14/include/llvm/IR /usr/lib/llvm-14/include/clang/AST
        /usr/lib/llvm-14/include/clang/Lex /usr/lib/llvm-14/include/clang/Sema)
fi
checker=$build/checker/memfloor-check
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mapfile -t files < <(for d in "${dirs[@]}"; do ls "$d"/*.h; done | head -n "$max")
python3 - "$work/compile_commands.json" "${files[@]}" <<'PY'
import json, sys
out, files = sys.argv[1], sys.argv[2:]
inc = "/usr/lib/llvm-14/include"
json.dump([{"directory": "/tmp", "file": f,
            "arguments": ["clang++", "-x", "c++", "-std=c++17", "-I" + inc, "-fsyntax-only", f]}
           for f in files], open(out, "w"), indent=1)
PY
echo '{"heavy_type_patterns": ["[Tt]ensor", "[Ss]torage", "Buffer$", "Cache$"]}' > "$work/config.json"

start=$(date +%s.%N)
set +e
/usr/bin/time -f "%U %S" -o "$work/checker.cpu" "$checker" -p "$work" --config "$work/config.json" \
  --format json > "$work/findings.json" 2> "$work/checker.err"
status=$?
set -e
mid=$(date +%s.%N)
/usr/bin/time -f "%U %S" -o "$work/tidy.cpu" clang-tidy-14 -p "$work" \
  --checks='-*,bugprone-use-after-move' --quiet "${files[@]}" > "$work/tidy.out" 2>&1 || true
end=$(date +%s.%N)

python3 - "$work/findings.json" "$start" "$mid" "$end" "${#files[@]}" "$status" \
  "$work/checker.cpu" "$work/tidy.cpu" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
start, mid, end, units, status = map(float, sys.argv[2:7])
cpu = [sum(map(float, open(f).read().split()[-2:])) / units for f in sys.argv[7:9]]
ours, tidy = (mid - start) / units, (end - mid) / units
rules = collections.Counter(f["rule"] for f in doc["findings"])
print(f"units: {int(units)}  memfloor-check exit {int(status)}")
print(f"wall: memfloor-check {ours:.3f} s/unit, clang-tidy-14 use-after-move {tidy:.3f} s/unit, "
      f"ratio {ours / tidy:.2f}")
print(f"cpu:  memfloor-check {cpu[0]:.3f} s/unit, clang-tidy-14 use-after-move {cpu[1]:.3f} s/unit, "
      f"ratio {cpu[0] / cpu[1]:.2f}")
print(f"findings: {len(doc['findings'])} {dict(rules)}  failed units: {len(doc['errors'])}")
for f in doc["findings"][:40]:
    loc = f["location"]
    print(f"  {f['rule']} {loc['file']}:{loc['line']}: {f['message'][:150]}")
for e in doc["errors"][:5]:
    print("  error:", e[:200])
PY
