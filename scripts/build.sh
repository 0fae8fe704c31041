#!/usr/bin/env bash
# Configures and builds memfloor into build/ (Ninja). CI=true turns warnings into errors.
#   scripts/build.sh [CMAKE_ARGS...]          everything
#   scripts/build.sh --demo [CMAKE_ARGS...]   what `memfloor demo` runs: memfloor, memfloor-check,
#                                             and the reference model where a GPU can run it
set -euo pipefail
cd "$(dirname "$0")/.."
demo=false
if [ "${1:-}" = "--demo" ]; then
  demo=true
  shift
fi

args=(-G Ninja -DCMAKE_CUDA_ARCHITECTURES=90)
[ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
[ "${CI:-}" = "true" ] && args+=(-DMEMFLOOR_WERROR=ON)
cmake -S . -B build "${args[@]}" "$@" >/dev/null
targets=()
if $demo; then
  wanted=(memfloor memfloor-check)
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    wanted+=(reference_model memfloor_hook)  # the demo records fresh traces where it can
  fi
  available=$(cmake --build build --target help)
  for t in "${wanted[@]}"; do
    grep -q "^$t: " <<<"$available" && targets+=(--target "$t")
  done
fi
cmake --build build -j "$(nproc)" "${targets[@]}"
