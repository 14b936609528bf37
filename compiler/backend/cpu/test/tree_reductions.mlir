// A horizontal max of a vector (llvm.vector.reduce.fmax, left by the loop vectorizer or the
// vector tile loads) becomes a tree of vector maxnum ops on halves after LLVM's pipeline
// (TreeReductions.cpp): log2(lanes) vector steps instead of one scalar step per lane.
// RUN: tessel-compile %s --entry row_max --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s
// CHECK-LABEL: define void @row_max(
// CHECK-NOT: llvm.vector.reduce.fmax
// CHECK: shufflevector <16 x float> %[[V:[0-9]+]], <16 x float> poison, <8 x i32> <i32 0, i32 1, i32 2, i32 3, i32 4, i32 5, i32 6, i32 7>
// CHECK-NEXT: shufflevector <16 x float> %[[V]], <16 x float> poison, <8 x i32> <i32 8,
// CHECK-NEXT: @llvm.maxnum.v8f32(
// CHECK: @llvm.maxnum.v4f32(
// CHECK: @llvm.maxnum.v2f32(
// CHECK-NOT: llvm.vector.reduce.fmax
// CHECK-LABEL: define void @row_max__tessel_launch(
module {
  tt.func public @row_max(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %stride: i32, %n: i32) {
    %ninf = arith.constant dense<0xFF800000> : tensor<1024xf32>
    %row = tt.get_program_id x : i32
    %offs = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    %start = arith.muli %row, %stride : i32
    %base = tt.addptr %x, %start : !tt.ptr<f32>, i32
    %bases = tt.splat %base : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>>
    %ptrs = tt.addptr %bases, %offs : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32>
    %ns = tt.splat %n : i32 -> tensor<1024xi32>
    %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
    %v = tt.load %ptrs, %mask, %ninf : tensor<1024x!tt.ptr<f32>>
    %m = "tt.reduce"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.maxnumf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<1024xf32>) -> f32
    %o = tt.addptr %out, %row : !tt.ptr<f32>, i32
    tt.store %o, %m : !tt.ptr<f32>
    tt.return
  }
}
