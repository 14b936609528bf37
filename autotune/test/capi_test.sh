#!/usr/bin/env bash
# The runtime's C API on a real bundle: a sweep tunes examples/rms_norm's spec, then a C program
# (runtime/capi/test/capi_check.c) opens the bundle and launches the kernel through
# tessel_launch with its own data, checking the result and that bad calls are refused.
set -euo pipefail
cd "${TEST_SRCDIR}/tessel"
out="${TEST_TMPDIR}/sweep"
autotune/sweep --spec=examples/rms_norm/rms_norm.toml --strategy=exhaustive --min-time=0.001 \
  --flush=off --out="$out" > "${TEST_TMPDIR}/sweep.log" 2>&1 || { cat "${TEST_TMPDIR}/sweep.log"; exit 1; }
runtime/capi/capi_check "$out/bundle"
