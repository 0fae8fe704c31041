#!/usr/bin/env bash
# The three ways to install memfloor, checked from a build folder (CI runs it after the tests):
#   1. cmake --install into a scratch prefix: the installed binaries carry no RPATH and name no
#      path of the build folder or the sources, and from a private mount namespace in which the
#      build folder is an empty directory, the installed `memfloor demo` and
#      `memfloor run -- /bin/true` work;
#   2. cpack: the Debian package lists the layout and its dependencies, and installs, runs and is
#      removed without a trace in a dpkg root of its own;
#   3. the wheel (scripts/build-wheel.sh) installs into a fresh venv with no index, where
#      `python -m memfloor --version` and the console script run, `memfloor run` puts the
#      carried companion first on PYTHONPATH, and `memfloor check` checks Python sources.
# Usage: scripts/package-check.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build}" && pwd)
python=${MEMFLOOR_WHEEL_PYTHON:-/usr/bin/python3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "package-check: $*" >&2
  exit 1
}

# 1. cmake --install.
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
hook=()  # built where CUPTI is (MEMFLOOR_BUILD_HOOK)
[ -f "$build/runtime_hook/libmemfloor_hook.so" ] && hook=(lib/memfloor/libmemfloor_hook.so)
for part in bin/memfloor "${hook[@]}" share/memfloor/companion/sitecustomize.py \
  share/memfloor/demo/testdata/model/findings.json share/doc/memfloor/README.md; do
  [ -e "$prefix/$part" ] || fail "cmake --install left out $part"
