#!/usr/bin/env bash
# Builds the Python wheel from a build folder, with Debian's python3-wheel (`wheel pack`):
#   OUT/dist/memfloor-<version>-py3-none-manylinux_2_<N>_x86_64.whl
# It carries `cmake --install`'s `tool` component (memfloor, the hook, the Python companion,
# memfloor-check and its Python front end, the demo's data, the docs) under the package
# memfloor/prefix/, where the binary finds its parts, and runs it through `python -m memfloor` and
# the `memfloor` console script (packaging/wheel/). memfloor-check-clang, which memfloor-check
# hands C++ sources, is not in it: it links LLVM and Clang 14 (over 100 MiB of shared libraries
# that no manylinux system has); the Debian package carries it.
# The platform tag is the newest glibc symbol version the carried binaries use (objdump -T), and
# the build fails when they need a shared library outside the manylinux baseline other than
# CUDA's libcupti, which is the user's (docs/install.md).
# Usage: scripts/build-wheel.sh [BUILD_DIR] [OUT_DIR]   (default: build, build-wheel); prints the
# wheel's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-build-wheel}
python=${MEMFLOOR_WHEEL_PYTHON:-/usr/bin/python3}  # Debian's, with python3-wheel

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage/tree" "$out/dist"
cp -r packaging/wheel/memfloor "$stage/tree/memfloor"
find "$stage/tree" -name __pycache__ -prune -exec rm -rf {} +
cmake --install "$build" --prefix "$stage/tree/memfloor/prefix" --component tool --strip >/dev/null
version=$("$stage/tree/memfloor/prefix/bin/memfloor" --version)

# What the carried ELF files need from the system.
mapfile -t elves < <(find "$stage/tree" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
baseline='^(libc|libm|libdl|libpthread|librt|libgcc_s|ld-linux-x86-64)\.so\.[0-9]+$|^libcupti\.so\.[0-9]+$'
for elf in "${elves[@]}"; do
  while read -r needed; do
    if ! grep -Eq "$baseline" <<<"$needed"; then
      echo "build-wheel: $elf needs $needed, which is not in the manylinux baseline" >&2
      exit 1
    fi
  done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
if objdump -T "${elves[@]}" | grep 'GLIBCXX_\|CXXABI_' >/dev/null; then
  echo "build-wheel: a carried binary links the system's libstdc++" >&2
  exit 1
fi
glibc_minor=$(objdump -T "${elves[@]}" | grep -o 'GLIBC_2\.[0-9]*' | cut -d. -f2 | sort -n | tail -1)
tag="py3-none-manylinux_2_${glibc_minor}_x86_64"

dist_info="$stage/tree/memfloor-$version.dist-info"
mkdir -p "$dist_info"
cat >"$dist_info/METADATA" <<METADATA
Metadata-Version: 2.1
Name: memfloor
Version: $version
Summary: Finds GPU memory a training program keeps alive longer than it needs
Home-page: https://github.com/memfloor/memfloor
Requires-Python: >=3.8

memfloor records every GPU allocation of an unmodified CUDA or PyTorch program
(\`memfloor run -- python3 train.py\`), and reports the memory kept alive in the idle window
between iterations and what holds it (\`memfloor analyze\`, \`report\`, \`gate\`).
METADATA
cat >"$dist_info/WHEEL" <<WHEEL
Wheel-Version: 1.0
Generator: memfloor scripts/build-wheel.sh
Root-Is-Purelib: false
Tag: $tag
WHEEL
cat >"$dist_info/entry_points.txt" <<ENTRY
[console_scripts]
memfloor = memfloor.__main__:main
ENTRY

wheel="$out/dist/memfloor-$version-$tag.whl"
rm -f "$wheel"
"$python" -m wheel pack "$stage/tree" -d "$out/dist" >/dev/null
[ -f "$wheel" ] || { echo "build-wheel: wheel pack did not write $wheel" >&2; exit 1; }
echo "$wheel"
