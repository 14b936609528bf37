#!/usr/bin/env bash
# tessel-opt on damaged Triton IR: every truncation and line deletion of the given files must end
# in a diagnostic (exit 1) or a valid parse (exit 0), never a crash or abort (exit >= 128).
set -uo pipefail
opt="$1"
shift
checked=0
for file in "$@"; do
  size=$(wc -c <"$file")
  lines=$(wc -l <"$file")
  variants=()
  for cut in $(seq 1 37 "$size"); do
    head -c "$cut" "$file" >"$TEST_TMPDIR/v.mlir"
    "$opt" "$TEST_TMPDIR/v.mlir" >/dev/null 2>"$TEST_TMPDIR/err.txt"
    rc=$?
    if [ "$rc" -gt 1 ]; then
      echo "FAIL: tessel-opt exited $rc on $file cut at byte $cut" >&2
      head -c 2000 "$TEST_TMPDIR/err.txt" >&2
      exit 1
    fi
    if [ "$rc" -eq 1 ] && ! grep -qE ':[0-9]+:[0-9]+: error:' "$TEST_TMPDIR/err.txt"; then
      echo "FAIL: no file:line:col diagnostic for $file cut at byte $cut" >&2
      head -c 2000 "$TEST_TMPDIR/err.txt" >&2
      exit 1
    fi
    checked=$((checked + 1))
  done
  for drop in $(seq 1 3 "$lines"); do
    sed "${drop}d" "$file" >"$TEST_TMPDIR/v.mlir"
    "$opt" "$TEST_TMPDIR/v.mlir" >/dev/null 2>"$TEST_TMPDIR/err.txt"
    rc=$?
    if [ "$rc" -gt 1 ]; then
      echo "FAIL: tessel-opt exited $rc on $file without line $drop" >&2
      head -c 2000 "$TEST_TMPDIR/err.txt" >&2
      exit 1
    fi
    checked=$((checked + 1))
  done
done
echo "checked $checked damaged inputs"
[ "$checked" -gt 0 ]
