# A return in one branch of an if on a runtime condition, below the function's top level
# (issue 42): in a compile-time if, and in another runtime if. As Triton 3.6 (which branches
# with cf.cond_br to a block holding tt.return), what follows up to the end of the function
# runs only where nothing returned; here it is generated into each branch that falls through.
# RUN: tessel-compile %s --entry k --constexpr SKIP=True --constexpr BLOCK=128 --signature '*fp32,*fp32,i32' --emit ttir -o - | FileCheck %s
# RUN: tessel-compile %s --entry k --constexpr SKIP=False --constexpr BLOCK=128 --signature '*fp32,*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=NOSKIP
# RUN: tessel-compile %s --entry nested --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=NESTED
import triton
import triton.language as tl


@triton.jit
def k(X, Y, N, SKIP: tl.constexpr, BLOCK: tl.constexpr):
    # CHECK-LABEL: tt.func public @k
    # CHECK: arith.remsi
    # CHECK: scf.if %{{.*}} {
    # CHECK-NEXT: } else {
    # CHECK: tt.load
    # CHECK: tt.store
    # CHECK: }
    # CHECK-NEXT: tt.return
    # CHECK-NOT: cf.cond_br
    # NOSKIP-LABEL: tt.func public @k
    # NOSKIP-NOT: scf.if
    # NOSKIP: tt.store
    pid = tl.program_id(0)
    if SKIP:
        if pid % 2 == 1:
            return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs, mask=offs < N) * 2, mask=offs < N)


@triton.jit
def nested(p, n):
    # NESTED-LABEL: tt.func public @nested
    # NESTED: scf.if %{{.*}} {
    # NESTED: scf.if %{{.*}} {
    # NESTED-NEXT: } else {
    # NESTED: arith.constant 2.000000e+00
    # NESTED: tt.store
    # NESTED: arith.constant 1.000000e+00
    # NESTED: tt.store
    # NESTED: } else {
    # NESTED: arith.constant 1.000000e+00
    # NESTED: tt.store
    if n > 0:
        if n > 5:
            return
        tl.store(p, 2.0)
    tl.store(p, 1.0)
