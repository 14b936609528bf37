# An aggregate taken out of a tuple before and inside an if on a runtime condition is the same
# object on both paths (each `t[0]` is a new reference to it): not an error.
# RUN: tessel-compile %s --entry k --signature '*fp32,i32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@tl.aggregate
class Box:
    v: tl.tensor

    def __init__(self, v):
        self.v = v


@triton.jit
def k(out_ptr, n):
    t = (Box(tl.zeros((), dtype=tl.float32)), Box(tl.full((), 1.0, tl.float32)))
    a = t[1]
    if n > 0:
        a = t[1]
    # CHECK-LABEL: tt.func public @k
    # CHECK: arith.constant 1.000000e+00 : f32
    # CHECK: tt.store
    tl.store(out_ptr, a.v)
