// IR the pipeline does not support gets a diagnostic and a non-zero exit, never an abort: a
// tensor of addresses converted to pointers (one scalar address is a root of its own) has no
// memory to view.
// RUN: not tessel-opt %s --tessel-structured-pipeline 2>&1 | FileCheck %s
// CHECK: error: structured-to-memref: a tensor of addresses converted to pointers has no root memory
module {
  tt.func public @from_ints(%addr: i64, %out: !tt.ptr<f32>) {
    %a = tt.splat %addr : i64 -> tensor<8xi64>
    %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
    %o = arith.extsi %r : tensor<8xi32> to tensor<8xi64>
    %s = arith.addi %a, %o : tensor<8xi64>
    %p = tt.int_to_ptr %s : tensor<8xi64> -> tensor<8x!tt.ptr<f32>>
    %v = tt.load %p : tensor<8x!tt.ptr<f32>>
    %q = tt.splat %out : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
    %qs = tt.addptr %q, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
    tt.store %qs, %v : tensor<8x!tt.ptr<f32>>
    tt.return
  }
}
