// A block-pointer matmul as Triton's frontend emits it before its own rewriting
// (tt.make_tensor_ptr, tt.advance, boundary checks): it lowers completely, with the block
// offsets carried by the loop and the loads reading strided views.
// RUN: tessel-opt %s --tessel-structured-pipeline | FileCheck %s
// CHECK-LABEL: func.func public @block_matmul
// CHECK-SAME: memref<?xf16, strided<[1], offset: ?>>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<64x64xf32>, index, index)
// CHECK: memref.reinterpret_cast
// CHECK: linalg.copy
// CHECK: linalg.matmul
// CHECK: bufferization.materialize_in_destination
// CHECK-NOT: {{ tts?\.[a-z_]+}}
module {
  tt.func public @block_matmul(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32, %N: i32, %K: i32, %stride_am: i32, %stride_bk: i32, %stride_cm: i32) attributes {noinline = false} {
    %c32_i32 = arith.constant 32 : i32
    %c31_i32 = arith.constant 31 : i32
    %c64_i32 = arith.constant 64 : i32
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %acc0 = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %pid_m = tt.get_program_id x : i32
    %pid_n = tt.get_program_id y : i32
    %row = arith.muli %pid_m, %c64_i32 : i32
    %col = arith.muli %pid_n, %c64_i32 : i32
    %m64 = arith.extsi %M : i32 to i64
    %n64 = arith.extsi %N : i32 to i64
    %k64 = arith.extsi %K : i32 to i64
    %sam = arith.extsi %stride_am : i32 to i64
    %sbk = arith.extsi %stride_bk : i32 to i64
    %scm = arith.extsi %stride_cm : i32 to i64
    %a_blk = tt.make_tensor_ptr %a_ptr, [%m64, %k64], [%sam, %c1_i64], [%row, %c0_i32] {order = array<i32: 1, 0>} : <tensor<64x32xf16>>
    %b_blk = tt.make_tensor_ptr %b_ptr, [%k64, %n64], [%sbk, %c1_i64], [%c0_i32, %col] {order = array<i32: 1, 0>} : <tensor<32x64xf16>>
    %kt0 = arith.addi %K, %c31_i32 : i32
    %kt = arith.divsi %kt0, %c32_i32 : i32
    %res:3 = scf.for %k = %c0_i32 to %kt step %c1_i32 iter_args(%acc = %acc0, %pa = %a_blk, %pb = %b_blk) -> (tensor<64x64xf32>, !tt.ptr<tensor<64x32xf16>>, !tt.ptr<tensor<32x64xf16>>) : i32 {
      %a = tt.load %pa {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<64x32xf16>>
      %b = tt.load %pb {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<32x64xf16>>
      %d = tt.dot %a, %b, %acc, inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
      %na = tt.advance %pa, [%c0_i32, %c32_i32] : <tensor<64x32xf16>>
      %nb = tt.advance %pb, [%c32_i32, %c0_i32] : <tensor<32x64xf16>>
      scf.yield %d, %na, %nb : tensor<64x64xf32>, !tt.ptr<tensor<64x32xf16>>, !tt.ptr<tensor<32x64xf16>>
    }
    %c = arith.truncf %res#0 : tensor<64x64xf32> to tensor<64x64xf16>
    %c_blk = tt.make_tensor_ptr %c_ptr, [%m64, %n64], [%scm, %c1_i64], [%row, %col] {order = array<i32: 1, 0>} : <tensor<64x64xf16>>
    tt.store %c_blk, %c {boundaryCheck = array<i32: 0, 1>} : !tt.ptr<tensor<64x64xf16>>
    tt.return
  }
}
