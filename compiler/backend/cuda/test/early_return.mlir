// An early return as Triton 3.6 prints it (issue 42): `if SKIP: if pid % 2 == 1: return` with
// SKIP=True, BLOCK=128 is a cf.cond_br to a block holding tt.return. The GPU pipelines lift it
// to scf.if (lift-cf-to-scf) before programs are mapped to blocks; it was a SIGSEGV in
// tessel-cuda-map-programs, which moved only the entry block into the gpu.func.
// RUN: tessel-compile %s --entry k --target cuda:sm_90a --cuda-toolkit=none --emit ptx -o - | FileCheck %s
// RUN: tessel-compile %s --entry k --target cuda:sm_80 --cuda-toolkit=none --emit ptx -o - | FileCheck %s
// CHECK-LABEL: .visible .entry k(
// CHECK: ld.global
// CHECK: st.global
// CHECK: ret;
module {
  tt.func public @k(%X: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %Y: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %N: i32) attributes {noinline = false} {
    %cst = arith.constant dense<2.000000e+00> : tensor<128xf32>
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %pid = tt.get_program_id x : i32
    %0 = arith.remsi %pid, %c2_i32 : i32
    %1 = arith.cmpi eq, %0, %c1_i32 : i32
    cf.cond_br %1, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    tt.return
  ^bb2:  // pred: ^bb0
    %offs = arith.muli %pid, %c128_i32 : i32
    %offs_0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %offs_1 = tt.splat %offs : i32 -> tensor<128xi32>
    %offs_2 = arith.addi %offs_1, %offs_0 : tensor<128xi32>
    %2 = tt.splat %Y : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %3 = tt.addptr %2, %offs_2 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %4 = tt.splat %X : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %5 = tt.addptr %4, %offs_2 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %6 = tt.splat %N : i32 -> tensor<128xi32>
    %7 = arith.cmpi slt, %offs_2, %6 : tensor<128xi32>
    %8 = tt.load %5, %7 : tensor<128x!tt.ptr<f32>>
    %9 = arith.mulf %8, %cst : tensor<128xf32>
    tt.store %3, %9, %7 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
}
