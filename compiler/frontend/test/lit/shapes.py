# Shape builtins and subscripts: x[:, None], expand_dims (int and tuple), broadcast_to,
# reshape, trans/permute, .T, and reductions with axis / keep_dims / over everything.
# RUN: tessel-compile %s --entry k --signature '*fp32' --emit ttir -o - | FileCheck %s
import triton
import triton.language as tl


@triton.jit
def k(p):
    r = tl.arange(0, 16)
    # CHECK: tt.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    col = r[:, None]
    # CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    row = tl.expand_dims(r, 0)
    # CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    # CHECK: tt.expand_dims %{{.*}} {axis = 2 : i32} : tensor<1x16xi32> -> tensor<1x16x1xi32>
    three = tl.expand_dims(r, (0, -1))
    # CHECK: tt.broadcast %{{.*}} : tensor<16x1xi32> -> tensor<16x16xi32>
    # CHECK: tt.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<16x16xi32>
    grid = col * 16 + row
    # CHECK: tt.broadcast %{{.*}} : tensor<1x16xi32> -> tensor<8x16xi32>
    b = tl.broadcast_to(row, (8, 16))
    # CHECK: tt.reshape %{{.*}} : tensor<16x16xi32> -> tensor<256xi32>
    flat = tl.reshape(grid, (256,))
    # CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<16x16xi32> -> tensor<16x16xi32>
    t = grid.T
    # CHECK: tt.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<8x16xi32> -> tensor<16x8xi32>
    pb = tl.permute(b, (1, 0))
    # CHECK: "tt.reduce"(%{{.*}}) <{axis = 1 : i32}>
    # CHECK: arith.addi
    s1 = tl.sum(grid, axis=1)
    # CHECK: "tt.reduce"(%{{.*}}) <{axis = 0 : i32}>
    # CHECK: arith.maxsi
    # CHECK: tt.expand_dims %{{.*}} {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    m0 = tl.max(t, axis=0, keep_dims=True)
    # Over everything: flattened first.
    # CHECK: tt.reshape %{{.*}} allow_reorder : tensor<16x8xi32> -> tensor<128xi32>
    # CHECK: arith.minsi
    mn = tl.min(pb)
    # Over everything with keep_dims: the input's rank, every size 1 (as Triton).
    # CHECK: tt.reshape %{{.*}} allow_reorder : tensor<16x8xi32> -> tensor<128xi32>
    # CHECK: arith.addi
    # CHECK: tt.splat %{{.*}} : i32 -> tensor<1x1xi32>
    ka = tl.sum(pb, keep_dims=True)
    tl.static_assert(len(ka.shape) == 2)
    v = tl.sum(flat, axis=0) + tl.sum(s1, axis=0) + tl.sum(tl.sum(m0, axis=1), axis=0) + mn + tl.sum(tl.sum(ka, axis=1), axis=0) + tl.sum(tl.sum(tl.sum(three, axis=2), axis=1), axis=0)
    tl.store(p, v.to(tl.float32))
