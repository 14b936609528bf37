// RUN: tessel-opt %s --triton-to-structured -split-input-file | FileCheck %s

// Rows by a stride, columns contiguous; the mask ANDs a row and a column bound through
// expand_dims and broadcast.
// CHECK-LABEL: tt.func @tile_2d
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<f32>, %[[STRIDE:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32)
tt.func @tile_2d(%p: !tt.ptr<f32>, %stride: i32, %m: i32, %n: i32) -> tensor<32x64xf32> {
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %c = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ss = tt.splat %stride : i32 -> tensor<32x1xi32>
  %rs = arith.muli %r2, %ss : tensor<32x1xi32>
  %rb = tt.broadcast %rs : tensor<32x1xi32> -> tensor<32x64xi32>
  %cb = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<32x64xi32>
  %offs = arith.addi %rb, %cb : tensor<32x64xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %offs : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
  %sm = tt.splat %m : i32 -> tensor<32x1xi32>
  %rm = arith.cmpi slt, %r2, %sm : tensor<32x1xi32>
  %sn = tt.splat %n : i32 -> tensor<1x64xi32>
  %cm = arith.cmpi slt, %c2, %sn : tensor<1x64xi32>
  %rmb = tt.broadcast %rm : tensor<32x1xi1> -> tensor<32x64xi1>
  %cmb = tt.broadcast %cm : tensor<1x64xi1> -> tensor<32x64xi1>
  %mask = arith.andi %rmb, %cmb : tensor<32x64xi1>
  // CHECK: %[[S:.*]] = arith.index_cast %[[STRIDE]] : i32 to index
  // CHECK: tts.make_tptr %[[P]] to sizes: [32, 64], strides: [%[[S]], 1], offsets: [0, 0], parent_sizes: [0, 0] : !tt.ptr<f32> to tensor<32x64x!tt.ptr<f32>>
  // CHECK: tts.load %{{.*}} mask: [%{{.*}}, %{{.*}}] : tensor<32x64x!tt.ptr<f32>> -> tensor<32x64xf32>
  %v = tt.load %pp, %mask : tensor<32x64x!tt.ptr<f32>>
  tt.return %v : tensor<32x64xf32>
}

// -----

// Wrap-around along the rows: (pid * 16 + arange) % M, as in matmul's offs_am.
// CHECK-LABEL: tt.func @wrap_rows
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<f16>, %[[PID:[^:]*]]: i32, %[[M:[^:]*]]: i32, %[[STRIDE:[^:]*]]: i32)
tt.func @wrap_rows(%p: !tt.ptr<f16>, %pid: i32, %m: i32, %stride: i32) -> tensor<16x8xf16> {
  %c16 = arith.constant 16 : i32
  %start = arith.muli %pid, %c16 : i32
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ss = tt.splat %start : i32 -> tensor<16xi32>
  %rows = arith.addi %ss, %r : tensor<16xi32>
  %sm = tt.splat %m : i32 -> tensor<16xi32>
  %wrapped = arith.remsi %rows, %sm : tensor<16xi32>
  %r2 = tt.expand_dims %wrapped {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %sst = tt.splat %stride : i32 -> tensor<16x1xi32>
  %rs = arith.muli %r2, %sst : tensor<16x1xi32>
  %rb = tt.broadcast %rs : tensor<16x1xi32> -> tensor<16x8xi32>
  %c = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %cb = tt.broadcast %c2 : tensor<1x8xi32> -> tensor<16x8xi32>
  %offs = arith.addi %rb, %cb : tensor<16x8xi32>
  %ps = tt.splat %p : !tt.ptr<f16> -> tensor<16x8x!tt.ptr<f16>>
  %pp = tt.addptr %ps, %offs : tensor<16x8x!tt.ptr<f16>>, tensor<16x8xi32>
  // CHECK-DAG: %[[ROW0:.*]] = arith.index_cast %{{.*}} : i32 to index
  // CHECK-DAG: %[[MI:.*]] = arith.index_cast %[[M]] : i32 to index
  // CHECK-DAG: %[[SI:.*]] = arith.index_cast %[[STRIDE]] : i32 to index
  // CHECK: tts.make_tptr %[[P]] to sizes: [16, 8], strides: [%[[SI]], 1], offsets: [%[[ROW0]], 0], parent_sizes: [%[[MI]], 0]
  %v = tt.load %pp : tensor<16x8x!tt.ptr<f16>>
  tt.return %v : tensor<16x8xf16>
}

// -----

// Wrap-around along the columns (matmul's offs_bn).
// CHECK-LABEL: tt.func @wrap_cols
tt.func @wrap_cols(%p: !tt.ptr<f32>, %start: i32, %n: i32, %stride: i32) -> tensor<4x32xf32> {
  %c = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ss = tt.splat %start : i32 -> tensor<32xi32>
  %cols = arith.addi %ss, %c : tensor<32xi32>
  %sn = tt.splat %n : i32 -> tensor<32xi32>
  %wrapped = arith.remsi %cols, %sn : tensor<32xi32>
  %c2 = tt.expand_dims %wrapped {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = tt.broadcast %c2 : tensor<1x32xi32> -> tensor<4x32xi32>
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %sst = tt.splat %stride : i32 -> tensor<4x1xi32>
  %rs = arith.muli %r2, %sst : tensor<4x1xi32>
  %rb = tt.broadcast %rs : tensor<4x1xi32> -> tensor<4x32xi32>
  %offs = arith.addi %rb, %cb : tensor<4x32xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4x32x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %offs : tensor<4x32x!tt.ptr<f32>>, tensor<4x32xi32>
  // CHECK: tts.make_tptr %{{.*}} to sizes: [4, 32], strides: [%{{.*}}, 1], offsets: [0, %{{.*}}], parent_sizes: [0, %{{.*}}]
  %v = tt.load %pp : tensor<4x32x!tt.ptr<f32>>
  tt.return %v : tensor<4x32xf32>
}

// -----

// A mask built by `<=` and a store through a transposed (column-major) tile.
// CHECK-LABEL: tt.func @store_le_mask
tt.func @store_le_mask(%p: !tt.ptr<f32>, %last: i32, %ld: i32, %v: tensor<8x4xf32>) {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %rb = tt.broadcast %r2 : tensor<8x1xi32> -> tensor<8x4xi32>
  %c = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %sld = tt.splat %ld : i32 -> tensor<1x4xi32>
  %cs = arith.muli %c2, %sld : tensor<1x4xi32>
  %cb = tt.broadcast %cs : tensor<1x4xi32> -> tensor<8x4xi32>
  %offs = arith.addi %rb, %cb : tensor<8x4xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<8x4x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %offs : tensor<8x4x!tt.ptr<f32>>, tensor<8x4xi32>
  %sl = tt.splat %last : i32 -> tensor<8x1xi32>
  %m = arith.cmpi sle, %r2, %sl : tensor<8x1xi32>
  %mb = tt.broadcast %m : tensor<8x1xi1> -> tensor<8x4xi1>
  // CHECK: arith.addi %{{.*}}, %c1 : index
  // CHECK: tts.make_tptr %{{.*}} to sizes: [8, 4], strides: [1, %{{.*}}], offsets: [0, 0], parent_sizes: [0, 0]
  // CHECK: tts.store %{{.*}}, %{{.*}} mask: [%{{.*}}, 4]
  tt.store %pp, %v, %mb : tensor<8x4x!tt.ptr<f32>>
  tt.return
}

// -----

// tt.reshape of a 1-D range into rows: row-major strides; of pointers: the same.
// CHECK-LABEL: tt.func @reshaped_range
tt.func @reshaped_range(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) -> (tensor<8x16xf32>, tensor<4x32xf32>) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %c2 = arith.constant dense<2> : tensor<128xi32>
  %r2 = arith.muli %r, %c2 : tensor<128xi32>
  %grid = tt.reshape %r2 : tensor<128xi32> -> tensor<8x16xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<8x16x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %grid : tensor<8x16x!tt.ptr<f32>>, tensor<8x16xi32>
  // CHECK: tts.make_tptr %{{.*}} to sizes: [8, 16], strides: [32, 2], offsets: [0, 0], parent_sizes: [0, 0]
  %v = tt.load %pp : tensor<8x16x!tt.ptr<f32>>
  %qs = tt.splat %q : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %qp = tt.addptr %qs, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %qr = tt.reshape %qp : tensor<128x!tt.ptr<f32>> -> tensor<4x32x!tt.ptr<f32>>
  // CHECK: tts.make_tptr %{{.*}} to sizes: [4, 32], strides: [32, 1], offsets: [0, 0], parent_sizes: [0, 0]
  %w = tt.load %qr : tensor<4x32x!tt.ptr<f32>>
  tt.return %v, %w : tensor<8x16xf32>, tensor<4x32xf32>
}
