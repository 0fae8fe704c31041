#!/usr/bin/env bash
# Installs the Debian packages memfloor builds with; fast and silent when they are all present.
#   scripts/setup.sh          everything: the build, the tests, the style checks, the packages
#   scripts/setup.sh --demo   what `memfloor demo` needs alone (scripts/build.sh --demo)
set -euo pipefail
demo=false
[ "${1:-}" = "--demo" ] && demo=true

# The demo's: memfloor, and memfloor-check on C++ and Python sources.
packages=(
  cmake ninja-build g++ pkg-config python3
  llvm-14-dev libclang-14-dev libclang-cpp14-dev  # the checker
  libfmt-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
)
if ! $demo; then
  packages+=(
    catch2
    clang-format-14 clang-tidy-14  # scripts/lint.sh
    clang-14 libclang-rt-14-dev  # fuzzing
    chromium  # the HTML report's browser test (tests/html)
    python3-torch  # the Python companion's tests (tests/python), on CPU
    dpkg-dev file binutils python3-venv python3-pip python3-wheel  # scripts/package-check.sh
  )
  # Node and npm for that test: Debian's, unless a node is there already (NodeSource's nodejs
  # bundles npm, and Debian's npm package would conflict with it).
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    packages+=(nodejs npm)
  fi
fi

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

if $demo; then
  exit 0
fi

# The browser test's node packages (puppeteer-core), from the committed lockfile, again only when
# it changed since the last install (about 20 s; the stamp makes the next run instant).
html_test=$(cd "$(dirname "$0")/.." && pwd)/tests/html
if ! cmp -s "$html_test/package-lock.json" "$html_test/node_modules/.memfloor-lock"; then
  echo "setup: installing the browser test's node packages (tests/html)"
  (cd "$html_test" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$html_test/package-lock.json" "$html_test/node_modules/.memfloor-lock"
fi

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: note: no CUDA toolkit in /usr/local/cuda; the hook and the reference model are skipped"
fi
