# More builtins and dtypes; @triton.autotune is accepted and ignored (the zoo owns the config
# space); device assertions are kept with --debug.
# RUN: tessel-compile %s --entry k --constexpr BLOCK=16 --signature '*fp32,*u32,*fp64,*i8,i32' --debug --emit ttir -o - | FileCheck %s
# RUN: tessel-compile %s --entry k --constexpr BLOCK=16 --signature '*fp32,*u32,*fp64,*i8,i32' --emit ttir -o - | FileCheck %s --check-prefix=NODEBUG
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 16}, num_warps=4),
                          triton.Config({"BLOCK": 32}, num_warps=8)], key=["n"])
@triton.jit
def k(f_ptr, u_ptr, d_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.max_contiguous(tl.arange(0, BLOCK), 16)
    x = tl.load(f_ptr + offs)
    # CHECK: arith.divf %{{.*}}, %{{.*}} : tensor<16xf32>
    q = tl.fdiv(x, x + 1.0)
    # bitcast f32 -> i32, then an unsigned compare and shift.
    # CHECK: arith.bitcast %{{.*}} : tensor<16xf32> to tensor<16xi32>
    bits = tl.cast(q, tl.int32, bitcast=True)
    u = tl.load(u_ptr + offs)
    # CHECK: arith.cmpi ugt
    # CHECK: arith.shrui
    big = u > bits.to(tl.uint32)
    us = u >> 3
    # float64 and int8 tensors.
    # CHECK: arith.extf %{{.*}} : tensor<16xf32> to tensor<16xf64>
    d = tl.load(d_ptr + offs) + x.to(tl.float64)
    # CHECK: arith.trunci %{{.*}} : tensor<16xi32> to tensor<16xi8>
    tl.store(b_ptr + offs, us.to(tl.int8) + big.to(tl.int8))
    # CHECK: tt.reshape %{{.*}} allow_reorder : tensor<16xf64> -> tensor<4x4xf64>
    v = tl.view(d, (4, 4))
    tl.store(d_ptr + offs, tl.reshape(v, (16,)))
    # device_assert(False, msg) is kept with --debug (Triton's debug mode), dropped otherwise.
    # CHECK: tt.assert %{{.*}}, "never" : i1
    # NODEBUG-NOT: tt.assert
    if n < 0:
        tl.device_assert(False, "never")
