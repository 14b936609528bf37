// Prefetching the next program's blocks (PrefetchMarkers.cpp, PrefetchPlacement.cpp; the
// `prefetch` knob): softmax's row (read) and output row (write) of program x + 1 are
// prefetched a few lines per iteration of the exp loop, the loop that does the most work, not
// back to back. Off by default.
// RUN: tessel-compile %s --entry softmax --target cpu:sapphirerapids --emit llvm --prefetch=1 -o - | FileCheck %s
// RUN: tessel-compile %s --entry softmax --target cpu:sapphirerapids --emit llvm -o - | FileCheck %s --check-prefix=OFF
// The kernel is inlined into its program loop; the markers are gone.
// CHECK-LABEL: define void @softmax__tessel_launch(
// CHECK-NOT: call void @softmax(
// CHECK: %prefetch.iteration{{[0-9]*}} = phi i64 [ 0,
// CHECK-NOT: {{^[a-z._0-9]+:}}
// CHECK: call void @llvm.prefetch.p0(ptr %{{[0-9]+}}, i32 1, i32 3, i32 1)
// CHECK-NOT: {{^[a-z._0-9]+:}}
// CHECK: call void @llvm.prefetch.p0(ptr %{{[0-9]+}}, i32 0, i32 3, i32 1)
// CHECK-NOT: {{^[a-z._0-9]+:}}
// CHECK: @llvm.ldexp
// CHECK-NOT: __tessel_prefetch
// OFF-NOT: prefetch
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
