// RUN: tessel-opt %s --triton-to-structured -split-input-file -verify-diagnostics | FileCheck %s

// Scalar accesses are re-rooted at their base pointer (one tt.addptr from the argument).
// CHECK-LABEL: tt.func @scalar_store
// CHECK-SAME: (%[[OUT:[^:]*]]: !tt.ptr<f32>, %[[ROW:[^:]*]]: i32, %{{.*}}: f32)
tt.func @scalar_store(%out: !tt.ptr<f32>, %row: i32, %v: f32) {
  %c4 = arith.constant 4 : i32
  %p1 = tt.addptr %out, %row : !tt.ptr<f32>, i32
  %p2 = tt.addptr %p1, %c4 : !tt.ptr<f32>, i32
  // CHECK: %[[R:.*]] = arith.index_cast %[[ROW]] : i32 to index
  // CHECK: %[[O:.*]] = arith.addi %[[R]], %c4 : index
  // CHECK: %[[O64:.*]] = arith.index_cast %[[O]] : index to i64
  // CHECK: %[[P:.*]] = tt.addptr %[[OUT]], %[[O64]] : !tt.ptr<f32>, i64
  // CHECK: tt.store %[[P]], %{{.*}} : !tt.ptr<f32>
  tt.store %p2, %v : !tt.ptr<f32>
  tt.return
}

// -----

// A scalar pointer carried through a loop is re-expressed by an index offset.
// CHECK-LABEL: tt.func @scalar_carried
tt.func @scalar_carried(%p: !tt.ptr<i32>, %n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[OFF:.*]] = %c0) -> (i32, index)
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0, %q = %p) -> (i32, !tt.ptr<i32>) : i32 {
    // CHECK: arith.index_cast %[[OFF]] : index to i64
    // CHECK: tt.load
    %v = tt.load %q : !tt.ptr<i32>
    %s = arith.addi %acc, %v : i32
    %nq = tt.addptr %q, %c1 : !tt.ptr<i32>, i32
    scf.yield %s, %nq : i32, !tt.ptr<i32>
  }
  tt.return %res#0 : i32
}

// -----

// A gather through loaded indices has no structured form: it stays as tt.load, with a remark.
// CHECK-LABEL: tt.func @gather_falls_back
tt.func @gather_falls_back(%table: !tt.ptr<f32>, %idx: !tt.ptr<i32>) -> tensor<8xf32> {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %is = tt.splat %idx : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>
  %ip = tt.addptr %is, %r : tensor<8x!tt.ptr<i32>>, tensor<8xi32>
  // CHECK: %[[I:.*]] = tts.load
  %i = tt.load %ip : tensor<8x!tt.ptr<i32>>
  %ts = tt.splat %table : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %tp = tt.addptr %ts, %i : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  // CHECK: tt.load %{{.*}} : tensor<8x!tt.ptr<f32>>
  // expected-remark @+1 {{left unstructured: offset computed by 'tts.load' has no structured form}}
  %v = tt.load %tp : tensor<8x!tt.ptr<f32>>
  tt.return %v : tensor<8xf32>
}

// -----

// An `or` of two row bounds on the same columns is a box (the larger bound).
// CHECK-LABEL: tt.func @or_mask_box
tt.func @or_mask_box(%p: !tt.ptr<f32>, %a: i32, %b: i32) -> tensor<16xf32> {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %sa = tt.splat %a : i32 -> tensor<16xi32>
  %sb = tt.splat %b : i32 -> tensor<16xi32>
  %m1 = arith.cmpi slt, %r, %sa : tensor<16xi32>
  %m2 = arith.cmpi slt, %r, %sb : tensor<16xi32>
  %m = arith.ori %m1, %m2 : tensor<16xi1>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  // The union: the larger of the two clamped bounds (not a clamp against %c0).
  // CHECK: %[[U:.*]] = arith.maxsi %{{[0-9]+}}, %{{[0-9]+}} : index
  // CHECK-NEXT: tts.make_tptr
  // CHECK-NEXT: tts.load %{{.*}} mask: [%[[U]]]
  %v = tt.load %pp, %m : tensor<16x!tt.ptr<f32>>
  tt.return %v : tensor<16xf32>
}

// -----

// An `or` of boxes that differ along two dimensions is not a box: the access stays
// unstructured.
// CHECK-LABEL: tt.func @or_mask_falls_back
tt.func @or_mask_falls_back(%p: !tt.ptr<f32>, %a: i32, %b: i32) -> tensor<4x8xf32> {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %c = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %r2 = tt.expand_dims %r {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
  %c2 = tt.expand_dims %c {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %sa = tt.splat %a : i32 -> tensor<4x1xi32>
  %sb = tt.splat %b : i32 -> tensor<1x8xi32>
  %m1 = arith.cmpi slt, %r2, %sa : tensor<4x1xi32>
  %m2 = arith.cmpi slt, %c2, %sb : tensor<1x8xi32>
  %m1b = tt.broadcast %m1 : tensor<4x1xi1> -> tensor<4x8xi1>
  %m2b = tt.broadcast %m2 : tensor<1x8xi1> -> tensor<4x8xi1>
  %m = arith.ori %m1b, %m2b : tensor<4x8xi1>
  %rb = tt.broadcast %r2 : tensor<4x1xi32> -> tensor<4x8xi32>
  %cb = tt.broadcast %c2 : tensor<1x8xi32> -> tensor<4x8xi32>
  %c8 = arith.constant dense<8> : tensor<4x8xi32>
  %rs = arith.muli %rb, %c8 : tensor<4x8xi32>
  %offs = arith.addi %rs, %cb : tensor<4x8xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4x8x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %offs : tensor<4x8x!tt.ptr<f32>>, tensor<4x8xi32>
  // CHECK: tt.load %{{.*}}, %{{.*}} : tensor<4x8x!tt.ptr<f32>>
  // expected-remark @+1 {{left unstructured: 'or' of masks that differ along two dimensions is not a box}}
  %v = tt.load %pp, %m : tensor<4x8x!tt.ptr<f32>>
  tt.return %v : tensor<4x8xf32>
}

// -----

// Pointers used under scf.if: the pointer is built outside, the access inside a branch.
// CHECK-LABEL: tt.func @load_in_if
tt.func @load_in_if(%p: !tt.ptr<f32>, %c: i1) -> tensor<32xf32> {
  %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<32x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<32x!tt.ptr<f32>>, tensor<32xi32>
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  // CHECK: scf.if
  // CHECK: tts.load
  // CHECK: else
  %v = scf.if %c -> tensor<32xf32> {
    %x = tt.load %pp : tensor<32x!tt.ptr<f32>>
    scf.yield %x : tensor<32xf32>
  } else {
    scf.yield %zero : tensor<32xf32>
  }
  tt.return %v : tensor<32xf32>
}
