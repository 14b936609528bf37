#!/usr/bin/env bash
# bazel run //runtime/capi:install -- PREFIX
#
# Installs tessel's runtime for applications built outside Bazel:
#   PREFIX/include/tessel/tessel_runtime.h
#   PREFIX/lib/libtessel_runtime.so.0 (and the libtessel_runtime.so link)
#   PREFIX/lib/pkgconfig/tessel_runtime.pc           pkg-config --cflags --libs tessel_runtime
#   PREFIX/lib/cmake/TesselRuntime/                  find_package(TesselRuntime) -> TesselRuntime::runtime
#   PREFIX/lib/python3/dist-packages/tessel.so       PYTHONPATH=PREFIX/lib/python3/dist-packages
# A relative PREFIX is taken from the directory bazel run was called in.
set -euo pipefail
if [[ $# -ne 1 || "$1" == -* ]]; then
  echo "usage: bazel run //runtime/capi:install -- PREFIX" >&2
  exit 2
fi
prefix="$1"
[[ "$prefix" == /* ]] || prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"
# The installed files: in the runfiles tree (bazel run, or a test that runs it).
here=""
for d in "${RUNFILES_DIR:-}/tessel/runtime/capi" "${TEST_SRCDIR:-}/tessel/runtime/capi" \
         "$0.runfiles/tessel/runtime/capi" "$(dirname "$0")"; do
  if [[ -f "$d/tessel_runtime.h" && -f "$d/libtessel_runtime.so" ]]; then here="$d"; break; fi
done
[[ -n "$here" ]] || { echo "install: run it with bazel run //runtime/capi:install -- PREFIX" >&2; exit 1; }
version="$(sed -n 's/^#define TESSEL_RUNTIME_VERSION "\(.*\)"$/\1/p' "$here/tessel_runtime.h")"
[[ -n "$version" ]] || { echo "install: no TESSEL_RUNTIME_VERSION in tessel_runtime.h" >&2; exit 1; }

mkdir -p "$prefix/include/tessel" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/TesselRuntime" \
  "$prefix/lib/python3/dist-packages"
install -m 0644 "$here/tessel_runtime.h" "$prefix/include/tessel/tessel_runtime.h"
install -m 0755 "$here/libtessel_runtime.so" "$prefix/lib/libtessel_runtime.so.0"
ln -sfn libtessel_runtime.so.0 "$prefix/lib/libtessel_runtime.so"
install -m 0755 "$here/tessel.so" "$prefix/lib/python3/dist-packages/tessel.so"
for f in tessel_runtime.pc:pkgconfig/tessel_runtime.pc \
         TesselRuntimeConfig.cmake:cmake/TesselRuntime/TesselRuntimeConfig.cmake; do
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" "$here/dist/${f%%:*}.in" \
    > "$prefix/lib/${f#*:}"
done
echo "install: tessel runtime $version in $prefix"
