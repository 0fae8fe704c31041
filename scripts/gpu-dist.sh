#!/usr/bin/env bash
# Copies what scripts/gpu-check.sh, gpu-torch.sh and gpu-bench.sh run into a small folder
# (stripped binaries, no object files) that the device tool can carry:
# scripts/gpu-dist.sh [BUILD] -> BUILD/dist (default build-hook). Where BUILD has the reference
# model (MEMFLOOR_BUILD_REFERENCE_MODEL), its binary goes in too, for bench/model_step.sh.
set -eu
BUILD=${1:-build-hook}
targets=(memfloor memfloor_hook memfloor_runtime_hook_tests memfloor_alloc_paths memfloor_trace_probe
         memfloor_hook_bench memfloor_min_consumer memfloor_lifecycle memfloor_companion
         memfloor_frames_probe)
model=""
if cmake --build "$BUILD" --target help 2>/dev/null | grep '^reference_model: ' >/dev/null; then
  targets+=(reference_model)
  model="$BUILD/reference_model/reference_model"
fi
cmake --build "$BUILD" -j2 --target "${targets[@]}"
DIST="$BUILD/dist"
rm -rf "$DIST"
mkdir -p "$DIST"
cp "$BUILD/cli/memfloor" "$BUILD/runtime_hook/libmemfloor_hook.so" \
   "$BUILD/tests/runtime_hook/memfloor_runtime_hook_tests" \
   "$BUILD/tests/runtime_hook/gpu/memfloor_alloc_paths" \
   "$BUILD/tests/runtime_hook/gpu/memfloor_trace_probe" \
   "$BUILD/tests/runtime_hook/gpu/memfloor_lifecycle" \
   "$(find "$BUILD" -name memfloor_hook_bench -type f | head -1)" \
   "$(find "$BUILD" -name libmemfloor_min_consumer.so -type f | head -1)" \
   "$BUILD/tests/python/libmemfloor_frames_probe.so" ${model:+"$model"} "$DIST/"
strip --strip-debug "$DIST"/*
cp -r "$BUILD/companion" "$DIST/companion"  # the companion: memfloor finds it next to itself
du -sh "$DIST"
