# Imports in their other spellings, literals, boolean logic, ternaries, static asserts, the
# difference between bool and int constexprs, and dot / load options.
# RUN: tessel-compile %s --entry k --constexpr FLAG=True --constexpr ONE=1 --signature '*fp32,i32' --emit ttir -o - | FileCheck %s
# RUN: tessel-compile %s --entry k --constexpr FLAG=1 --constexpr ONE=1 --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=INT
import triton
from triton import language as tl
import triton.language.math

SCALE = 1.5e-1 + 0x10 - 0o7 + 0b11  # 0.15 + 16 - 7 + 3


@triton.jit
def k(p, n, FLAG: tl.constexpr, ONE: tl.constexpr):
    # CHECK-LABEL: tt.func public @k
    # A bool constexpr is not the int 1: `FLAG is True` holds only for True.
    # INT: arith.constant 2.000000e+00 : f32
    if FLAG is True:
        v = SCALE
    else:
        v = 2.0
    assert ONE == 1, "ONE must be 1"
    tl.static_assert(not (FLAG and ONE == 2))
    # Runtime boolean logic on scalars: `and`, `or`, `not` become i1 operations.
    # CHECK: arith.andi %{{.*}}, %{{.*}} : i1
    # CHECK: arith.ori %{{.*}}, %{{.*}} : i1
    # CHECK: arith.constant 1.215000e+01 : f32
    c = (n > 0 and n < 100) or not n == 5
    # A runtime ternary on scalars: a select.
    # CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
    w = v if c else v * 2.0
    # A constexpr ternary folds.
    u = 3 if ONE == 1 else 4
    offs = tl.arange(0, 16)
    x = tl.load(p + offs, cache_modifier=".ca", eviction_policy="evict_last", volatile=False)
    a = tl.reshape(tl.broadcast_to(x[None, :], (16, 16)), (16, 16))
    # CHECK: tt.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
    d = tl.dot(a, a, input_precision="ieee")
    y = tl.sum(d, axis=1) * w + u + triton.language.math.exp(x)
    tl.store(p + offs, y)
