// RUN: tessel-opt %s --triton-arith-to-linalg -split-input-file | FileCheck %s

// Program ids and grid sizes become six trailing i32 arguments.
// CHECK-LABEL: func.func public @kernel
// CHECK-SAME: (%[[P:[^:]*]]: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %[[N:[^:]*]]: i32, %[[PX:[^:]*]]: i32, %[[PY:[^:]*]]: i32, %[[PZ:[^:]*]]: i32, %[[NX:[^:]*]]: i32, %[[NY:[^:]*]]: i32, %[[NZ:[^:]*]]: i32) -> i32
// CHECK: %[[S:.*]] = arith.addi %[[PZ]], %[[NY]] : i32
// CHECK: return %[[S]]
tt.func public @kernel(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) -> i32 attributes {noinline = false} {
  %0 = tt.get_program_id z : i32
  %1 = tt.get_num_programs y : i32
  %2 = arith.addi %0, %1 : i32
  tt.return %2 : i32
}

// -----

// A noinline callee keeps its call; the call forwards the caller's grid arguments.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) -> f32 attributes {no_inline, noinline = true}
tt.func private @helper(%x: f32) -> f32 attributes {noinline = true} {
  %pid = tt.get_program_id x : i32
  %f = arith.sitofp %pid : i32 to f32
  %r = arith.addf %x, %f : f32
  tt.return %r : f32
}
// CHECK-LABEL: func.func public @caller
// CHECK-SAME: (%[[X:[^:]*]]: f32, %[[G0:[^:]*]]: i32, %[[G1:[^:]*]]: i32, %[[G2:[^:]*]]: i32, %[[G3:[^:]*]]: i32, %[[G4:[^:]*]]: i32, %[[G5:[^:]*]]: i32) -> f32
// CHECK: %[[R:.*]] = call @helper(%[[X]], %[[G0]], %[[G1]], %[[G2]], %[[G3]], %[[G4]], %[[G5]]) : (f32, i32, i32, i32, i32, i32, i32) -> f32
// CHECK: return %[[R]] : f32
tt.func public @caller(%x: f32) -> f32 {
  %r = tt.call @helper(%x) : (f32) -> f32
  tt.return %r : f32
}
