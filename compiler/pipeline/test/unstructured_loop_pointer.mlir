// A pointer carried by a loop whose strides change each iteration cannot be structured; the
// loop then carries a tensor of offsets and the loads become per-element gathers.
// RUN: tessel-opt %s --tessel-structured-pipeline | FileCheck %s
// CHECK-LABEL: func.func public @changing_stride
// CHECK: scf.for {{.*}} -> (tensor<4xf32>, tensor<4xindex>)
// CHECK: memref.load
// CHECK-NOT: {{ tts?\.[a-z_]+}}
module {
  tt.func public @changing_stride(%p: !tt.ptr<f32>, %out: !tt.ptr<f32>, %k: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<4xf32>
    %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %ps = tt.splat %p : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %pp = tt.addptr %ps, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %res:2 = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero, %ptrs = %pp) -> (tensor<4xf32>, tensor<4x!tt.ptr<f32>>) : i32 {
      %v = tt.load %ptrs : tensor<4x!tt.ptr<f32>>
      %a = arith.addf %acc, %v : tensor<4xf32>
      %next = tt.addptr %ptrs, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
      scf.yield %a, %next : tensor<4xf32>, tensor<4x!tt.ptr<f32>>
    }
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %op = tt.addptr %os, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %op, %res#0 : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
