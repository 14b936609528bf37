# tl builtins lower to the tt/arith/math ops Triton emits.
# RUN: tessel-compile %s --entry k --constexpr BLOCK=32 --signature '*fp32,*fp32,*i32,i32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, h_ptr, n, BLOCK: tl.constexpr):
    # CHECK: tt.get_program_id y : i32
    # CHECK: tt.get_num_programs x : i32
    pid = tl.program_id(axis=1) + tl.num_programs(0)
    # CHECK: tt.make_range {end = 32 : i32, start = 0 : i32}
    offs = tl.multiple_of(pid * BLOCK, 16) + tl.arange(0, BLOCK)
    m = offs < n
    # CHECK: tt.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x!tt.ptr<f32>>
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    # CHECK: math.exp
    # CHECK: math.exp2
    # CHECK: math.log
    # CHECK: math.log2
    # CHECK: math.sqrt
    # CHECK: math.rsqrt
    # CHECK: math.sin
    # CHECK: math.cos
    # CHECK: math.absf
    a = tl.exp(x) + tl.exp2(x) + tl.log(x) + tl.log2(x) + tl.sqrt(x) + tl.rsqrt(x)
    a += tl.sin(x) + tl.cos(x) + tl.abs(x)
    # sigmoid: 1 / (1 + exp(-x))
    # CHECK: math.exp
    # CHECK: arith.divf
    s = tl.sigmoid(x)
    # CHECK: arith.maxnumf
    # CHECK: arith.minnumf
    # CHECK: arith.select
    c = tl.where(x > 0, tl.maximum(x, s), tl.minimum(x, 0.5))
    # CHECK: tt.precise_divf
    d = tl.div_rn(a, c + 2.0)
    # clamp = minimum(maximum(x, lo), hi)
    # CHECK: arith.maxnumf
    # CHECK: arith.minnumf
    e = tl.clamp(d, -1.0, 1.0)
    # cdiv on constexprs folds; on runtime values it is (n + 31) // 32.
    # CHECK: arith.divsi
    blocks = tl.cdiv(n, BLOCK)
    tl.static_assert(tl.cdiv(100, BLOCK) == 4)
    # CHECK: tt.atomic_rmw add, acq_rel, gpu
    tl.atomic_add(h_ptr + offs % 8, 1, mask=m)
    # CHECK: tt.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x!tt.ptr<f32>>
    tl.store(y_ptr + offs, e + blocks, mask=m)
