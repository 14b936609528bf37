// A masked load into a tile buffer (TileLoads.cpp) is one loop of vector-wide masked loads
// that take `other` (-inf) past the mask's end: no memcpy call, no separate fill of the rest.
// The row max that reads the tile first is computed in the same loop (vector accumulators):
// here nothing else reads the tile, so no tile buffer is left at all. An unmasked load of a
// whole block is the same loop, without a call either.
// RUN: tessel-compile %s --entry masked --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s --check-prefix=MASKED
// RUN: tessel-compile %s --entry whole --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s --check-prefix=WHOLE
// MASKED-LABEL: define void @masked(
// MASKED-NOT: memcpy
// MASKED-NOT: alloca
// MASKED: call <16 x float> @llvm.masked.load.v16f32.p0(ptr {{.*}}, <16 x i1> %{{[0-9]+}}, <16 x float> splat (float 0xFFF0000000000000))
// MASKED-NOT: {{^[a-z._0-9]+:}}
// MASKED: @llvm.maxnum.v16f32
// MASKED-NOT: memcpy
// MASKED-NOT: alloca
// MASKED-NOT: store <16 x float> splat (float 0xFFF0000000000000)
// MASKED-LABEL: define void @masked__tessel_launch(
// WHOLE-LABEL: define void @whole(
// WHOLE-NOT: memcpy
// WHOLE-LABEL: define void @whole__tessel_launch(
module {
  tt.func public @masked(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>, %n: i32) {
    %ninf = arith.constant dense<0xFF800000> : tensor<256xf32>
    %row = tt.get_program_id x : i32
    %offs = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %nn = tt.splat %n : i32 -> tensor<256xi32>
    %mask = arith.cmpi slt, %offs, %nn : tensor<256xi32>
    %base = arith.muli %row, %n : i32
    %inrow = tt.addptr %in, %base : !tt.ptr<f32>, i32
    %inptrs0 = tt.splat %inrow : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %inptrs = tt.addptr %inptrs0, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
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
  tt.func public @whole(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>) {
    %row = tt.get_program_id x : i32
    %offs = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %c256 = arith.constant 256 : i32
    %base = arith.muli %row, %c256 : i32
    %inrow = tt.addptr %in, %base : !tt.ptr<f32>, i32
    %inptrs0 = tt.splat %inrow : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %inptrs = tt.addptr %inptrs0, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %inptrs : tensor<256x!tt.ptr<f32>>
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
