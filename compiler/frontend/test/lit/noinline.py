# @triton.jit(noinline=True) functions become private tt.funcs called with tt.call, one per
# distinct signature (types of runtime arguments, values of constexprs); unlike Triton 3.6,
# tensor arguments and tensor (and tuple) results are allowed.
# RUN: tessel-compile %s --entry k --signature '*fp32,*fp16,i32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit(noinline=True)
def axpy(a, x, y, SCALE: tl.constexpr):
    return a * x * SCALE + y


@triton.jit(noinline=True)
def minmax(x):
    return tl.min(x, axis=0), tl.max(x, axis=0)


@triton.jit(noinline=True)
def put(p, v):
    tl.store(p, v)


@triton.jit
def k(p, h, n):
    offs = tl.arange(0, 64)
    x = tl.load(p + offs)
    hx = tl.load(h + offs)
    # CHECK-LABEL: tt.func public @k
    # CHECK: %[[A:.*]] = tt.call @[[AXPY32:axpy__[_a-zA-Z0-9]*c2]](%{{.*}}, %{{.*}}, %{{.*}}) : (f32, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    a = axpy(2.0, x, x, 2)
    # The same signature again: the same function.
    # CHECK: tt.call @[[AXPY32]](
    b = axpy(3.0, a, x, 2)
    # Another constexpr value: another specialization.
    # CHECK: tt.call @[[AXPY3:axpy__[_a-zA-Z0-9]*c3]](
    c = axpy(3.0, b, a, 3)
    # f16 tensors: another one.
    # CHECK: tt.call @{{axpy__[_a-zA-Z0-9]*f16[_a-zA-Z0-9]*}}(
    d = axpy(1.0, hx, hx, 2)
    # A tuple result.
    # CHECK: %{{.*}}:2 = tt.call @{{minmax__.*}}(%{{.*}}) : (tensor<64xf32>) -> (f32, f32)
    lo, hi = minmax(c)
    # CHECK: tt.call @{{put__.*}}(%{{.*}}, %{{.*}}) : (tensor<64x!tt.ptr<f32>>, tensor<64xf32>) -> ()
    put(p + offs, c + lo + hi + d.to(tl.float32))
    # CHECK: tt.return
    # CHECK: tt.func private @[[AXPY32]](%{{.*}}: f32, %{{.*}}: tensor<64xf32>, %{{.*}}: tensor<64xf32>) -> tensor<64xf32> attributes {noinline = true}
    # CHECK: tt.return %{{.*}} : tensor<64xf32>
