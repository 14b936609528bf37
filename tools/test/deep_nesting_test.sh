#!/usr/bin/env bash
# IR nested thousands of levels deep (regions, or types) is a clear error with file:line:col,
# exit status 1, from tessel-opt and tessel-compile alike; it used to overflow the parser's
# stack (SIGSEGV). IR nested as real kernels are still parses.
set -uo pipefail
OPT=$1 COMPILE=$2
T=${TEST_TMPDIR:?}
fail() { echo "FAIL: $*" >&2; exit 1; }
/usr/bin/python3 - "$T" <<'PY'
import sys
out = sys.argv[1]
def module(depth):
    # depth nested execute_regions, each yielding nothing.
    inner = "scf.yield\n"
    for _ in range(depth - 1):
        inner = "scf.execute_region {\n" + inner + "}\nscf.yield\n"
    return "module {\nfunc.func @f() {\nscf.execute_region {\n" + inner + "}\nreturn\n}\n}\n"
open(out + "/deep.mlir", "w").write(module(5000))
open(out + "/shallow.mlir", "w").write(module(40))
# A type nested 5000 levels deep.
open(out + "/deep_type.mlir", "w").write(
    "func.func private @g(" + "tensor<" * 5000 + "f32" + ">" * 5000 + ")\n")
PY
for f in deep deep_type; do
  "$OPT" "$T/$f.mlir" > "$T/$f.out" 2>&1
  rc=$?
  [ $rc -eq 1 ] || { head -c 400 "$T/$f.out"; fail "tessel-opt on $f.mlir exited with $rc"; }
  grep -q "$T/$f.mlir:[0-9]*:[0-9]*: nested more than 512 levels deep" "$T/$f.out" || { head -c 400 "$T/$f.out"; fail "no located message for $f.mlir"; }
done
"$COMPILE" "$T/deep.mlir" --entry f -o "$T/deep.so" > "$T/compile.out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] || { head -c 400 "$T/compile.out"; fail "tessel-compile exited with $rc"; }
grep -q "nested more than 512 levels deep" "$T/compile.out" || { head -c 400 "$T/compile.out"; fail "tessel-compile gave no nesting message"; }
"$OPT" "$T/shallow.mlir" > "$T/shallow.out" 2>&1 || { head -c 400 "$T/shallow.out"; fail "40 nested regions no longer parse"; }
echo PASS
