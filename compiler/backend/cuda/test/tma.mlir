// TMA loads of a matmul's operand tiles (knob tma, sm_90a; TileCopies.h: TmaLoads). The zoo's
// matmul (kernels/matmul/matmul.py as tessel's frontend prints it; 64 x 64 x 64 blocks, 4
// warps, stride_ak = stride_bn = stride_cn = 1): each tile's copies read one argument at a pitch
// an argument holds (stride_am, stride_bk), so the kernel takes a 128-byte tensor map for each
// (a grid constant) and their mask after the signature's arguments, thread 0 issues a 64 x 64
// box load (128-byte rows, the 128-byte swizzle) after mbarrier.arrive.expect_tx where one
// copy covers the tile, and the readers wait on the slot's mbarrier phase; the artifact says
// which argument each map is over. The box's row and column come from the copy's offset by a
// multiply, its multiplier and shifts made once from the pitch at the entry (clz, one 64-bit
// division there, none in the loop). Without the knob, cp.async only.
// RUN: tessel-compile %s --entry matmul --target cuda:sm_90a --knob num_warps=4 --knob num_stages=2 --knob tma=1 --emit artifact -o - | FileCheck %s --check-prefix=ARTIFACT
// RUN: tessel-compile %s --entry matmul --target cuda:sm_90a --knob num_warps=4 --knob num_stages=2 --knob tma=1 --emit ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tessel-compile %s --entry matmul --target cuda:sm_90a --knob num_warps=4 --knob num_stages=2 --emit ptx -o - | FileCheck %s --check-prefix=NONE
// RUN: not tessel-compile %s --entry matmul --target cuda:sm_90a --knob tma=1 --knob persistent=1 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=PERSISTENT
// PERSISTENT: knob tma=1 does not combine with persistent > 0 yet

// ARTIFACT: "tensor_maps": [
// ARTIFACT: "box": [
// ARTIFACT-NEXT: 64,
// ARTIFACT-NEXT: 64
// ARTIFACT: "element_bytes": 2,
// ARTIFACT-NEXT: "pitch_argument": 6,
// ARTIFACT-NEXT: "pointer": 0,
// ARTIFACT-NEXT: "swizzle": 128
// ARTIFACT: "pitch_argument": 7,
// ARTIFACT-NEXT: "pointer": 1,

// PTX: .param .u32 matmul_param_8,
// PTX-NEXT: .param .align 64 .b8 matmul_param_9[128],
// PTX-NEXT: .param .align 64 .b8 matmul_param_10[128],
// PTX-NEXT: .param .u32 matmul_param_11
// PTX: clz.b32
// PTX: div.u64
// PTX: clz.b32
// PTX: div.u64
// PTX: mbarrier.init.shared.b64
// PTX: mbarrier.arrive.expect_tx.shared.b64
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX: mbarrier.try_wait.parity
// (A rem. is left in the loop: the gather of a tile that wraps around more than once, a
// branch the fast path never takes.)
// PTX-NOT: div.
// PTX: ret;

// NONE-NOT: cp.async.bulk.tensor
// NONE-NOT: mbarrier
// NONE: cp.async.cg.shared.global
// NONE-NOT: cp.async.bulk.tensor

