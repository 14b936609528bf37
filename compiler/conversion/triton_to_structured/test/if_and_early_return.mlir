// RUN: tessel-opt %s --triton-to-structured -split-input-file | FileCheck %s

// A pointer chosen by scf.if: both branches share base and strides, so the if yields the
// offset instead and the load after it is structured.
// CHECK-LABEL: tt.func @pointer_through_if
tt.func @pointer_through_if(%p: !tt.ptr<f32>, %c: i1, %k: i32) -> tensor<16xf32> {
  %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
  // CHECK: %[[OFF:.*]] = scf.if %{{.*}} -> (index)
  %q = scf.if %c -> tensor<16x!tt.ptr<f32>> {
    %sk = tt.splat %k : i32 -> tensor<16xi32>
    %moved = tt.addptr %pp, %sk : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    // CHECK: scf.yield %{{.*}} : index
    scf.yield %moved : tensor<16x!tt.ptr<f32>>
  } else {
    // CHECK: scf.yield %c0 : index
    scf.yield %pp : tensor<16x!tt.ptr<f32>>
  }
  // CHECK: %[[O64:.*]] = arith.index_cast %[[OFF]] : index to i64
  // CHECK: tt.addptr %{{.*}}, %[[O64]]
  // CHECK: tts.load
  // CHECK-NOT: tt.load
  %v = tt.load %q : tensor<16x!tt.ptr<f32>>
  tt.return %v : tensor<16xf32>
}

// -----

// Early return as Triton emits it for `if pid >= n: return` (unstructured control flow):
// accesses in each block are structured.
// CHECK-LABEL: tt.func public @early_return
tt.func public @early_return(%p: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %done = arith.cmpi sge, %pid, %n : i32
  cf.cond_br %done, ^bb1, ^bb2
^bb1:
  // CHECK: tt.return
  tt.return
^bb2:
  %c64 = arith.constant 64 : i32
  %s = arith.muli %pid, %c64 : i32
  %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %ss = tt.splat %s : i32 -> tensor<64xi32>
  %o = arith.addi %ss, %r : tensor<64xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %o : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  // CHECK: tts.make_tptr
  // CHECK: tts.store
  tt.store %pp, %one : tensor<64x!tt.ptr<f32>>
  tt.return
}
