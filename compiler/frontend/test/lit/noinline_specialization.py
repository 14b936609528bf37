# A noinline function is specialized on everything that is not a runtime value, exactly: string
# constexprs that differ only in punctuation, an aggregate's dtype field, a nested aggregate's
# constexpr field each get their own function (sharing one would silently compute the wrong
# thing), and equal ones share it.
# RUN: tessel-compile %s --entry k --signature '*fp32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@tl.aggregate
class Inner:
    scale: tl.constexpr

    def __init__(self, scale):
        self.scale = scale


@tl.aggregate
class Cfg:
    dt: tl.constexpr
    inner: Inner

    def __init__(self, dt, inner):
        self.dt = dt
        self.inner = inner


@triton.jit(noinline=True)
def tag(x, MODE: tl.constexpr):
    if MODE == "a-b":
        return x + 1.0
    else:
        return x + 2.0


@triton.jit(noinline=True)
def convert(x, cfg):
    return (x * cfg.inner.scale).to(cfg.dt).to(tl.float32)


@triton.jit(noinline=True)
def scale(x, S: tl.constexpr):
    return x * S


@triton.jit
def k(p):
    offs = tl.arange(0, 16)
    x = tl.load(p + offs)
    # CHECK-LABEL: tt.func public @k
    # CHECK: tt.call @[[DASH:tag__[_a-zA-Z0-9]*]](
    a = tag(x, "a-b")
    # CHECK-NOT: tt.call @[[DASH]](
    # CHECK: tt.call @[[UNDER:tag__[_a-zA-Z0-9]*]](
    b = tag(a, "a_b")
    # CHECK: tt.call @[[DASH]](
    c = tag(b, "a-b")
    # CHECK: tt.call @[[F16:convert__[_a-zA-Z0-9]*]](
    d = convert(c, Cfg(tl.float16, Inner(2)))
    # CHECK-NOT: tt.call @[[F16]](
    # CHECK: tt.call @[[BF16:convert__[_a-zA-Z0-9]*]](
    e = convert(d, Cfg(tl.bfloat16, Inner(2)))
    # CHECK-NOT: tt.call @[[F16]](
    # CHECK-NOT: tt.call @[[BF16]](
    # CHECK: tt.call @[[SCALE3:convert__[_a-zA-Z0-9]*]](
    f = convert(e, Cfg(tl.float16, Inner(3)))
    # CHECK: tt.call @[[F16]](
    g = convert(f, Cfg(tl.float16, Inner(2)))
    # Float constexprs that a symbol-safe spelling would merge (0x1p+1, 0x1p-1): two functions.
    # CHECK: tt.call @[[TWO:scale__[_a-zA-Z0-9]*]](
    h = scale(g, 2.0)
    # CHECK-NOT: tt.call @[[TWO]](
    # CHECK: tt.call @[[HALF:scale__[_a-zA-Z0-9]*]](
    i = scale(h, 0.5)
    # A string whose symbol-safe name is the numbered variant of another's: still distinct, and
    # a third one whose readable name is taken twice over gets the next free number.
    # CHECK: tt.call @[[B1:tag__[_a-zA-Z0-9]*]](
    j = tag(i, "a_b_1")
    # CHECK-NOT: tt.call @[[B1]](
    # CHECK: tt.call @{{tag__[_a-zA-Z0-9]*_2}}(
    m = tag(j, "a:b")
    tl.store(p + offs, m)
    # The bodies, in the order they were made: 1.0 and 2.0 added; scale 2 to f16, scale 2 to
    # bf16, scale 3 to f16.
    # CHECK: tt.func private @[[DASH]](
    # CHECK: arith.constant 1.0
    # CHECK: tt.func private @[[UNDER]](
    # CHECK: arith.constant 2.0
    # CHECK: tt.func private @[[F16]](
    # CHECK: arith.constant 2 : i32
    # CHECK: to tensor<16xf16>
    # CHECK: tt.func private @[[BF16]](
    # CHECK: arith.constant 2 : i32
    # CHECK: to tensor<16xbf16>
    # CHECK: tt.func private @[[SCALE3]](
    # CHECK: arith.constant 3 : i32
    # CHECK: to tensor<16xf16>
    # CHECK: tt.func private @[[TWO]](
    # CHECK: arith.constant 2.0
    # CHECK: tt.func private @[[HALF]](
    # CHECK: arith.constant 5.0{{0*}}e-01
