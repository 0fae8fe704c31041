#!/usr/bin/env bash
# Style checks: clang-format on every C++ file (fails on a difference), clang-tidy on the C++ files
# changed by the last commit (reports only; needs build/compile_commands.json).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
clang-format --dry-run --Werror "${files[@]}"
echo "lint: clang-format clean on ${#files[@]} files"

if [ -f build/compile_commands.json ] && git rev-parse -q --verify HEAD~1 >/dev/null; then
  mapfile -t changed < <(git diff --name-only --diff-filter=AM HEAD~1 -- '*.cpp' |
                         grep -v -e '^reference_model/' -e '^fuzz/' || true)
  if ((${#changed[@]})); then
    clang-tidy -p build --quiet "${changed[@]}" 2>/dev/null | grep -E 'warning:|error:' || true
    echo "lint: clang-tidy looked at ${#changed[@]} changed files (report only)"
  fi
fi
