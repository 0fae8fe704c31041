#!/usr/bin/env bash
# Copies stripped reference_model binaries into build-model/dist (small enough to carry to the GPU machine).
set -euo pipefail
BUILD=${1:-build-model}
mkdir -p "$BUILD/dist"
for f in reference_model/reference_model tests/reference_model/reference_model_tests; do
  strip -o "$BUILD/dist/$(basename "$f")" "$BUILD/$f"
done
ls -la "$BUILD/dist"
