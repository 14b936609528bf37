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


# RUN: tessel-compile %s --entry more --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=MORE
@triton.jit
def combine_max(a, b):
    return tl.maximum(a, b)


@triton.jit
def combine_sum(a, b):
    return a + b


@triton.jit
def more(p, n):
    x = tl.load(p + tl.arange(0, 16))
    # MORE-LABEL: tt.func public @more
    # tl.softmax: max and sum reductions kept broadcastable, exp, division.
    # MORE: "tt.reduce"
    # MORE: arith.maxnumf
    # MORE: math.exp
    # MORE: "tt.reduce"
    # MORE: arith.addf
    # MORE: arith.divf
    s = tl.softmax(x)
    # reduce / associative_scan with a jit combine function: its body becomes the region.
    # MORE: "tt.reduce"
    # MORE: arith.maxnumf
    r = tl.reduce(x, 0, combine_max)
    # MORE: "tt.scan"(%{{.*}}) <{axis = 0 : i32, reverse = true}>
    # MORE: arith.addf
    c = tl.associative_scan(x, 0, combine_sum, reverse=True)
    # MORE: "tt.reduce"
    # MORE: arith.cmpf olt
    # MORE: arith.select
    i = tl.argmin(x, axis=0)
    # libdevice names map to math ops.
    # MORE: math.powf
    # MORE: math.fma
    # MORE: math.tanh
    q = tl.extra.cuda.libdevice.pow(x, 2.0) + tl.math.fma(x, x, 1.0) + tl.math.tanh(x)
    # MORE: arith.constant dense<3.000000e+00> : tensor<16xf32>
    f = tl.full((16,), 3.0, dtype=tl.float32) + tl.zeros_like(x)
    tl.store(p + tl.arange(0, 16), s + r + c + i + q + f)


# RUN: tessel-compile %s --entry cas --signature '*i32' --emit ttir -o - | FileCheck %s --check-prefix=CAS
@triton.jit
def cas(p):
    # CAS: tt.atomic_cas acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : (!tt.ptr<i32>, i32, i32) -> i32
    # CAS: tt.atomic_rmw max, acq_rel, gpu
    # CAS: tt.atomic_rmw exch, acq_rel, gpu
    old = tl.atomic_cas(p, 0, 1)
    tl.atomic_max(p + 1, old)
    tl.atomic_xchg(p + 2, 3)
