// RUN: tessel-opt %s --triton-to-structured -split-input-file | FileCheck %s

// Vector add: pid * BLOCK + arange, masked by offs < n.
// CHECK-LABEL: tt.func @vadd
// CHECK-SAME: (%[[X:[^:]*]]: !tt.ptr<f32>, %[[Y:[^:]*]]: !tt.ptr<f32>, %[[O:[^:]*]]: !tt.ptr<f32>, %[[N:[^:]*]]: i32)
tt.func @vadd(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %c128 = arith.constant 128 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c128 : i32
  %range = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %sstart = tt.splat %start : i32 -> tensor<128xi32>
  %offs = arith.addi %sstart, %range : tensor<128xi32>
  %sn = tt.splat %n : i32 -> tensor<128xi32>
  %mask = arith.cmpi slt, %offs, %sn : tensor<128xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // CHECK: %[[START:.*]] = arith.index_cast %{{.*}} : i32 to index
  // CHECK: %[[BOUND:.*]] = arith.subi %{{.*}}, %[[START]] : index
  // CHECK: %[[LIM:.*]] = arith.minsi %[[BOUND]], %c128
  // CHECK: %[[M:.*]] = arith.maxsi %[[LIM]], %c0
  // CHECK: %[[XB:.*]] = tt.addptr %[[X]], %{{.*}} : !tt.ptr<f32>, i64
  // CHECK: %[[XT:.*]] = tts.make_tptr %[[XB]] to sizes: [128], strides: [1], offsets: [0], parent_sizes: [0] : !tt.ptr<f32> to tensor<128x!tt.ptr<f32>>
  // CHECK: tts.load %[[XT]] mask: [%[[M]]] : tensor<128x!tt.ptr<f32>> -> tensor<128xf32>
  %xv = tt.load %xp, %mask : tensor<128x!tt.ptr<f32>>
  %ys = tt.splat %y : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %yp = tt.addptr %ys, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // CHECK: tts.load %{{.*}} mask: [%[[M]]]
  %yv = tt.load %yp, %mask : tensor<128x!tt.ptr<f32>>
  %sum = arith.addf %xv, %yv : tensor<128xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  // CHECK: tts.store %{{.*}}, %{{.*}} mask: [%[[M]]] : tensor<128x!tt.ptr<f32>>
  // CHECK-NOT: tt.load
  // CHECK-NOT: tt.store
  tt.store %op, %sum, %mask : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// `other` carried over as a scalar; a strided 1-D access; `n > offs` written the other way.
// CHECK-LABEL: tt.func @strided_other
tt.func @strided_other(%p: !tt.ptr<f16>, %n: i32, %stride: i32) -> tensor<64xf16> {
  %range = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %sstride = tt.splat %stride : i32 -> tensor<64xi32>
  %offs = arith.muli %range, %sstride : tensor<64xi32>
  %sn = tt.splat %n : i32 -> tensor<64xi32>
  %mask = arith.cmpi sgt, %sn, %range : tensor<64xi32>
  %ps = tt.splat %p : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>
  %pp = tt.addptr %ps, %offs : tensor<64x!tt.ptr<f16>>, tensor<64xi32>
  %other = arith.constant dense<-1.0> : tensor<64xf16>
  // CHECK: %[[S:.*]] = arith.index_cast %{{.*}} : i32 to index
  // CHECK: %[[T:.*]] = tts.make_tptr %{{.*}} to sizes: [64], strides: [%[[S]]], offsets: [0], parent_sizes: [0]
  // CHECK: tts.load %[[T]] mask: [%{{.*}}] other = %{{.*}} : tensor<64x!tt.ptr<f16>> -> tensor<64xf16>
  %v = tt.load %pp, %mask, %other : tensor<64x!tt.ptr<f16>>
  tt.return %v : tensor<64xf16>
}

// -----

// An unmasked load of a constant range: everything static.
// CHECK-LABEL: tt.func @static_range
tt.func @static_range(%p: !tt.ptr<i32>) -> tensor<16xi32> {
  %range = tt.make_range {end = 24 : i32, start = 8 : i32} : tensor<16xi32>
  %ps = tt.splat %p : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>>
  %pp = tt.addptr %ps, %range : tensor<16x!tt.ptr<i32>>, tensor<16xi32>
  // CHECK: %[[B:.*]] = tt.addptr %{{.*}}, %c8_i64 : !tt.ptr<i32>, i64
  // CHECK: tts.make_tptr %[[B]] to sizes: [16], strides: [1], offsets: [0], parent_sizes: [0]
  // CHECK: tts.load %{{.*}} : tensor<16x!tt.ptr<i32>> -> tensor<16xi32>
  %v = tt.load %pp : tensor<16x!tt.ptr<i32>>
  tt.return %v : tensor<16xi32>
}
