// Functions not marked noinline are inlined; a noinline callee stays a call, receives the grid
// arguments and its pointer argument as a memref.
// RUN: tessel-opt %s --tessel-structured-pipeline | FileCheck %s
// CHECK-NOT: func.func private @inlined
// CHECK-LABEL: func.func private @kept
// CHECK-SAME: (%{{.*}}: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) -> f32
// CHECK: memref.load
// CHECK-LABEL: func.func public @kernel
// CHECK: call @kept(
// CHECK-NOT: {{ tts?\.[a-z_]+}}
module {
  tt.func private @inlined(%x: tensor<16xf32>) -> tensor<16xf32> attributes {noinline = false} {
    %0 = arith.mulf %x, %x : tensor<16xf32>
    tt.return %0 : tensor<16xf32>
  }
  tt.func private @kept(%p: !tt.ptr<f32>, %i: i32) -> f32 attributes {noinline = true} {
    %q = tt.addptr %p, %i : !tt.ptr<f32>, i32
    %v = tt.load %q : !tt.ptr<f32>
    tt.return %v : f32
  }
  tt.func public @kernel(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>) attributes {noinline = false} {
    %c3 = arith.constant 3 : i32
    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %s = tt.splat %in : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %p = tt.addptr %s, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %x = tt.load %p : tensor<16x!tt.ptr<f32>>
    %y = tt.call @inlined(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %k = tt.call @kept(%in, %c3) : (!tt.ptr<f32>, i32) -> f32
    %ks = tt.splat %k : f32 -> tensor<16xf32>
    %z = arith.addf %y, %ks : tensor<16xf32>
    %os = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %o = tt.addptr %os, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %o, %z : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
