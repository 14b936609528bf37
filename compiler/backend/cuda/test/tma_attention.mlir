// The zoo's attention with tma=1 (sm_90a, head dim 128, 128 x 64 blocks, 8 warps, 2 stages):
// both its K and V tiles are loaded by TMA. V's 64 x 128 tile is a box of V's rows; K, read
// transposed for Q.K^T (a memref.transpose of its view), fills an N x K tile that is a box of
// K's rows too. So the artifact carries a tensor map over each (arguments 1 and 2, their pitch
// stride_qm, argument 7). The pointers are 16-byte aligned (`*bf16:16`, the zoo's signature):
// the sources are seen through that alignment assumption too. Without it, or without the
// transpose seen through, no map (or none for K) was made.
// RUN: tessel-compile %{workspace}/kernels/attention/attention.py --entry attention --target cuda:sm_90a --signature '*bf16:16,*bf16:16,*bf16:16,*bf16:16,fp32,i32:16,i32:16,i32:16,i32' --constexpr HEAD_DIM=128 --constexpr CAUSAL=True --constexpr BLOCK_M=128 --constexpr BLOCK_N=64 --constexpr H=2 --constexpr stride_qk=1 --knob num_warps=8 --knob num_stages=2 --knob tma=1 --emit artifact -o - | FileCheck %s

// CHECK: "tensor_maps": [
// CHECK: "box": [
// CHECK-NEXT: 64,
// CHECK-NEXT: 64
// CHECK: "pitch_argument": 7,
// CHECK-NEXT: "pointer": 1,
// CHECK: "pitch_argument": 7,
// CHECK-NEXT: "pointer": 2,
