// The matmul register tile: a vectorized micro-kernel of FMAs on vectors of tileN elements,
// or plain loops with --matmul-tile=0,1,1.
// RUN: tessel-compile %s --entry mm --emit llvm -o - | FileCheck %s --check-prefix=TILED
// RUN: tessel-compile %s --entry mm --matmul-tile=4,16,1 --emit llvm -o - | FileCheck %s --check-prefix=TILE16
// RUN: tessel-compile %s --entry mm --matmul-tile=0,1,1 --emit llvm -o - | FileCheck %s --check-prefix=LOOPS
// RUN: not tessel-compile %s --entry mm --matmul-tile=8,0,1 --emit llvm -o - 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tessel-compile %s --entry mm --unroll=0 --emit llvm -o - 2>&1 | FileCheck %s --check-prefix=BADUNROLL
// TILED-DAG: define void @mm__tessel_launch(
// TILED-DAG: call <64 x float> @llvm.fmuladd.v64f32
// TILE16: call <16 x float> @llvm.fmuladd.v16f32
// LOOPS-NOT: @llvm.fmuladd.v64f32
// LOOPS-NOT: @llvm.fmuladd.v16f32
// BAD: tessel-compile: knob tile_n=0 is out of range (allowed: 1..128)
// BADUNROLL: tessel-compile: knob unroll=0 is out of range (allowed: 1..8)
module {
  tt.func public @mm(%a: !tt.ptr<f32>, %b: !tt.ptr<f32>, %c: !tt.ptr<f32>) {
    %zero = arith.constant dense<0.0> : tensor<32x64xf32>
    %r = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
    %k = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %n = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %c16 = arith.constant dense<16> : tensor<32x1xi32>
    %c64k = arith.constant dense<64> : tensor<16x1xi32>
    %c64r = arith.constant dense<64> : tensor<32x1xi32>
    %ar = tt.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
    %ars = arith.muli %ar, %c16 : tensor<32x1xi32>
    %arb = tt.broadcast %ars : tensor<32x1xi32> -> tensor<32x16xi32>
    %akc = tt.expand_dims %k {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
    %akb = tt.broadcast %akc : tensor<1x16xi32> -> tensor<32x16xi32>
    %aoff = arith.addi %arb, %akb : tensor<32x16xi32>
    %as = tt.splat %a : !tt.ptr<f32> -> tensor<32x16x!tt.ptr<f32>>
    %ap = tt.addptr %as, %aoff : tensor<32x16x!tt.ptr<f32>>, tensor<32x16xi32>
    %av = tt.load %ap : tensor<32x16x!tt.ptr<f32>>
    %bk = tt.expand_dims %k {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %bks = arith.muli %bk, %c64k : tensor<16x1xi32>
    %bkb = tt.broadcast %bks : tensor<16x1xi32> -> tensor<16x64xi32>
    %bn = tt.expand_dims %n {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %bnb = tt.broadcast %bn : tensor<1x64xi32> -> tensor<16x64xi32>
    %boff = arith.addi %bkb, %bnb : tensor<16x64xi32>
    %bs = tt.splat %b : !tt.ptr<f32> -> tensor<16x64x!tt.ptr<f32>>
    %bp = tt.addptr %bs, %boff : tensor<16x64x!tt.ptr<f32>>, tensor<16x64xi32>
    %bv = tt.load %bp : tensor<16x64x!tt.ptr<f32>>
    %d = tt.dot %av, %bv, %zero : tensor<32x16xf32> * tensor<16x64xf32> -> tensor<32x64xf32>
    %crs = arith.muli %ar, %c64r : tensor<32x1xi32>
    %crb = tt.broadcast %crs : tensor<32x1xi32> -> tensor<32x64xi32>
    %cnb = tt.broadcast %bn : tensor<1x64xi32> -> tensor<32x64xi32>
    %coff = arith.addi %crb, %cnb : tensor<32x64xi32>
    %cs = tt.splat %c : !tt.ptr<f32> -> tensor<32x64x!tt.ptr<f32>>
    %cp = tt.addptr %cs, %coff : tensor<32x64x!tt.ptr<f32>>, tensor<32x64xi32>
    tt.store %cp, %d : tensor<32x64x!tt.ptr<f32>>
    tt.return
  }
}
