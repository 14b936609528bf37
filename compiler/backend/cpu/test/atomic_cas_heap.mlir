// tl.atomic_cas (memref.generic_atomic_rmw) in a kernel whose 128x256 f32 tile (128 KiB) stays on
// the heap: deallocation analysis cannot handle the atomic, so the compiler says so instead of
// failing inside the pass pipeline.
// RUN: not tessel-compile %s --entry k --emit llvm -o - 2>&1 | FileCheck %s
// CHECK: error: tl.atomic_cas in a kernel whose tiles need heap buffers (over 64 KiB) is not supported; use smaller blocks
module {
  tt.func public @k(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<i32>, %arg2: !tt.ptr<f32>) attributes {noinline = false} {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %2 = tt.expand_dims %0 {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %c256_i32 = arith.constant 256 : i32
    %3 = tt.splat %c256_i32 : i32 -> tensor<128x1xi32>
    %4 = arith.muli %2, %3 : tensor<128x1xi32>
    %5 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x1x!tt.ptr<f32>>
    %6 = tt.addptr %5, %4 : tensor<128x1x!tt.ptr<f32>>, tensor<128x1xi32>
    %7 = tt.expand_dims %1 {axis = 0 : i32} : tensor<256xi32> -> tensor<1x256xi32>
    %8 = tt.broadcast %6 : tensor<128x1x!tt.ptr<f32>> -> tensor<128x256x!tt.ptr<f32>>
    %9 = tt.broadcast %7 : tensor<1x256xi32> -> tensor<128x256xi32>
    %10 = tt.addptr %8, %9 : tensor<128x256x!tt.ptr<f32>>, tensor<128x256xi32>
    %11 = tt.load %10 : tensor<128x256x!tt.ptr<f32>>
    %12 = "tt.reduce"(%11) <{axis = 1 : i32}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %17 = arith.addf %arg3, %arg4 : f32
      tt.reduce.return %17 : f32
    }) : (tensor<128x256xf32>) -> tensor<128xf32>
    %13 = "tt.reduce"(%12) <{axis = 0 : i32}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %17 = arith.addf %arg3, %arg4 : f32
      tt.reduce.return %17 : f32
    }) : (tensor<128xf32>) -> f32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %14 = tt.atomic_cas acq_rel, gpu, %arg1, %c0_i32, %c1_i32 : (!tt.ptr<i32>, i32, i32) -> i32
    %15 = arith.sitofp %14 : i32 to f32
    %16 = arith.addf %13, %15 : f32
    tt.store %arg2, %16 : !tt.ptr<f32>
    tt.return
  }
}
