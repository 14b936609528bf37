# if / elif / else on constexprs folds; on runtime values becomes scf.if with results;
# for loops carry the variables they reassign; while loops become scf.while.
# RUN: tessel-compile %s --entry folded --constexpr MODE=2 --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=FOLD
# RUN: tessel-compile %s --entry dynamic --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=DYN
# RUN: tessel-compile %s --entry loops --constexpr B=16 --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=LOOP
# RUN: tessel-compile %s --entry whiles --signature '*fp32,i32' --emit ttir -o - | FileCheck %s --check-prefix=WHILE
import triton
import triton.language as tl


@triton.jit
def folded(p, n, MODE: tl.constexpr):
    # FOLD-LABEL: tt.func public @folded
    # FOLD-NOT: scf.if
    # FOLD: arith.constant 2.000000e+00 : f32
    # FOLD-NOT: arith.constant 1.000000e+00 : f32
    # FOLD-NOT: arith.constant 3.000000e+00 : f32
    if MODE == 1:
        v = 1.0
    elif MODE == 2:
        v = 2.0
    else:
        v = 3.0
    tl.store(p, v)
    if MODE > 1:
        return
    # Dropped: after a return in a folded branch.
    tl.store(p + 1, 7.0)


@triton.jit
def dynamic(p, n):
    # DYN-LABEL: tt.func public @dynamic
    # DYN: %[[R:.*]] = scf.if %{{.*}} -> (i32) {
    # DYN: scf.yield %{{.*}} : i32
    # DYN: } else {
    # DYN: scf.yield %{{.*}} : i32
    x = 0
    if n > 4:
        x = n * 2
    else:
        x = n + 1
    tl.store(p, x.to(tl.float32))


@triton.jit
def loops(p, n, B: tl.constexpr):
    # LOOP-LABEL: tt.func public @loops
    # LOOP: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<16xf32>, !tt.ptr<f32>) : i32
    # Unrolled: four stores from static_range.
    # LOOP-COUNT-4: tt.store
    acc = tl.zeros((B,), dtype=tl.float32)
    q = p
    for i in range(0, n):
        acc += tl.load(q + tl.arange(0, B))
        q += B
    for j in tl.static_range(4):
        tl.store(p + j * B + tl.arange(0, B), acc)


@triton.jit
def whiles(p, n):
    # WHILE-LABEL: tt.func public @whiles
    # WHILE: scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
    # WHILE: arith.cmpi slt
    # WHILE: scf.condition
    # WHILE: } do {
    # WHILE: arith.muli
    # WHILE: scf.yield
    i = 1
    while i < n:
        i = i * 2
    tl.store(p, i.to(tl.float32))
