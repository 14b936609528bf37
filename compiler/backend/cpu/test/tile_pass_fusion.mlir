// Fewer passes over a tile (Fusion.cpp): softmax's exp and its row sum are one loop, the
// division writes the output row directly (the only copy left is the masked load into the
// tile, as vector loads: TileLoads.cpp), and the exp overwrites the loaded row in place (one
// tile buffer).
// RUN: tessel-compile %s --entry softmax --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s
// CHECK-LABEL: define void @softmax(
// CHECK: alloca [256 x float]
// CHECK-NOT: alloca
// CHECK: @llvm.masked.load
// CHECK-NOT: call void @llvm.memcpy
// CHECK-NOT: alloca
// CHECK: @llvm.ldexp
// CHECK-NOT: {{^[a-z._0-9]+:}}
// CHECK: fadd reassoc
// CHECK-NOT: call void @llvm.memcpy
// CHECK-NOT: alloca
// CHECK-LABEL: define void @softmax__tessel_launch(
module {
  tt.func public @softmax(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>, %n: i32) {
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
    %ms = tt.splat %m : f32 -> tensor<256xf32>
    %d = arith.subf %x, %ms : tensor<256xf32>
    %e = math.exp %d : tensor<256xf32>
    %s = "tt.reduce"(%e) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<256xf32>) -> f32
    %ss = tt.splat %s : f32 -> tensor<256xf32>
    %y = arith.divf %e, %ss : tensor<256xf32>
    %outrow = tt.addptr %out, %base : !tt.ptr<f32>, i32
    %outptrs0 = tt.splat %outrow : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %outptrs = tt.addptr %outptrs0, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %outptrs, %y, %mask : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}
