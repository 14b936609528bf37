// IR the pipeline does not support gets a diagnostic and a non-zero exit, never an abort.
// RUN: not tessel-opt %s --tessel-structured-pipeline 2>&1 | FileCheck %s
// CHECK: error: structured-to-memref: 'tt.int_to_ptr' is not supported here
module {
  tt.func public @from_int(%addr: i64, %out: !tt.ptr<f32>) {
    %p = tt.int_to_ptr %addr : i64 -> !tt.ptr<f32>
    %v = tt.load %p : !tt.ptr<f32>
    tt.store %out, %v : !tt.ptr<f32>
    tt.return
  }
}
