#!/usr/bin/env bash
# Checks ARCHITECTURE.md's dependency rules on the build graph (genquery outputs, one label per
# line): dependency_rules_test.sh RUNTIME_DEPS RUNNER_DEPS COMPILER_DEPS
#  - the runtime (and an application linking only it, and the runner tessel-bench) depends on
#    nothing under //compiler or //autotune's builder, and not on LLVM/MLIR;
#  - the compiler depends on no runtime package but the leaf //runtime/target, and not on
#    //autotune or //kernels.
set -euo pipefail
status=0
check() { # FILE WHAT PATTERN...
  local file="$1" what="$2"
  shift 2
  local bad
  bad="$(grep -E "$(IFS='|'; echo "$*")" "$file" || true)"
  if [[ -n "$bad" ]]; then
    echo "FAIL: $what depends on:" >&2
    echo "$bad" | head -10 | sed 's/^/  /' >&2
    local n
    n="$(echo "$bad" | wc -l)"
    [[ $n -gt 10 ]] && echo "  ... and $((n - 10)) more" >&2
    status=1
  fi
}
for f in "$@"; do
  [[ -s "$f" ]] || { echo "FAIL: empty query output $f" >&2; exit 1; }
done
check "$1" "//runtime (or its example application, or tessel-bundle)" '^//compiler' '^//autotune' '^@llvm//'
check "$2" "the runner //autotune:tessel-bench" '^//compiler' '^@llvm//'
grep -v '^//runtime/target:' "$3" >"${TEST_TMPDIR:-/tmp}/compiler_deps" || true
check "${TEST_TMPDIR:-/tmp}/compiler_deps" "//compiler" '^//runtime' '^//autotune' '^//kernels'
# The checks can fail: the runtime's own closure is there to be checked.
grep -q '^//runtime:runtime$' "$1" || { echo "FAIL: //runtime missing from its own closure" >&2; exit 1; }
grep -q '^//compiler/pipeline:compiler$' "$3" || { echo "FAIL: compiler closure missing" >&2; exit 1; }
[[ $status -eq 0 ]] && echo "dependency rules hold"
exit $status
