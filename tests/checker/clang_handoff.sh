#!/usr/bin/env bash
# memfloor-check links no LLVM: it runs Python sources and facts documents itself, with the same
# output, files and exit code as memfloor-check-clang gives for the same command line, and hands
# every other command line to memfloor-check-clang (beside it) unchanged.
#
#   clang_handoff.sh MEMFLOOR_CHECK MEMFLOOR_CHECK_CLANG TESTDATA
set -u
check=$(realpath "$1")
clang=$(realpath "$2")
testdata=$(realpath "$3")
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/../cli/expect.sh"

if readelf -d "$check" | grep -E 'NEEDED.*lib(LLVM|clang)'; then
  fail "memfloor-check links LLVM or Clang"
else
  echo "ok: memfloor-check needs no LLVM or Clang library"
fi

# A copy: nothing here may write into the sources.
cp -r "$testdata/checker/python" "$work/py"
py=$work/py
# same ARGS...: both binaries give the same stdout, stderr and exit code ("@F" in ARGS names a
# file each writes, compared too). memfloor-check-clang runs under memfloor-check's name, as
# memfloor-check executes it: LLVM's messages name the program.
same() {
  local b
  for b in check clang; do
    local args=("${@//@F/$work/$b.file}")
    rm -f "$work/$b.file"
    (exec -a "$check" "${!b}" "${args[@]}") >"$work/$b.out" 2>"$work/$b.err"
    echo $? >"$work/$b.code"
  done
  local code
  code=$(cat "$work/check.code")
  if ! cmp -s "$work/check.out" "$work/clang.out" || ! cmp -s "$work/check.err" "$work/clang.err" ||
    [ "$code" != "$(cat "$work/clang.code")" ] ||
    { [ -e "$work/clang.file" ] && ! cmp -s "$work/check.file" "$work/clang.file"; }; then
    fail "memfloor-check $* -> $code, memfloor-check-clang -> $(cat "$work/clang.code"):"
    diff "$work/check.out" "$work/clang.out" | head -10
    diff "$work/check.err" "$work/clang.err" | head -10
  else
    echo "ok: memfloor-check $* -> $code as memfloor-check-clang ($(wc -l <"$work/check.out") lines)"
  fi
}

cd "$work" || exit 2  # no .memfloor-check.json above: the defaults
# Served without Clang.
same "$py"
same --format json --root "$py" "$py/mf001_handles.py" "$py/mf004_use_after_release.py"
same -format=sarif -j 2 --root="$py" "$py"
same --exclude 'seed_*' --exclude=cross_module "$py"
same --emit-facts @F "$py/mf001_class_hierarchy.py"
cp "$work/check.file" "$work/facts.json"
same --facts "$work/facts.json" --format json
same --format bogus "$py"
same --config "$work/no-such-config.json" "$py"
same --python "$work/no-such-python" "$py"
same --baseline "$work/no-such-baseline.json" "$py"
# Handed over: what LLVM's parser reads, or refuses, in its own way.
same --version
same -j 010 "$py"
same --format json --format text "$py"
same --fix=true "$py/no-such-dir"
same --no-such-option "$py"
same "$py" --format
same --format json --root "$testdata/checker" "$testdata/checker/mf002_retained_member.cpp" \
  -- -std=c++17
grep -q '"MF002"' "$work/check.out" || fail "no MF002 finding on C++ through memfloor-check"
same "$testdata/checker/no_such_file.cpp" -- -std=c++17

# Alone, without memfloor-check-clang beside it: what memfloor-check serves itself still runs
# (findings: 1), what it hands over is one line naming where it looked, and exit code 2.
mkdir -p "$work/alone"
cp "$check" "$work/alone/memfloor-check"
cp -r "$(dirname "$check")/python" "$work/alone/python"  # the front end, as in the build tree
alone() {
  local want=$1
  shift
  "$work/alone/memfloor-check" "$@" >"$work/alone.out" 2>"$work/alone.err"
  local code=$?
  if [ "$code" -ne "$want" ] || { [ "$want" -eq 2 ] && { [ -s "$work/alone.out" ] ||
    [ "$(wc -l <"$work/alone.err")" -ne 1 ] ||
    ! grep -q "need memfloor-check-clang, not found at '$work/alone/memfloor-check-clang'" \
      "$work/alone.err"; }; }; then
    fail "memfloor-check alone $* -> $code (want $want): $(cat "$work/alone.err")"
  else
    echo "ok: memfloor-check alone $* -> $code: $(tail -n 1 "$work/alone.err")"
  fi
}
alone 1 --facts "$work/facts.json"
alone 1 -j 2 --format=json --exclude 'seed_*' "$py"
alone 2 -j 010 "$py"
alone 2 --help
alone 2 "$testdata/checker/mf002_retained_member.cpp" -- -std=c++17
finish clang_handoff
