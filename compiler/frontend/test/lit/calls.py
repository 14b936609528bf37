# Calls to @triton.jit functions are inlined: keyword arguments, defaults, constexpr
# parameters, chains of calls through locals, calls as statements inside if/else, and early
# returns (after a folded branch; in both branches of a runtime if).
# RUN: tessel-compile %s --entry k --signature '*fp32,*i32,i32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def scale(x, factor=2.0, SQUARE: tl.constexpr = False):
    if SQUARE:
        return x * x
    return x * factor


@triton.jit
def pick(x, n):
    if n > 0:
        return x + 1.0
    else:
        return x - 1.0


@triton.jit
def put(p, v):
    tl.store(p, v)


@triton.jit
def k(p, q, n):
    # CHECK-LABEL: tt.func public @k
    # CHECK-NOT: tt.call
    offs = tl.arange(0, 16)
    x = tl.load(p + offs)
    # scale(x, SQUARE=True): x * x
    # CHECK: %[[X:.*]] = tt.load
    # CHECK: arith.mulf %[[X]], %[[X]] : tensor<16xf32>
    y = scale(x, SQUARE=True)
    # scale(y, factor=3.0): y * 3
    # CHECK: arith.constant 3.000000e+00 : f32
    z = scale(y, factor=3.0)
    # Returns in both branches of a runtime if: scf.if yielding the value.
    # CHECK: scf.if %{{.*}} -> (tensor<16xf32>)
    w = pick(z, n)
    # A chain through a local: int32 -> int32 -> int32 is a no-op cast chain.
    a = offs
    a = a.to(tl.int32).to(tl.int32)
    # A call as a statement in both branches.
    # CHECK: scf.if
    # CHECK: tt.store
    # CHECK: } else {
    # CHECK: tt.store
    if n > 3:
        put(p + offs, w)
    else:
        put(p + offs, w + 1.0)
    tl.store(q + a, a)
