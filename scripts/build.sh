#!/usr/bin/env bash
# Configures and builds memfloor (Ninja). CI=true turns warnings into errors.
#   scripts/build.sh [CMAKE_ARGS...]          everything, into build/
#   scripts/build.sh --demo [CMAKE_ARGS...]   what `memfloor demo` runs, into build-demo/: memfloor,
#                                             memfloor-check, and the reference model where a GPU
#                                             can run it. A unity build (each target's sources
#                                             compiled a few to a file): about a third of the CPU
#                                             time, for a tree nobody edits; build/ keeps one file
#                                             per source, for incremental builds and clang-tidy.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=false
if [ "${1:-}" = "--demo" ]; then
  demo=true
  shift
fi

dir=build
args=(-G Ninja -DCMAKE_CUDA_ARCHITECTURES=90)
if $demo; then
  dir=build-demo
  args+=(-DCMAKE_UNITY_BUILD=ON)
fi
[ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
[ "${CI:-}" = "true" ] && args+=(-DMEMFLOOR_WERROR=ON)
cmake -S . -B "$dir" "${args[@]}" "$@" >/dev/null
targets=()
if $demo; then
  wanted=(memfloor memfloor-check)
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    wanted+=(reference_model memfloor_hook)  # the demo records fresh traces where it can
  fi
  available=$(cmake --build "$dir" --target help)
  for t in "${wanted[@]}"; do
    grep -q "^$t: " <<<"$available" && targets+=(--target "$t")
  done
fi
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