done
mapfile -t elves < <(find "$prefix" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
for elf in "${elves[@]}"; do
  if readelf -d "$elf" | grep -E '\((RPATH|RUNPATH)\)' >/dev/null; then
    fail "${elf#"$prefix"/} has an RPATH: $(readelf -d "$elf" | grep -E 'RPATH|RUNPATH')"
  fi
  # The loaded sections only: debug information names the folders, and is never read.
  for section in .dynstr .rodata .data; do
    # grep reads to the end (no -q): a grep that stops at the first match fails readelf with
    # SIGPIPE, and under pipefail the match reads as none.
    if readelf -p "$section" "$elf" 2>/dev/null | grep -aF -e "$build" -e "$PWD/" >/dev/null; then
      fail "${elf#"$prefix"/} names the build folder or the sources in $section"
    fi
  done
done
# The build folder emptied for the installed binaries: nothing can come from it.
# Only PATH (and where libcupti is) comes from the environment. A user other than root mounts in
# a user namespace of its own.
namespace=(unshare --mount)
[ "$(id -u)" -eq 0 ] || namespace+=(--map-root-user)
"${namespace[@]}" sh -euc '
  mount -t tmpfs empty "$1"
  cd "$2"
  prefix=$3
  libs=${4:+LD_LIBRARY_PATH=$4}
  run() { env -i PATH=/usr/bin:/bin $libs "$prefix/bin/memfloor" "$@"; }
  run --version
  run demo --no-record -o demo >demo.txt
  run run -o traces -- /bin/true 2>run.txt
' sh "$build" "$scratch" "$prefix" "${LD_LIBRARY_PATH:-}" >"$scratch/version.txt" ||
  fail "the installed memfloor failed with the build folder hidden: $(cat "$scratch"/*.txt)"
version=$(cat "$scratch/version.txt")
grep -q '^3\. gate: fixed -> hc-bug REGRESSION (exit 1), fixed -> fixed pass (exit 0)$' \
  "$scratch/demo.txt" || fail "the installed demo did not gate as expected: $(cat "$scratch/demo.txt")"
grep -q '^4\. held by: ' "$scratch/demo.txt" || fail "the installed demo printed no holder"
if grep -q 'cannot find\|warning' "$scratch/run.txt"; then
  fail "the installed memfloor run: $(cat "$scratch/run.txt")"
fi
echo "package-check: cmake --install: memfloor $version runs the demo and run -- /bin/true from" \
  "the prefix with the build folder hidden; no RPATH, no path of the build or the sources"

# 2. The Debian package.
(cd "$build" && cpack -G DEB >"$scratch/cpack.log" 2>&1) || fail "cpack failed: $(cat "$scratch/cpack.log")"
deb="$build/memfloor_${version}_amd64.deb"
[ -f "$deb" ] || fail "cpack did not write $deb"
contents=$(dpkg-deb --contents "$deb")
for part in ./usr/bin/memfloor "${hook[@]/#/./usr/}" ./usr/share/memfloor/companion/sitecustomize.py \
  ./usr/share/memfloor/demo/ ./usr/share/doc/memfloor/; do
  grep -qF " $part" <<<"$contents" || fail "$deb has no $part"
done
# Installed and removed with dpkg into an empty root of its own (its Depends are the host's, not
# that root's): it runs from there, and removing it leaves no file.
root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg=(dpkg --root="$root" --force-script-chrootless --force-not-root)
"${dpkg[@]}" --force-depends -i "$deb" >"$scratch/dpkg.log" 2>&1 ||
  fail "dpkg -i $deb: $(cat "$scratch/dpkg.log")"
[ "$("$root/usr/bin/memfloor" --version)" = "$version" ] || fail "$deb: memfloor --version"
"${dpkg[@]}" -r memfloor >>"$scratch/dpkg.log" 2>&1 || fail "dpkg -r memfloor: $(cat "$scratch/dpkg.log")"
[ -z "$(find "$root/usr" -type f 2>/dev/null)" ] || fail "dpkg -r memfloor left files in /usr"
depends=$(dpkg-deb --field "$deb" Depends)
grep -q 'libc6' <<<"$depends" || fail "$deb declares no dependency on the C library: '$depends'"
if grep -qF ./usr/bin/memfloor-check-clang <<<"$contents"; then
  grep -q 'libclang-cpp14' <<<"$depends" ||
    fail "$deb carries memfloor-check-clang but not its Depends"
fi
echo "package-check: $(basename "$deb"): Depends: $depends"

# 3. The wheel, into a fresh venv, from the file alone.
wheel=$(scripts/build-wheel.sh "$build" "$scratch/wheel" | tail -1)
"$python" -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --no-index --no-deps "$wheel"
[ "$("$scratch/venv/bin/python" -m memfloor --version)" = "$version" ] ||
  fail "python -m memfloor --version is not $version"
[ "$("$scratch/venv/bin/memfloor" --version)" = "$version" ] ||
  fail "the memfloor console script's --version is not $version"
companion=$(cd "$scratch" && "$scratch/venv/bin/memfloor" run -q -o traces -- \
  "$scratch/venv/bin/python" -c 'import memfloor; print(memfloor.__file__)')
[[ "$companion" == */site-packages/memfloor/prefix/share/memfloor/companion/memfloor/__init__.py ]] ||
  fail "memfloor run from the wheel does not put the companion first on PYTHONPATH: $companion"
# memfloor check from the wheel: Python sources are checked (the front end on the venv's
# python3); C++ sources need memfloor-check-clang, which the wheel does not carry: one line, 2.
checked=""
if [ -f "$build/checker/memfloor-check" ]; then
  seed=$PWD/testdata/checker/python/seed_offload_manager.py
  code=0
  PATH="$scratch/venv/bin:$PATH" "$scratch/venv/bin/memfloor" check "$seed" \
    >"$scratch/check.out" 2>"$scratch/check.err" || code=$?
  [ "$code" -eq 1 ] && grep -q 'MF001' "$scratch/check.out" ||
    fail "memfloor check on Python from the wheel -> $code: $(cat "$scratch/check.err")"
  code=0
  "$scratch/venv/bin/memfloor" check "$PWD/testdata/checker/mf002_retained_member.cpp" \
    -- -std=c++17 >/dev/null 2>"$scratch/check.err" || code=$?
  [ "$code" -eq 2 ] && grep -q 'need memfloor-check-clang' "$scratch/check.err" ||
    fail "memfloor check on C++ from the wheel -> $code: $(cat "$scratch/check.err")"
  checked=", memfloor check on Python"
fi
echo "package-check: $(basename "$wheel"): python -m memfloor --version, run$checked in a fresh venv"
