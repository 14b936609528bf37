// An early return (unstructured control flow, as Triton emits for `if pid >= n: return`)
// goes through the whole lowering.
// RUN: tessel-opt %s --tessel-structured-pipeline | FileCheck %s
// CHECK-LABEL: func.func public @early_return
// CHECK: cf.cond_br
// CHECK: return
// CHECK: bufferization.materialize_in_destination
// CHECK-NOT: {{ tts?\.[a-z_]+}}
module {
  tt.func public @early_return(%p: !tt.ptr<f32>, %n: i32) {
    %pid = tt.get_program_id x : i32
    %done = arith.cmpi sge, %pid, %n : i32
    cf.cond_br %done, ^bb1, ^bb2
  ^bb1:
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
    tt.store %pp, %one : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}
