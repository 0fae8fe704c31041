#!/usr/bin/env bash
# Runs the README's first command as it is written (set up, build into build-demo/, run the demo)
# and checks that the demo ends with the four lines the README shows. .ci/run calls it, so the
# command a newcomer types first is built and run on every change.
set -euo pipefail
cd "$(dirname "$0")/.."
readme=README.md
# The command: the line after "# 1." in the README's first code block.
command=$(awk '/^# 1\./ {getline; print; exit}' "$readme")
# The lines it ends with: the second code block, the one that follows "It ends with four lines".
expected=$(awk '/It ends with four lines:$/ {found=1; next} found && /^```/ {n++; next} found && n==1 {print}' \
  "$readme")
if [ -z "$command" ] || [ "$(wc -l <<<"$expected")" -ne 4 ]; then
  echo "readme-demo: error: $readme: no first command or no four demo lines found" >&2
  exit 2
fi
echo "readme-demo: $command"
rm -rf memfloor-demo
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
if ! bash -c "$command" >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "readme-demo: error: the README's first command failed" >&2
  exit 1
fi
got=$(grep -E '^[1-4]\. ' "$log" | tail -n 4)
if [ "$got" != "$expected" ]; then
  echo "readme-demo: error: the demo's last lines differ from $readme's:" >&2
  diff <(echo "$expected") <(echo "$got") >&2 || true
  exit 1
fi
echo "readme-demo: the demo printed the README's four lines ($(($(date +%s) - start)) s)"
