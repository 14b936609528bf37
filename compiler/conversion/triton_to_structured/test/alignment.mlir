// AxisInfo feeds the lowering: a tile whose first element is proven aligned (from
// tt.divisibility and the offset arithmetic) carries tessel.alignment, which
// structured-to-memref turns into memref.assume_alignment for the backend.
// RUN: tessel-opt %s --triton-to-structured -split-input-file | FileCheck %s
// RUN: tessel-opt %s --tessel-structured-pipeline -split-input-file | FileCheck %s --check-prefix=MEMREF

// 16-byte aligned base, offsets pid * 128 + range: the first element is 16-byte aligned.
// CHECK-LABEL: tt.func public @aligned
// CHECK: tts.make_tptr {{.*}} {tessel.alignment = 16 : i64}
// MEMREF-LABEL: func.func public @aligned
// MEMREF: memref.assume_alignment %{{.*}}, 16
tt.func public @aligned(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %c128 = arith.constant 128 : i32
  %pid = tt.get_program_id x : i32
  %s = arith.muli %pid, %c128 : i32
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %ss = tt.splat %s : i32 -> tensor<128xi32>
  %offs = arith.addi %ss, %r : tensor<128xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %v = tt.load %pp : tensor<128x!tt.ptr<f32>>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %op = tt.addptr %os, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %op, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}

// -----

// An odd element offset breaks the alignment: no attribute, no assumption.
// CHECK-LABEL: tt.func public @misaligned
// CHECK-NOT: tessel.alignment
// MEMREF-LABEL: func.func public @misaligned
// MEMREF-NOT: memref.assume_alignment
tt.func public @misaligned(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %o: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
  %r = tt.make_range {end = 129 : i32, start = 1 : i32} : tensor<128xi32>
  %ps = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  %v = tt.load %pp : tensor<128x!tt.ptr<f32>>
  %os = tt.splat %o : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %op = tt.addptr %os, %r : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
  tt.store %op, %v : tensor<128x!tt.ptr<f32>>
  tt.return
}
