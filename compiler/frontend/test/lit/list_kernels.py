# --list-kernels names every @triton.jit function of a file, nested ones by SCOPE.NAME (what
# --entry takes), with their parameters; host code around them is skipped.
# RUN: tessel-compile %s --list-kernels | FileCheck %s
# RUN: tessel-compile %s --entry test_scale.kernel --signature '*fp32,i32' --constexpr BLOCK=32 --emit ttir -o - | FileCheck %s --check-prefix=NESTED
# CHECK: top(x_ptr, n, BLOCK: constexpr = 128, EPS = 1.000000e-05) at line 16
# CHECK-NEXT: test_scale.kernel(x_ptr, n, BLOCK: constexpr) at line 25
# CHECK-NEXT: Suite.test_twice.kernel(x_ptr, MODE: constexpr = 'fast') at line 35
# CHECK-EMPTY:
# NESTED: tt.func public @kernel(%arg0: !tt.ptr<f32>, %arg1: i32)
# NESTED: arith.constant 5.000000e-01 : f32
import triton
import triton.language as tl


@triton.jit
def top(x_ptr, n, BLOCK: tl.constexpr = 128, EPS=1e-5):
    pass


def test_scale(dtype=None):
    HALF = 0.5
    shapes = [(s, f"{s:04d}") for s in range(3)]

    @triton.jit
    def kernel(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * HALF, mask=offs < n)

    return shapes


class Suite:
    def test_twice(self):
        @triton.jit
        def kernel(x_ptr, MODE: tl.constexpr = "fast"):
            pass
