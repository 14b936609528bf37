// Prefetching a 2-D block (16 rows of 64 f32 at a runtime row stride) of the next program:
// 64 lines over the 16 iterations of the row loop, 4 per iteration, each line's row found by
// division. The bias vector is the same for every program (its offset does not involve the
// program id): not prefetched. The output (16 f32, one line) is prefetched for writing.
// RUN: tessel-compile %s --entry rows2d --target cpu:sapphirerapids --emit llvm --prefetch=2 -o - | FileCheck %s
// CHECK-LABEL: define void @rows2d__tessel_launch(
// CHECK: %prefetch.iteration{{[0-9]*}} = phi i64 [ 0,
// CHECK-NOT: {{^[a-z._0-9]+:}}
// CHECK: call void @llvm.prefetch.p0(ptr %{{[0-9]+}}, i32 1, i32 3, i32 1)
// CHECK-NOT: {{^[a-z._0-9]+:}}
// CHECK-COUNT-4: call void @llvm.prefetch.p0(ptr %{{[0-9]+}}, i32 0, i32 3, i32 1)
// CHECK-NOT: prefetch.p0
// CHECK: {{^[a-z._0-9]+:}}
// CHECK-NOT: prefetch.p0
// CHECK: ret void
module {
  tt.func public @rows2d(%out: !tt.ptr<f32>, %in: !tt.ptr<f32>, %bias: !tt.ptr<f32>, %n: i32) {
    %pid = tt.get_program_id x : i32
    %c16 = arith.constant 16 : i32
    %r0 = arith.muli %pid, %c16 : i32
    %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %cols = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %r0s = tt.splat %r0 : i32 -> tensor<16xi32>
    %rr = arith.addi %r0s, %rows : tensor<16xi32>
    %ns = tt.splat %n : i32 -> tensor<16xi32>
    %roff = arith.muli %rr, %ns : tensor<16xi32>
    %roff2 = tt.expand_dims %roff {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %rb = tt.broadcast %roff2 : tensor<16x1xi32> -> tensor<16x64xi32>
    %c2 = tt.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cb = tt.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
    %off = arith.addi %rb, %cb : tensor<16x64xi32>
    %base = tt.splat %in : !tt.ptr<f32> -> tensor<16x64x!tt.ptr<f32>>
    %ptrs = tt.addptr %base, %off : tensor<16x64x!tt.ptr<f32>>, tensor<16x64xi32>
    %x = tt.load %ptrs : tensor<16x64x!tt.ptr<f32>>
    %e = math.exp %x : tensor<16x64xf32>
    %s = "tt.reduce"(%e) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      tt.reduce.return %r : f32
    }) : (tensor<16x64xf32>) -> tensor<16xf32>
    %bbase = tt.splat %bias : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %bptrs = tt.addptr %bbase, %rows : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    %bv = tt.load %bptrs : tensor<16x!tt.ptr<f32>>
    %y = arith.addf %s, %bv : tensor<16xf32>
    %obase = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %optrs = tt.addptr %obase, %rr : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %optrs, %y : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}
