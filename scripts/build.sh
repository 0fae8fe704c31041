#!/usr/bin/env bash
# Configures and builds memfloor into build/ (Ninja). CI=true turns warnings into errors.
set -euo pipefail
cd "$(dirname "$0")/.."

args=(-G Ninja -DCMAKE_CUDA_ARCHITECTURES=90)
[ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
[ "${CI:-}" = "true" ] && args+=(-DMEMFLOOR_WERROR=ON)
cmake -S . -B build "${args[@]}" "$@" >/dev/null
cmake --build build -j "$(nproc)"
