// RUN: tessel-opt %s --triton-to-structured -split-input-file | FileCheck %s

// tt.make_tensor_ptr + tt.advance in a loop: the block offsets are carried as indices; a
// boundary check becomes mask dims that end at the parent's edge, padding zero the `other`.
// CHECK-LABEL: tt.func @block_matmul_operand
// CHECK-SAME: (%[[A:[^:]*]]: !tt.ptr<f16>, %[[M:[^:]*]]: i64, %[[K:[^:]*]]: i64, %[[SM:[^:]*]]: i64, %[[ROW:[^:]*]]: i32, %[[N:[^:]*]]: i32)
tt.func @block_matmul_operand(%a: !tt.ptr<f16>, %m: i64, %k: i64, %sm: i64, %row: i32, %n: i32) -> tensor<64x32xf16> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %one = arith.constant 1 : i64
  %zero = arith.constant dense<0.0> : tensor<64x32xf16>
  %blk = tt.make_tensor_ptr %a, [%m, %k], [%sm, %one], [%row, %c0] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
  // CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[KOFF:.*]] = %c0) -> (tensor<64x32xf16>, index)
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %blk) -> (tensor<64x32xf16>, !tt.ptr<tensor<64x32xf16>>) : i32 {
    // CHECK: %[[RB:.*]] = arith.subi %{{.*}}, %{{.*}} : index
    // CHECK: %[[KB:.*]] = arith.subi %{{.*}}, %[[KOFF]] : index
    // CHECK: %[[T:.*]] = tts.make_tptr %[[A]] to sizes: [64, 32], strides: [%{{.*}}, 1], offsets: [%{{.*}}, %[[KOFF]]], parent_sizes: [%{{.*}}, %{{.*}}], order: [1, 0] : !tt.ptr<f16> to !tt.ptr<tensor<64x32xf16>>
    // CHECK: tts.load %[[T]] mask: [%{{.*}}, %{{.*}}] other = %{{.*}} : !tt.ptr<tensor<64x32xf16>> -> tensor<64x32xf16>
    %v = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<64x32xf16>>
    %s = arith.addf %acc, %v : tensor<64x32xf16>
    %next = tt.advance %p, [%c0, %c32] : <tensor<64x32xf16>>
    // CHECK: %[[NK:.*]] = arith.addi %[[KOFF]], %c32 : index
    // CHECK: scf.yield %{{.*}}, %[[NK]]
    scf.yield %s, %next : tensor<64x32xf16>, !tt.ptr<tensor<64x32xf16>>
  }
  tt.return %res#0 : tensor<64x32xf16>
}

// -----

// A block-pointer store without a boundary check has no mask.
// CHECK-LABEL: tt.func @block_store
tt.func @block_store(%c: !tt.ptr<f32>, %m: i64, %n: i64, %ld: i64, %r: i32, %col: i32, %v: tensor<16x16xf32>) {
  %one = arith.constant 1 : i64
  %blk = tt.make_tensor_ptr %c, [%m, %n], [%ld, %one], [%r, %col] {order = array<i32: 1, 0>} : <tensor<16x16xf32>>
  // CHECK: tts.make_tptr %{{.*}} to sizes: [16, 16], strides: [%{{.*}}, 1], offsets: [%{{.*}}, %{{.*}}], parent_sizes: [%{{.*}}, %{{.*}}], order: [1, 0]
  // CHECK: tts.store %{{.*}}, %{{.*}} : !tt.ptr<tensor<16x16xf32>>
  tt.store %blk, %v : !tt.ptr<tensor<16x16xf32>>
  // CHECK: tts.store %{{.*}}, %{{.*}} mask: [16, %{{.*}}] : !tt.ptr<tensor<16x16xf32>>
  tt.store %blk, %v {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<16x16xf32>>
  tt.return
}
