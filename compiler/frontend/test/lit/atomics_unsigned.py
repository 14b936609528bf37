# tl.atomic_max / atomic_min on a pointer to an unsigned integer compare unsigned (Triton's
# umax / umin); the old value they (and atomic_cas) return keeps the pointee's signedness.
# RUN: tessel-compile %s --entry k --signature '*u32,*i32,u32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def k(u_ptr, s_ptr, v):
    # CHECK-LABEL: tt.func public @k
    # CHECK: tt.atomic_rmw umax
    old = tl.atomic_max(u_ptr, v)
    # CHECK: tt.atomic_rmw umin
    tl.atomic_min(u_ptr, v)
    # CHECK: tt.atomic_rmw max
    tl.atomic_max(s_ptr, 1)
    # CHECK: tt.atomic_rmw min
    tl.atomic_min(s_ptr, 1)
    # CHECK: arith.cmpi ugt
    tl.store(u_ptr + 1, tl.where(old > v, old, v))
    # CHECK: tt.atomic_cas
    seen = tl.atomic_cas(u_ptr + 2, v, v + 1)
    # CHECK: arith.cmpi ult
    tl.store(u_ptr + 3, tl.where(seen < v, seen, v))