module {
  tt.func public @matmul(%arg0: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg1: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg2: !tt.ptr<bf16> {tt.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: i32, %arg8: i32) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    %c64_i32 = arith.constant 64 : i32
    %1 = arith.addi %arg3, %c64_i32 : i32
    %c1_i32 = arith.constant 1 : i32
    %2 = arith.subi %1, %c1_i32 : i32
    %c64_i32_0 = arith.constant 64 : i32
    %3 = arith.divsi %2, %c64_i32_0 : i32
    %c64_i32_1 = arith.constant 64 : i32
    %4 = arith.addi %arg4, %c64_i32_1 : i32
    %c1_i32_2 = arith.constant 1 : i32
    %5 = arith.subi %4, %c1_i32_2 : i32
    %c64_i32_3 = arith.constant 64 : i32
    %6 = arith.divsi %5, %c64_i32_3 : i32
    %c8_i32 = arith.constant 8 : i32
    %7 = arith.muli %c8_i32, %6 : i32
    %8 = arith.divsi %0, %7 : i32
    %c8_i32_4 = arith.constant 8 : i32
    %9 = arith.muli %8, %c8_i32_4 : i32
    %10 = arith.subi %3, %9 : i32
    %c8_i32_5 = arith.constant 8 : i32
    %c8_i32_6 = arith.constant 8 : i32
    %11 = arith.minsi %10, %c8_i32_6 : i32
    %12 = arith.remsi %0, %7 : i32
    %13 = arith.remsi %12, %11 : i32
    %14 = arith.addi %9, %13 : i32
    %15 = arith.remsi %0, %7 : i32
    %16 = arith.divsi %15, %11 : i32
    %c64_i32_7 = arith.constant 64 : i32
    %17 = arith.muli %14, %c64_i32_7 : i32
    %18 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %19 = tt.splat %17 : i32 -> tensor<64xi32>
    %20 = arith.addi %19, %18 : tensor<64xi32>
    %21 = tt.splat %arg3 : i32 -> tensor<64xi32>
    %22 = arith.remsi %20, %21 : tensor<64xi32>
    %c64_i32_8 = arith.constant 64 : i32
    %23 = arith.muli %16, %c64_i32_8 : i32
    %24 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %25 = tt.splat %23 : i32 -> tensor<64xi32>
    %26 = arith.addi %25, %24 : tensor<64xi32>
    %27 = tt.splat %arg4 : i32 -> tensor<64xi32>
    %28 = arith.remsi %26, %27 : tensor<64xi32>
    %29 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %30 = tt.expand_dims %22 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %31 = tt.splat %arg6 : i32 -> tensor<64x1xi32>
    %32 = arith.muli %30, %31 : tensor<64x1xi32>
    %33 = tt.expand_dims %29 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c1_i32_9 = arith.constant 1 : i32
    %34 = tt.splat %c1_i32_9 : i32 -> tensor<1x64xi32>
    %35 = arith.muli %33, %34 : tensor<1x64xi32>
    %36 = tt.broadcast %32 : tensor<64x1xi32> -> tensor<64x64xi32>
    %37 = tt.broadcast %35 : tensor<1x64xi32> -> tensor<64x64xi32>
    %38 = arith.addi %36, %37 : tensor<64x64xi32>
    %39 = tt.splat %arg0 : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %40 = tt.addptr %39, %38 : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %41 = tt.expand_dims %29 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %42 = tt.splat %arg7 : i32 -> tensor<64x1xi32>
    %43 = arith.muli %41, %42 : tensor<64x1xi32>
    %44 = tt.expand_dims %28 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c1_i32_10 = arith.constant 1 : i32
    %45 = tt.splat %c1_i32_10 : i32 -> tensor<1x64xi32>
    %46 = arith.muli %44, %45 : tensor<1x64xi32>
    %47 = tt.broadcast %43 : tensor<64x1xi32> -> tensor<64x64xi32>
    %48 = tt.broadcast %46 : tensor<1x64xi32> -> tensor<64x64xi32>
    %49 = arith.addi %47, %48 : tensor<64x64xi32>
    %50 = tt.splat %arg1 : !tt.ptr<bf16> -> tensor<64x64x!tt.ptr<bf16>>
    %51 = tt.addptr %50, %49 : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %c64_i32_11 = arith.constant 64 : i32
    %52 = arith.addi %arg5, %c64_i32_11 : i32
    %c1_i32_12 = arith.constant 1 : i32
    %53 = arith.subi %52, %c1_i32_12 : i32
    %c64_i32_13 = arith.constant 64 : i32
    %54 = arith.divsi %53, %c64_i32_13 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32_14 = arith.constant 1 : i32
    %55:3 = scf.for %arg9 = %c0_i32 to %54 step %c1_i32_14 iter_args(%arg10 = %cst, %arg11 = %40, %arg12 = %51) -> (tensor<64x64xf32>, tensor<64x64x!tt.ptr<bf16>>, tensor<64x64x!tt.ptr<bf16>>)  : i32 {
      %85 = tt.expand_dims %29 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
      %c64_i32_18 = arith.constant 64 : i32
      %86 = arith.muli %arg9, %c64_i32_18 : i32
      %87 = arith.subi %arg5, %86 : i32
      %88 = tt.splat %87 : i32 -> tensor<1x64xi32>
      %89 = arith.cmpi slt, %85, %88 : tensor<1x64xi32>
      %90 = tt.broadcast %89 : tensor<1x64xi1> -> tensor<64x64xi1>
      %cst_19 = arith.constant 0.000000e+00 : f32
      %91 = arith.truncf %cst_19 : f32 to bf16
      %92 = tt.splat %91 : bf16 -> tensor<64x64xbf16>
      %93 = tt.load %arg11, %90, %92 : tensor<64x64x!tt.ptr<bf16>>
      %94 = tt.expand_dims %29 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
      %c64_i32_20 = arith.constant 64 : i32
      %95 = arith.muli %arg9, %c64_i32_20 : i32
      %96 = arith.subi %arg5, %95 : i32
      %97 = tt.splat %96 : i32 -> tensor<64x1xi32>
      %98 = arith.cmpi slt, %94, %97 : tensor<64x1xi32>
      %99 = tt.broadcast %98 : tensor<64x1xi1> -> tensor<64x64xi1>
      %cst_21 = arith.constant 0.000000e+00 : f32
      %100 = arith.truncf %cst_21 : f32 to bf16
      %101 = tt.splat %100 : bf16 -> tensor<64x64xbf16>
      %102 = tt.load %arg12, %99, %101 : tensor<64x64x!tt.ptr<bf16>>
      %103 = tt.dot %93, %102, %arg10, inputPrecision = tf32 : tensor<64x64xbf16> * tensor<64x64xbf16> -> tensor<64x64xf32>
      %c64_i32_22 = arith.constant 64 : i32
      %104 = tt.splat %c64_i32_22 : i32 -> tensor<64x64xi32>
      %105 = tt.addptr %arg11, %104 : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      %c64_i32_23 = arith.constant 64 : i32
      %106 = arith.muli %c64_i32_23, %arg7 : i32
      %107 = tt.splat %106 : i32 -> tensor<64x64xi32>
      %108 = tt.addptr %arg12, %107 : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
      scf.yield %103, %105, %108 : tensor<64x64xf32>, tensor<64x64x!tt.ptr<bf16>>, tensor<64x64x!tt.ptr<bf16>>
    }
    %56 = arith.truncf %55#0 : tensor<64x64xf32> to tensor<64x64xbf16>
    %c64_i32_15 = arith.constant 64 : i32
    %57 = arith.muli %14, %c64_i32_15 : i32
    %58 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %59 = tt.splat %57 : i32 -> tensor<64xi32>
    %60 = arith.addi %59, %58 : tensor<64xi32>
    %c64_i32_16 = arith.constant 64 : i32
    %61 = arith.muli %16, %c64_i32_16 : i32
    %62 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %63 = tt.splat %61 : i32 -> tensor<64xi32>
    %64 = arith.addi %63, %62 : tensor<64xi32>
    %65 = tt.expand_dims %60 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %66 = tt.splat %arg8 : i32 -> tensor<64x1xi32>
    %67 = arith.muli %66, %65 : tensor<64x1xi32>
    %68 = tt.splat %arg2 : !tt.ptr<bf16> -> tensor<64x1x!tt.ptr<bf16>>
    %69 = tt.addptr %68, %67 : tensor<64x1x!tt.ptr<bf16>>, tensor<64x1xi32>
    %70 = tt.expand_dims %64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %c1_i32_17 = arith.constant 1 : i32
    %71 = tt.splat %c1_i32_17 : i32 -> tensor<1x64xi32>
    %72 = arith.muli %71, %70 : tensor<1x64xi32>
    %73 = tt.broadcast %69 : tensor<64x1x!tt.ptr<bf16>> -> tensor<64x64x!tt.ptr<bf16>>
    %74 = tt.broadcast %72 : tensor<1x64xi32> -> tensor<64x64xi32>
    %75 = tt.addptr %73, %74 : tensor<64x64x!tt.ptr<bf16>>, tensor<64x64xi32>
    %76 = tt.expand_dims %60 {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %77 = tt.splat %arg3 : i32 -> tensor<64x1xi32>
    %78 = arith.cmpi slt, %76, %77 : tensor<64x1xi32>
    %79 = tt.expand_dims %64 {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %80 = tt.splat %arg4 : i32 -> tensor<1x64xi32>
    %81 = arith.cmpi slt, %79, %80 : tensor<1x64xi32>
    %82 = tt.broadcast %78 : tensor<64x1xi1> -> tensor<64x64xi1>
    %83 = tt.broadcast %81 : tensor<1x64xi1> -> tensor<64x64xi1>
    %84 = arith.andi %82, %83 : tensor<64x64xi1>
    tt.store %75, %56, %84 : tensor<64x64x!tt.ptr<bf16>>
    tt.return
  }
}
