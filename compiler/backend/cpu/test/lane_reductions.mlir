// A reduction of two operands (argmax: the value and its index; no neutral element) is reduced
// lane by lane (LaneReductions.cpp): the loop over a row keeps 16 (value, index) accumulators
// and LLVM vectorizes it into selects on vectors, where the element-by-element chain stayed
// scalar.
// RUN: tessel-compile %s --entry row_argmax --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s
// CHECK-LABEL: define void @row_argmax(
// CHECK: select <{{8|16}} x i1> %{{.*}}, <{{8|16}} x float>
// CHECK: select <{{8|16}} x i1> %{{.*}}, <{{8|16}} x i32>
// CHECK-LABEL: define void @row_argmax__tessel_launch(
module {
  tt.func public @row_argmax(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<i32>, %arg2: i32) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    %1 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %2 = arith.muli %0, %arg2 : i32
    %3 = tt.addptr %arg0, %2 : !tt.ptr<f32>, i32
    %4 = tt.splat %3 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %5 = tt.addptr %4, %1 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %6 = tt.splat %arg2 : i32 -> tensor<256xi32>
    %7 = arith.cmpi slt, %1, %6 : tensor<256xi32>
    %cst = arith.constant 0xFF800000 : f32
    %8 = tt.splat %cst : f32 -> tensor<256xf32>
    %9 = tt.load %5, %7, %8 : tensor<256x!tt.ptr<f32>>
    %10 = tt.addptr %arg1, %0 : !tt.ptr<i32>, i32
    %11 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %12:2 = "tt.reduce"(%9, %11) <{axis = 0 : i32}> ({
    ^bb0(%arg3: f32, %arg4: i32, %arg5: f32, %arg6: i32):
      %13 = arith.cmpf oeq, %arg3, %arg5 : f32
      %14 = arith.cmpf ogt, %arg3, %arg5 : f32
      %15 = arith.cmpi slt, %arg4, %arg6 : i32
      %16 = arith.andi %13, %15 : i1
      %17 = arith.ori %14, %16 : i1
      %18 = arith.select %17, %arg3, %arg5 : f32
      %19 = arith.select %17, %arg4, %arg6 : i32
      tt.reduce.return %18, %19 : f32, i32
    }) : (tensor<256xf32>, tensor<256xi32>) -> (f32, i32)
    tt.store %10, %12#1 : !tt.ptr<i32>
    tt.return
  }
}
