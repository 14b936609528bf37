// Only contiguous blocks become vector tile loads (TileLoads.cpp): a masked load of every
// s-th element (p + offs * s) keeps its strided copy, as masked vector loads would read
// consecutive elements.
// RUN: tessel-compile %s --entry strided --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s --check-prefix=STRIDED
// STRIDED-LABEL: define void @strided(
// STRIDED-NOT: @llvm.masked.load
// STRIDED-LABEL: define void @strided__tessel_launch(
module {
  tt.func public @strided(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>, %n: i32, %s: i32) {
    %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
    %row = tt.get_program_id x : i32
    %offs = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %nn = tt.splat %n : i32 -> tensor<256xi32>
    %mask = arith.cmpi slt, %offs, %nn : tensor<256xi32>
    %ss = tt.splat %s : i32 -> tensor<256xi32>
    %scaled = arith.muli %offs, %ss : tensor<256xi32>
    %inrow = tt.addptr %in, %row : !tt.ptr<f32>, i32
    %inptrs0 = tt.splat %inrow : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %inptrs = tt.addptr %inptrs0, %scaled : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %inptrs, %mask, %ninf : tensor<256x!tt.ptr<f32>>
    %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.maxnumf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<256xf32>) -> f32
    %outp = tt.addptr %out, %row : !tt.ptr<f32>, i32
    tt.store %outp, %m : !tt.ptr<f32>
    tt.return
  }
}
