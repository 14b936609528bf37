#!/usr/bin/env bash
# tools/setup.sh - the one set-up command for tessel on Debian 12 (bookworm).
#
# Installs every Debian package the build and the tests need, and nothing else. Idempotent: a
# second run finds everything installed and changes nothing. Prints what it installed.
#
#   tools/setup.sh [--with-clang]
#
# --with-clang also installs clang 22 with its sanitizer and libFuzzer runtimes, which only
# tools/build_fuzzers.sh (libFuzzer campaigns) needs.
set -euo pipefail

PACKAGES=(
  # Build system (Debian's Bazel 4.2.3; WORKSPACE mode, fully offline) and C++ toolchain.
  bazel-bootstrap
  g++
  python3
  # LLVM/MLIR 22: shared libLLVM/libMLIR, headers, mlir-tblgen, lit, FileCheck, ld.lld.
  llvm-22-dev
  libmlir-22-dev
  mlir-22-tools
  llvm-22-tools
  lld-22
  zlib1g-dev
  libzstd-dev
  # Libraries.
  libabsl-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  nlohmann-json3-dev
  # Ed25519 signatures of tuned bundles (linked statically: applications need no libsodium).
  libsodium-dev
  # The installed runtime's consumers outside Bazel (//autotune:install_test), its Python
  # module (pybind11 over the C API) and the NumPy checks of bundles.
  cmake
  pkg-config
  pybind11-dev
  python3-dev
  python3-numpy
  # Every tool's command line (CLI11, header only).
  libcli11-dev
  # Kernel specs are TOML (toml++, header only).
  libtomlplusplus-dev
  # The documented JSON schemas are validated against real records and bundles in a test.
  python3-jsonschema
  # OpenBLAS: the matmul baseline of benchmarks/.
  libopenblas-dev
  # Dashboards: Chart.js inlined into `autotune report`'s HTML, headless Chromium to render it
  # in a test, and Google Benchmark's compare.py (with SciPy for its U test) to read our JSON.
  libjs-chart.js
  chromium
  libbenchmark-tools
  python3-scipy
)

for arg in "$@"; do
  case "$arg" in
  --with-clang) PACKAGES+=(clang-22 libclang-rt-22-dev) ;;
  *)
    echo "tools/setup.sh: unknown argument '$arg' (usage: tools/setup.sh [--with-clang])" >&2
    exit 2
    ;;
  esac
done

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "tools/setup.sh: installing packages needs root; run it as root or install sudo." >&2
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "tools/setup.sh: apt-get not found; tessel's set-up supports Debian 12 (bookworm)." >&2
  exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "tools/setup.sh: all ${#PACKAGES[@]} packages already installed; nothing to do."
  exit 0
fi

echo "tools/setup.sh: installing ${missing[*]}"
if ! "${SUDO[@]}" apt-get update -q >/tmp/tessel-apt-update.log 2>&1; then
  echo "tools/setup.sh: 'apt-get update' failed; see /tmp/tessel-apt-update.log:" >&2
  tail -n 20 /tmp/tessel-apt-update.log >&2
  exit 1
fi
if ! DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >/tmp/tessel-apt-install.log 2>&1; then
  echo "tools/setup.sh: could not install ${missing[*]}; see /tmp/tessel-apt-install.log:" >&2
  tail -n 20 /tmp/tessel-apt-install.log >&2
  exit 1
fi

for pkg in "${missing[@]}"; do
  version=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
  if [ -z "$version" ]; then
    echo "tools/setup.sh: $pkg is still not installed after apt-get install." >&2
    exit 1
  fi
  echo "  installed $pkg $version"
done
echo "tools/setup.sh: done."
