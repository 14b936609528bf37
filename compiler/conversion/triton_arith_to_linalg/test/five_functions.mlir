// RUN: tessel-opt %s --tessel-structured-pipeline 2>/dev/null | FileCheck %s

// Five public kernels in one module, each carrying two pointer tensors and an i1 mask tensor
// through two nested scf.for loops (issue 16 reported a SIGSEGV in the function conversion for
// such a module while each function alone lowered). All five lower, in order.
// CHECK: func.func public @walk1(
// CHECK: func.func public @walk2(
// CHECK: func.func public @walk3(
// CHECK: func.func public @walk4(
// CHECK: func.func public @walk5(
module {
  tt.func public @walk1(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32, %arg3: i32) attributes {noinline = false} {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %4 = tt.addptr %3, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %5 = tt.splat %arg2 : i32 -> tensor<64xi32>
    %6 = arith.cmpi slt, %0, %5 : tensor<64xi32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %7:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %2, %arg6 = %4, %arg7 = %6) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
      %c0_i32_0 = arith.constant 0 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_1 = arith.constant 1 : i32
      %8:3 = scf.for %arg8 = %c0_i32_0 to %c2_i32 step %c1_i32_1 iter_args(%arg9 = %arg5, %arg10 = %arg6, %arg11 = %arg7) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
        %cst = arith.constant 0.000000e+00 : f32
        %9 = tt.splat %cst : f32 -> tensor<64xf32>
        %10 = tt.load %arg9, %arg11, %9 : tensor<64x!tt.ptr<f32>>
        %c1_i32_2 = arith.constant 1 : i32
        %11 = tt.splat %c1_i32_2 : i32 -> tensor<64xi32>
        %12 = arith.sitofp %11 : tensor<64xi32> to tensor<64xf32>
        %13 = arith.mulf %10, %12 : tensor<64xf32>
        %14 = tt.splat %arg8 : i32 -> tensor<64xi32>
        %15 = arith.sitofp %14 : tensor<64xi32> to tensor<64xf32>
        %16 = arith.addf %13, %15 : tensor<64xf32>
        tt.store %arg10, %16, %arg11 : tensor<64x!tt.ptr<f32>>
        %c64_i32 = arith.constant 64 : i32
        %17 = tt.splat %c64_i32 : i32 -> tensor<64xi32>
        %18 = tt.addptr %arg9, %17 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c64_i32_3 = arith.constant 64 : i32
        %19 = tt.splat %c64_i32_3 : i32 -> tensor<64xi32>
        %20 = tt.addptr %arg10, %19 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c1_i32_4 = arith.constant 1 : i32
        %21 = arith.subi %arg2, %c1_i32_4 : i32
        %22 = tt.splat %21 : i32 -> tensor<64xi32>
        %23 = arith.cmpi slt, %0, %22 : tensor<64xi32>
        %24 = arith.andi %arg11, %23 : tensor<64xi1>
        scf.yield %18, %20, %24 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
      }
      scf.yield %8#0, %8#1, %8#2 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
    }
    tt.return
  }
  tt.func public @walk2(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32, %arg3: i32) attributes {noinline = false} {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %4 = tt.addptr %3, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %5 = tt.splat %arg2 : i32 -> tensor<64xi32>
    %6 = arith.cmpi slt, %0, %5 : tensor<64xi32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %7:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %2, %arg6 = %4, %arg7 = %6) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
      %c0_i32_0 = arith.constant 0 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_1 = arith.constant 1 : i32
      %8:3 = scf.for %arg8 = %c0_i32_0 to %c2_i32 step %c1_i32_1 iter_args(%arg9 = %arg5, %arg10 = %arg6, %arg11 = %arg7) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
        %cst = arith.constant 0.000000e+00 : f32
        %9 = tt.splat %cst : f32 -> tensor<64xf32>
        %10 = tt.load %arg9, %arg11, %9 : tensor<64x!tt.ptr<f32>>
        %c2_i32_2 = arith.constant 2 : i32
        %11 = tt.splat %c2_i32_2 : i32 -> tensor<64xi32>
        %12 = arith.sitofp %11 : tensor<64xi32> to tensor<64xf32>
        %13 = arith.mulf %10, %12 : tensor<64xf32>
        %14 = tt.splat %arg8 : i32 -> tensor<64xi32>
        %15 = arith.sitofp %14 : tensor<64xi32> to tensor<64xf32>
        %16 = arith.addf %13, %15 : tensor<64xf32>
        tt.store %arg10, %16, %arg11 : tensor<64x!tt.ptr<f32>>
        %c64_i32 = arith.constant 64 : i32
        %17 = tt.splat %c64_i32 : i32 -> tensor<64xi32>
        %18 = tt.addptr %arg9, %17 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c64_i32_3 = arith.constant 64 : i32
        %19 = tt.splat %c64_i32_3 : i32 -> tensor<64xi32>
        %20 = tt.addptr %arg10, %19 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c1_i32_4 = arith.constant 1 : i32
        %21 = arith.subi %arg2, %c1_i32_4 : i32
        %22 = tt.splat %21 : i32 -> tensor<64xi32>
        %23 = arith.cmpi slt, %0, %22 : tensor<64xi32>
        %24 = arith.andi %arg11, %23 : tensor<64xi1>
        scf.yield %18, %20, %24 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
      }
      scf.yield %8#0, %8#1, %8#2 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
    }
    tt.return
  }
  tt.func public @walk3(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32, %arg3: i32) attributes {noinline = false} {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %4 = tt.addptr %3, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %5 = tt.splat %arg2 : i32 -> tensor<64xi32>
    %6 = arith.cmpi slt, %0, %5 : tensor<64xi32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %7:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %2, %arg6 = %4, %arg7 = %6) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
      %c0_i32_0 = arith.constant 0 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_1 = arith.constant 1 : i32
      %8:3 = scf.for %arg8 = %c0_i32_0 to %c2_i32 step %c1_i32_1 iter_args(%arg9 = %arg5, %arg10 = %arg6, %arg11 = %arg7) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
        %cst = arith.constant 0.000000e+00 : f32
        %9 = tt.splat %cst : f32 -> tensor<64xf32>
        %10 = tt.load %arg9, %arg11, %9 : tensor<64x!tt.ptr<f32>>
        %c3_i32 = arith.constant 3 : i32
        %11 = tt.splat %c3_i32 : i32 -> tensor<64xi32>
        %12 = arith.sitofp %11 : tensor<64xi32> to tensor<64xf32>
        %13 = arith.mulf %10, %12 : tensor<64xf32>
        %14 = tt.splat %arg8 : i32 -> tensor<64xi32>
        %15 = arith.sitofp %14 : tensor<64xi32> to tensor<64xf32>
        %16 = arith.addf %13, %15 : tensor<64xf32>
        tt.store %arg10, %16, %arg11 : tensor<64x!tt.ptr<f32>>
        %c64_i32 = arith.constant 64 : i32
        %17 = tt.splat %c64_i32 : i32 -> tensor<64xi32>
        %18 = tt.addptr %arg9, %17 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c64_i32_2 = arith.constant 64 : i32
        %19 = tt.splat %c64_i32_2 : i32 -> tensor<64xi32>
        %20 = tt.addptr %arg10, %19 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c1_i32_3 = arith.constant 1 : i32
        %21 = arith.subi %arg2, %c1_i32_3 : i32
        %22 = tt.splat %21 : i32 -> tensor<64xi32>
        %23 = arith.cmpi slt, %0, %22 : tensor<64xi32>
        %24 = arith.andi %arg11, %23 : tensor<64xi1>
        scf.yield %18, %20, %24 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
      }
      scf.yield %8#0, %8#1, %8#2 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
    }
    tt.return
  }
  tt.func public @walk4(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32, %arg3: i32) attributes {noinline = false} {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %4 = tt.addptr %3, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %5 = tt.splat %arg2 : i32 -> tensor<64xi32>
    %6 = arith.cmpi slt, %0, %5 : tensor<64xi32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %7:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %2, %arg6 = %4, %arg7 = %6) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
      %c0_i32_0 = arith.constant 0 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_1 = arith.constant 1 : i32
      %8:3 = scf.for %arg8 = %c0_i32_0 to %c2_i32 step %c1_i32_1 iter_args(%arg9 = %arg5, %arg10 = %arg6, %arg11 = %arg7) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
        %cst = arith.constant 0.000000e+00 : f32
        %9 = tt.splat %cst : f32 -> tensor<64xf32>
        %10 = tt.load %arg9, %arg11, %9 : tensor<64x!tt.ptr<f32>>
        %c4_i32 = arith.constant 4 : i32
        %11 = tt.splat %c4_i32 : i32 -> tensor<64xi32>
        %12 = arith.sitofp %11 : tensor<64xi32> to tensor<64xf32>
        %13 = arith.mulf %10, %12 : tensor<64xf32>
        %14 = tt.splat %arg8 : i32 -> tensor<64xi32>
        %15 = arith.sitofp %14 : tensor<64xi32> to tensor<64xf32>
        %16 = arith.addf %13, %15 : tensor<64xf32>
        tt.store %arg10, %16, %arg11 : tensor<64x!tt.ptr<f32>>
        %c64_i32 = arith.constant 64 : i32
        %17 = tt.splat %c64_i32 : i32 -> tensor<64xi32>
        %18 = tt.addptr %arg9, %17 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c64_i32_2 = arith.constant 64 : i32
        %19 = tt.splat %c64_i32_2 : i32 -> tensor<64xi32>
        %20 = tt.addptr %arg10, %19 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c1_i32_3 = arith.constant 1 : i32
        %21 = arith.subi %arg2, %c1_i32_3 : i32
        %22 = tt.splat %21 : i32 -> tensor<64xi32>
        %23 = arith.cmpi slt, %0, %22 : tensor<64xi32>
        %24 = arith.andi %arg11, %23 : tensor<64xi1>
        scf.yield %18, %20, %24 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
      }
      scf.yield %8#0, %8#1, %8#2 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
    }
    tt.return
  }
  tt.func public @walk5(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32, %arg3: i32) attributes {noinline = false} {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %3 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %4 = tt.addptr %3, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %5 = tt.splat %arg2 : i32 -> tensor<64xi32>
    %6 = arith.cmpi slt, %0, %5 : tensor<64xi32>
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %7:3 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %2, %arg6 = %4, %arg7 = %6) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
      %c0_i32_0 = arith.constant 0 : i32
      %c2_i32 = arith.constant 2 : i32
      %c1_i32_1 = arith.constant 1 : i32
      %8:3 = scf.for %arg8 = %c0_i32_0 to %c2_i32 step %c1_i32_1 iter_args(%arg9 = %arg5, %arg10 = %arg6, %arg11 = %arg7) -> (tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>)  : i32 {
        %cst = arith.constant 0.000000e+00 : f32
        %9 = tt.splat %cst : f32 -> tensor<64xf32>
        %10 = tt.load %arg9, %arg11, %9 : tensor<64x!tt.ptr<f32>>
        %c5_i32 = arith.constant 5 : i32
        %11 = tt.splat %c5_i32 : i32 -> tensor<64xi32>
        %12 = arith.sitofp %11 : tensor<64xi32> to tensor<64xf32>
        %13 = arith.mulf %10, %12 : tensor<64xf32>
        %14 = tt.splat %arg8 : i32 -> tensor<64xi32>
        %15 = arith.sitofp %14 : tensor<64xi32> to tensor<64xf32>
        %16 = arith.addf %13, %15 : tensor<64xf32>
        tt.store %arg10, %16, %arg11 : tensor<64x!tt.ptr<f32>>
        %c64_i32 = arith.constant 64 : i32
        %17 = tt.splat %c64_i32 : i32 -> tensor<64xi32>
        %18 = tt.addptr %arg9, %17 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c64_i32_2 = arith.constant 64 : i32
        %19 = tt.splat %c64_i32_2 : i32 -> tensor<64xi32>
        %20 = tt.addptr %arg10, %19 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
        %c1_i32_3 = arith.constant 1 : i32
        %21 = arith.subi %arg2, %c1_i32_3 : i32
        %22 = tt.splat %21 : i32 -> tensor<64xi32>
        %23 = arith.cmpi slt, %0, %22 : tensor<64xi32>
        %24 = arith.andi %arg11, %23 : tensor<64xi1>
        scf.yield %18, %20, %24 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
      }
      scf.yield %8#0, %8#1, %8#2 : tensor<64x!tt.ptr<f32>>, tensor<64x!tt.ptr<f32>>, tensor<64xi1>
    }
    tt.return
  }
}
