#!/usr/bin/env bash
# The runtime installed and used as an application outside Bazel would use it: install to a
# prefix, check the shared library exports only tessel_*, build the README's C example with
# pkg-config and its C++ example with CMake, run them and the Python example on a bundle a sweep
# tunes from examples/rms_norm, and check a bad call from Python is a clear ValueError.
set -euo pipefail
cd "${TEST_SRCDIR}/tessel"
T="${TEST_TMPDIR}"
fail() { echo "FAIL: $*" >&2; exit 1; }

autotune/sweep --spec=examples/rms_norm/rms_norm.toml --strategy=exhaustive --min-time=0.001 \
  --flush=off --out="$T/sweep" > "$T/sweep.log" 2>&1 || { cat "$T/sweep.log"; fail "sweep"; }
bundle="$T/sweep/bundle"

prefix="$T/prefix"
runtime/capi/install "$prefix" || fail "install"
lib="$prefix/lib/libtessel_runtime.so"
others="$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^tessel_' || true)"
[[ -z "$others" ]] || fail "libtessel_runtime.so exports more than tessel_*: $(echo $others | head -c 400)"
echo "ok: libtessel_runtime.so exports $(nm -D --defined-only "$lib" | wc -l) symbols, all tessel_*"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c11 -Wall -Werror -o "$T/use_bundle" runtime/capi/examples/use_bundle.c \
  $(pkg-config --cflags --libs tessel_runtime) -lm || fail "the C example does not build with pkg-config"
"$T/use_bundle" "$bundle" || fail "the C example"

cmake -S runtime/capi/examples -B "$T/build" -DCMAKE_PREFIX_PATH="$prefix" > "$T/cmake.log" 2>&1 &&
  cmake --build "$T/build" >> "$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; fail "the C++ example does not build with CMake"; }
"$T/build/use_bundle_cpp" "$bundle" || fail "the C++ example"

export PYTHONPATH="$prefix/lib/python3/dist-packages"
/usr/bin/python3 runtime/capi/examples/use_bundle.py "$bundle" || fail "the Python example"
/usr/bin/python3 - "$bundle" <<'PY' || fail "bad calls from Python"
import sys
import numpy as np
import tessel
b = tessel.Bundle(sys.argv[1])
x = np.zeros((4, 1000), np.float32)
def refused(kind, needle, **args):
    try:
        b.launch("rms_norm_kernel", **args)
    except kind as e:
        assert needle in str(e), (needle, str(e))
        print("ok refused:", e)
        return
    raise AssertionError(f"accepted: {needle}")
refused(ValueError, "f64", x_ptr=x.astype(np.float64), w_ptr=x[0], y_ptr=x)
refused(ValueError, "y_ptr", x_ptr=x, w_ptr=x[0])
refused(ValueError, "read-only", x_ptr=x, w_ptr=x[0], y_ptr=np.broadcast_to(x, x.shape))
refused(ValueError, "element type", x_ptr=x.astype(np.complex64), w_ptr=x[0], y_ptr=x)
buf = np.zeros(4000 + 4, np.float32)
i = next(i for i in range(4) if (buf.ctypes.data + 4 * i) % 16 == 4)
unaligned = buf[i:i + 4000].reshape(4, 1000)
refused(ValueError, "16-byte aligned", x_ptr=unaligned, w_ptr=x[0], y_ptr=x)
# A call like an earlier one reuses its plan: new pointers, still checked and used.
rng = np.random.default_rng()
w = np.ones(1000, np.float32)
for _ in range(3):
    xs = rng.standard_normal((4, 1000), dtype=np.float32)
    ys = np.full_like(xs, np.nan)
    b.launch("rms_norm_kernel", x_ptr=xs, w_ptr=w, y_ptr=ys)
    want = xs / np.sqrt((xs.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6)
    assert np.allclose(ys, want, rtol=1e-4, atol=1e-5), "a repeated launch computed a wrong result"
refused(ValueError, "16-byte aligned", x_ptr=unaligned, w_ptr=w, y_ptr=ys)
print("ok: repeated launches use their own arrays")
try:
    b.stream = 5
    raise AssertionError("a stream was set on the cpu device")
except ValueError as e:
    print("ok refused:", e)
try:
    b.launch("no_such_kernel", x_ptr=x)
    raise AssertionError("an unknown kernel was accepted")
except LookupError as e:
    print("ok refused:", e)
try:
    tessel.Bundle("/no/such/bundle")
    raise AssertionError("a missing bundle was opened")
except (LookupError, RuntimeError, ValueError) as e:
    print("ok refused:", e)
PY
# The README shows the Python example as the file this test runs.
/usr/bin/python3 - <<'PY' || fail "README's Python example differs from runtime/capi/examples/use_bundle.py"
import re
readme = open("README.md").read()
blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
example = open("runtime/capi/examples/use_bundle.py").read()
body = example[example.index("import sys"):]
assert any(b == body for b in blocks), "no README python block equals use_bundle.py"
PY
echo PASS
