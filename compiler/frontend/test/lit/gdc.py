# tl.extra.cuda.gdc_wait / gdc_launch_dependents (programmatic dependent launch): launches
# already run one after another, so both compile to nothing; arguments are an error.
# RUN: tessel-compile %s --entry k --signature '*fp32,i32' --constexpr USE_GDC=True --emit ttir -o - | FileCheck %s
# RUN: not tessel-compile %s --entry bad --signature '*fp32' --emit ttir -o - 2>&1 | FileCheck %s --check-prefix=ARGS
# CHECK-LABEL: tt.func public @k
# CHECK-NOT: gdc
# CHECK: tt.store
# CHECK-NEXT: tt.return
# ARGS: error: gdc_wait() takes at most 0 arguments, 1 given
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, USE_GDC: tl.constexpr):
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(x_ptr + offs, x + 1, mask=offs < n)


@triton.jit
def bad(x_ptr):
    tl.extra.cuda.gdc_wait(1)
