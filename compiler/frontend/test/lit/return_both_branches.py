# A bare return in both branches of an if on a runtime condition ends the function (as in
# Triton): the if carries no value out, and what follows it is not generated; an inlined
# function that returns so hands control back to its caller.
# RUN: tessel-compile %s --entry k --signature '*fp32,i32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def store_sign(p, n):
    if n > 0:
        tl.store(p, 1.0)
        return
    else:
        tl.store(p, -1.0)
        return None
    tl.store(p, 99.0)


@triton.jit
def k(p, n):
    # CHECK-LABEL: tt.func public @k
    # CHECK: scf.if %{{.*}} {
    # CHECK: arith.constant 1.0
    # CHECK: } else {
    # CHECK: arith.constant -1.0
    # CHECK: }
    # CHECK-NOT: 9.9
    store_sign(p, n)
    # CHECK: arith.constant 2.0
    # CHECK: tt.store
    # CHECK: tt.return
    tl.store(p + 1, 2.0)
