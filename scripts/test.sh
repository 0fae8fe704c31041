#!/usr/bin/env bash
# Runs every test of build/ (GPU tests skip themselves, visibly, where no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/../build"
ctest --output-on-failure -j "$(nproc)" "$@"
