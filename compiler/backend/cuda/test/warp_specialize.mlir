// Warp specialization (knob warp_specialize, with tma=1 on sm_90a; Passes.td:
// CudaWarpSpecialize). The zoo's matmul, bf16 128 x 256 x 64 blocks on 8 warps, 3 stages:
// the block gets a producer warpgroup after the 8 warps (384 threads); the mbarriers are
// initialized before the warps part, followed by the one barrier of the whole block. The
// consumers take the producer's registers (setmaxnreg: 168 at launch, 216 and 72), wait
// for each iteration's tiles, and release the slots after each step (tessel.slot_release);
// their fast K loop has no barrier left, and their other barriers are a named barrier of
// their 256 threads. The producer keeps no tensor-core work: it waits for a slot's release
// and loads it by TMA.
// RUN: tessel-compile %{workspace}/kernels/matmul/matmul.py --entry matmul --target cuda:sm_90a --signature '*bf16:16,*bf16:16,*bf16:16,i32,i32,i32,i32,i32,i32' --constexpr BLOCK_M=128 --constexpr BLOCK_N=256 --constexpr BLOCK_K=64 --constexpr GROUP_M=8 --constexpr stride_ak=1 --constexpr stride_bn=1 --constexpr stride_cn=1 --knob num_warps=8 --knob num_stages=3 --knob tma=1 --knob warp_specialize=1 --emit linalg -o - | tessel-opt --pass-pipeline='builtin.module(tessel-cpu-drop-triton-attributes,linalg-fuse-elementwise-ops,canonicalize,one-shot-bufferize{bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops=true},canonicalize,cse,func.func(buffer-hoisting,buffer-loop-hoisting),convert-bufferization-to-memref,tessel-cpu-copies-to-linalg,func.func(tessel-cuda-tensor-core-dots{num-warps=8 wgmma=true tma=true warp-specialize=true}),func.func(tessel-cuda-pipeline-tile-loads{num-stages=3 max-shared-bytes=232448}),convert-linalg-to-parallel-loops,canonicalize,cse,func.func(tessel-cuda-whole-tile-loops),tessel-cuda-map-programs{num-warps=8 max-shared-bytes=232448},tessel-cuda-redundant-barriers,tessel-cuda-warp-specialize{consumer-warps=8})' | FileCheck %s
// RUN: tessel-compile %{workspace}/kernels/matmul/matmul.py --entry matmul --target cuda:sm_90a --signature '*bf16:16,*bf16:16,*bf16:16,i32,i32,i32,i32,i32,i32' --constexpr BLOCK_M=128 --constexpr BLOCK_N=256 --constexpr BLOCK_K=64 --constexpr GROUP_M=8 --constexpr stride_ak=1 --constexpr stride_bn=1 --constexpr stride_cn=1 --knob num_warps=8 --knob num_stages=3 --knob tma=1 --knob warp_specialize=1 --emit artifact -o - | FileCheck %s --check-prefix=ARTIFACT
// RUN: tessel-compile %{workspace}/kernels/matmul/matmul.py --entry matmul --target cuda:sm_90a --signature '*bf16:16,*bf16:16,*bf16:16,i32,i32,i32,i32,i32,i32' --constexpr BLOCK_M=128 --constexpr BLOCK_N=256 --constexpr BLOCK_K=64 --constexpr GROUP_M=8 --constexpr stride_ak=1 --constexpr stride_bn=1 --constexpr stride_cn=1 --knob num_warps=8 --knob num_stages=3 --knob tma=1 --knob warp_specialize=1 --emit ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tessel-compile %{workspace}/kernels/matmul/matmul.py --entry matmul --target cuda:sm_90a --signature '*bf16:16,*bf16:16,*bf16:16,i32,i32,i32,i32,i32,i32' --constexpr BLOCK_M=128 --constexpr BLOCK_N=256 --constexpr BLOCK_K=64 --constexpr GROUP_M=8 --constexpr stride_ak=1 --constexpr stride_bn=1 --constexpr stride_cn=1 --knob num_warps=8 --knob num_stages=3 --knob tma=1 --knob warp_specialize=1 --emit ptx -o - | grep -c 'bar.sync[[:space:]]*0;' | FileCheck %s --check-prefix=ONEBAR
// RUN: not tessel-compile %{workspace}/kernels/vector_add/vector_add.py --entry vector_add --target cuda:sm_90a --signature '*fp32,*fp32,*fp32,i32' --constexpr BLOCK=1024 --knob tma=1 --knob warp_specialize=1 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=NOTMA
// RUN: not tessel-compile %{workspace}/kernels/vector_add/vector_add.py --entry vector_add --target cuda:sm_90a --signature '*fp32,*fp32,*fp32,i32' --constexpr BLOCK=1024 --knob warp_specialize=1 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=KNOBS
// RUN: not tessel-compile %{workspace}/kernels/vector_add/vector_add.py --entry vector_add --target cuda:sm_90a --signature '*fp32,*fp32,*fp32,i32' --constexpr BLOCK=1024 --knob tma=1 --knob warp_specialize=1 --knob maxnreg=128 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=MAXNREG
// RUN: not tessel-compile %{workspace}/kernels/attention/attention.py --entry attention --target cuda:sm_90a --signature '*bf16:16,*bf16:16,*bf16:16,*bf16:16,fp32,i32:16,i32:16,i32:16,i32' --constexpr HEAD_DIM=128 --constexpr CAUSAL=True --constexpr BLOCK_M=128 --constexpr BLOCK_N=64 --constexpr H=2 --constexpr stride_qk=1 --knob num_warps=8 --knob num_stages=2 --knob tma=1 --knob warp_specialize=1 --emit ptx -o - 2>&1 | FileCheck %s --check-prefix=ATTENTION

