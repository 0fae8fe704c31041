#!/usr/bin/env bash
# Installs the Debian packages memfloor builds with; fast and silent when they are all present.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  clang-14 llvm-14-dev libclang-14-dev libclang-cpp14-dev libclang-rt-14-dev  # checker, fuzzing
  libfmt-dev nlohmann-json3-dev libcli11-dev libxxhash-dev catch2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: note: no CUDA toolkit in /usr/local/cuda; the hook and the reference model are skipped"
fi
