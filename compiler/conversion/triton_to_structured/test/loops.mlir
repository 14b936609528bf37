// RUN: tessel-opt %s --triton-to-structured -split-input-file | FileCheck %s

// A pointer carried through scf.for and advanced by a uniform step becomes an index offset;
// the pointer iter_arg disappears.
// CHECK-LABEL: tt.func @single_carried
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<f32>
tt.func @single_carried(%p: !tt.ptr<f32>, %k: i32) -> tensor<32xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant dense<32> : tensor<32xi32>
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  // CHECK: %[[RES:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[OFF:.*]] = %c0) -> (tensor<32xf32>, index)
  %res:2 = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero, %ptrs = %pp) -> (tensor<32xf32>, tensor<32x!tt.ptr<f32>>) : i32 {
    // CHECK: %[[OFF64:.*]] = arith.index_cast %[[OFF]] : index to i64
    // CHECK: %[[BASE:.*]] = tt.addptr %[[P]], %[[OFF64]]
    // CHECK: tts.make_tptr %[[BASE]] to sizes: [32], strides: [1], offsets: [0], parent_sizes: [0]
    %v = tt.load %ptrs : tensor<32x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<32xf32>
    %next = tt.addptr %ptrs, %c32 : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
    // CHECK: %[[NEXT:.*]] = arith.addi %[[OFF]], %c32 : index
    // CHECK: scf.yield %{{.*}}, %[[NEXT]] : tensor<32xf32>, index
    scf.yield %a, %next : tensor<32xf32>, tensor<32x!tt.ptr<f32>>
  }
  // CHECK-NOT: tt.load
  tt.return %res#0 : tensor<32xf32>
}

// -----

// Several carried pointers, one used after its increment inside the loop and one used after
// the loop.
// CHECK-LABEL: tt.func @several_carried
tt.func @several_carried(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %k: i32, %step: i32) -> tensor<16xf16> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %as = tt.splat %a : !tt.ptr<f16> -> tensor<16x!tt.ptr<f16>>
  %ap = tt.addptr %as, %r : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
  %bs = tt.splat %b : !tt.ptr<f16> -> tensor<16x!tt.ptr<f16>>
  %bp = tt.addptr %bs, %r : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
  %sstep = tt.splat %step : i32 -> tensor<16xi32>
  // CHECK: %[[FINAL:.*]]:2 = scf.for {{.*}} iter_args(%[[AO:.*]] = %c0, %[[BO:.*]] = %c0) -> (index, index)
  %res:2 = scf.for %i = %c0 to %k step %c1 iter_args(%pa = %ap, %pb = %bp) -> (tensor<16x!tt.ptr<f16>>, tensor<16x!tt.ptr<f16>>) : i32 {
    %na = tt.addptr %pa, %sstep : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
    // Used after the increment: the offset plus the step.
    // CHECK: %[[AFTER:.*]] = arith.addi %[[AO]], %{{.*}} : index
    // CHECK: %[[AFTER64:.*]] = arith.index_cast %[[AFTER]] : index to i64
    // CHECK: tt.addptr %{{.*}}, %[[AFTER64]]
    // CHECK: tts.load
    %v = tt.load %na : tensor<16x!tt.ptr<f16>>
    // CHECK: tts.store
    tt.store %pb, %v : tensor<16x!tt.ptr<f16>>
    %nb = tt.addptr %pb, %sstep : tensor<16x!tt.ptr<f16>>, tensor<16xi32>
    scf.yield %na, %nb : tensor<16x!tt.ptr<f16>>, tensor<16x!tt.ptr<f16>>
  }
  // After the loop: the final offset of `a`.
  // CHECK: arith.index_cast %[[FINAL]]#0 : index to i64
  // CHECK: tts.load
  %last = tt.load %res#0 : tensor<16x!tt.ptr<f16>>
  tt.return %last : tensor<16xf16>
}

// -----

// Nested loops: the inner loop's pointer starts from the outer loop's.
// CHECK-LABEL: tt.func @nested
tt.func @nested(%p: !tt.ptr<f32>, %n: i32, %m: i32, %ld: i32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c8 = arith.constant dense<8> : tensor<8xi32>
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %sld = tt.splat %ld : i32 -> tensor<8xi32>
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[OUTER:.*]] = %c0) -> (tensor<8xf32>, index)
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %row = %pp) -> (tensor<8xf32>, tensor<8x!tt.ptr<f32>>) : i32 {
    // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[INNER:.*]] = %[[OUTER]]) -> (tensor<8xf32>, index)
    %inner:2 = scf.for %j = %c0 to %m step %c1 iter_args(%acc2 = %acc, %col = %row) -> (tensor<8xf32>, tensor<8x!tt.ptr<f32>>) : i32 {
      // CHECK: arith.index_cast %[[INNER]] : index to i64
      // CHECK: tts.load
      %v = tt.load %col : tensor<8x!tt.ptr<f32>>
      %s = arith.addf %acc2, %v : tensor<8xf32>
      %nc = tt.addptr %col, %c8 : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
      scf.yield %s, %nc : tensor<8xf32>, tensor<8x!tt.ptr<f32>>
    }
    %nr = tt.addptr %row, %sld : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    scf.yield %inner#0, %nr : tensor<8xf32>, tensor<8x!tt.ptr<f32>>
  }
  // CHECK-NOT: tt.load
  tt.return %res#0 : tensor<8xf32>
}

// -----

// A carried pointer whose strides change each iteration is not structured: it stays, with a
// remark, and the load keeps its tt form.
// CHECK-LABEL: tt.func @changing_stride
tt.func @changing_stride(%p: !tt.ptr<f32>, %k: i32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  // CHECK: scf.for {{.*}} -> (tensor<4xf32>, tensor<4x!tt.ptr<f32>>)
  %res:2 = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero, %ptrs = %pp) -> (tensor<4xf32>, tensor<4x!tt.ptr<f32>>) : i32 {
    // CHECK: tt.load
    %v = tt.load %ptrs : tensor<4x!tt.ptr<f32>>
    %a = arith.addf %acc, %v : tensor<4xf32>
    %next = tt.addptr %ptrs, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    scf.yield %a, %next : tensor<4xf32>, tensor<4x!tt.ptr<f32>>
  }
  tt.return %res#0 : tensor<4xf32>
}