// CHECK: gpu.func @matmul
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: nvvm.maxnreg = 168
// CHECK: nvgpu.mbarrier.create
// CHECK: nvgpu.mbarrier.init
// CHECK: gpu.barrier {tessel.whole_block}
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.setmaxregister  increase 216
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// The consumers' fast K loop: waits for the tiles, the step, the releases; no barrier.
// CHECK: scf.while
// CHECK: } do {
// CHECK-NOT: nvvm.barrier
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.bar.warp.sync
// CHECK: arith.remui
// CHECK: nvgpu.mbarrier.arrive
// CHECK: nvgpu.mbarrier.arrive
// CHECK: tessel.slot_release
// CHECK-NOT: nvvm.barrier
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: scf.yield %
// The producer: a slot's release, then its load; no tensor-core work, no barrier.
// CHECK: nvvm.setmaxregister  decrease 72
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: barrier id
// CHECK: nvgpu.mbarrier.try_wait.parity
// CHECK: nvgpu.mbarrier.arrive.expect_tx
// CHECK: nvgpu.tma.async.load
// CHECK-NOT: nvvm.wgmma
// CHECK-NOT: barrier id
// CHECK: gpu.return

// ARTIFACT: "block": [
// ARTIFACT-NEXT: 384,
// ARTIFACT: "tensor_maps": [

// PTX: .maxnreg 168
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 216;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 72;
// PTX-DAG: bar.sync 5, 256;
// PTX-DAG: cp.async.bulk.tensor.2d
// One barrier of the whole block (barrier 0).
// ONEBAR: {{^1$}}

// NOTMA: error: warp specialization: kernel vector_add loads no tile by TMA
// KNOBS: knob warp_specialize=1 needs target sm_90a with tma=1 and wgmma=1
// MAXNREG: knob warp_specialize=1 sets the registers itself
// Attention's K and V tiles are read by steps its loops' pipelining leaves alone, which
// release no slots (specialized, it hung on an H100): refused.
// ATTENTION: error: warp specialization: kernel attention has a TMA tile whose slots the computing warps never release
