#!/usr/bin/env bash
# memfloor's help: every command's options named with their types (FILE, DIR, GLOB, ...), not
# CLI11's TEXT or a validator's name after it, and no flag followed by the value it stores.
set -u
memfloor=$1
# shellcheck source=tests/cli/expect.sh
. "$(dirname "$0")/expect.sh"

# `check --help` is memfloor-check's own help: not drawn by CLI11.
for command in "" analyze run gate report export demo trace "trace from-text" "trace to-text" \
    "trace symbolize"; do
  # shellcheck disable=SC2086  # the command's words, split
  if ! "$memfloor" $command --help >"$work/help" 2>"$work/err" || [ -s "$work/err" ]; then
    fail "memfloor $command --help: exit $?, stderr: $(cat "$work/err")"
    continue
  fi
  if grep -En '\{(true|false)\}|TEXT|[A-Z]:(PATH|GLOB|SIZE|PERCENT)' "$work/help" >"$work/bad"; then
    fail "memfloor $command --help: $(cat "$work/bad")"
  else
    echo "ok: memfloor $command --help ($(wc -l <"$work/help") lines)"
  fi
done
grep -q -- '--no-table *do not print' <("$memfloor" analyze --help) ||
  fail "analyze --help: --no-table is not listed as a plain flag"
grep -Eq -- '--site-include GLOB' <("$memfloor" analyze --help) ||
  fail "analyze --help: --site-include does not take a GLOB"
grep -Eq -- '--format \{perfetto,memory-viz,memory-viz-1.13\}' <("$memfloor" export --help) ||
  fail "export --help: --format does not list its choices"
finish help
