//===- CudaPipeline.cpp - the cuda backend's pass pipeline ----------*- C++ -*-===//
//
// From the structured lowering's output to NVVM: bufferization as on the CPU, linalg as
// parallel loops, math left to libdevice where the toolkit has one and as polynomials
// otherwise (so PTX is always produced), one
// program per block with its work spread over the threads (tessel-cuda-map-programs), then
// MLIR's GPU-to-NVVM lowering and the bare-pointer kernel entries.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/Passes.h"
#include "compiler/backend/GpuKernels.h"
#include "compiler/conversion/narrow_floats/NarrowFloatLowering.h"

std::string tessel::cudaPipeline(int64_t numWarps, int64_t numStages, int64_t unroll,
                                 int64_t vectorBytes, int64_t maxSharedBytes, bool libdevice,
                                 bool wgmma, bool warpgroupTurns, int64_t warpM,
                                 bool persistent, bool tma, bool warpSpecialize) {
  std::string pipeline;
  auto add = [&](const std::string &step) {
    pipeline += (pipeline.empty() ? "" : ",") + step;
  };
  add(gpuBufferizationPipeline());
  // Matmuls of 16-bit floats on tensor cores (on warpgroups where wgmma can read the tiles);
  // the rest as loops.
  add("func.func(tessel-cuda-tensor-core-dots{num-warps=" + std::to_string(numWarps) +
      " warp-m=" + std::to_string(warpM) + (wgmma ? " wgmma=true" : "") +
      (tma ? " tma=true" : "") + (warpSpecialize ? " warp-specialize=true" : "") + "})");
  // Their operand tiles loaded num_stages - 1 iterations of the K loop ahead.
  add("func.func(tessel-cuda-pipeline-tile-loads{num-stages=" + std::to_string(numStages) +
      " max-shared-bytes=" + std::to_string(maxSharedBytes) + "})");
  add("convert-linalg-to-parallel-loops");
  // Without libdevice, math as polynomials; with it, libdevice's functions (CudaCodeGen.cpp).
  if (!libdevice)
    add("tessel-cpu-approximate-math");
  add("canonicalize,cse");
  add("func.func(tessel-cuda-whole-tile-loops)");
  add("tessel-cuda-map-programs{num-warps=" + std::to_string(numWarps) +
      " unroll=" + std::to_string(unroll) + " vector-bytes=" + std::to_string(vectorBytes) +
      " max-shared-bytes=" + std::to_string(maxSharedBytes) +
      (persistent ? " persistent=true" : "") + "}");
  // Its barriers where they order conflicting accesses only.
  add("tessel-cuda-redundant-barriers");
  // Warpgroups take turns at a chain's first product: one's softmax overlaps the others'
  // products (named barriers, after the analysis above, which knows barrier 0 only).
  if (wgmma && warpgroupTurns && numWarps >= 8)
    add("tessel-cuda-warpgroup-turns{warpgroups=" + std::to_string(numWarps / 4) + "}");
  // A producer warp after the num_warps warps issues the TMA loads.
  if (warpSpecialize)
    add("tessel-cuda-warp-specialize{consumer-warps=" + std::to_string(numWarps) + "}");
  add("expand-strided-metadata,lower-affine,convert-scf-to-cf,canonicalize,cse");
  add(narrowFloatLowering());
  // Math it leaves as libdevice calls (__nv_floorf, __nv_fmaxf, ...) becomes LLVM intrinsics
  // NVPTX has instructions for where there are some, the rest is linked from libdevice
  // (NvvmMath.cpp).
  add("gpu.module(convert-nvgpu-to-nvvm)");
  add("gpu.module(convert-gpu-to-nvvm{index-bitwidth=64})");
  // wgmma and the proxy fence have no LLVM intrinsics: their PTX as inline assembly.
  if (wgmma)
    add("gpu.module(convert-nvvm-to-llvm)");
  // What it leaves (math.trunc) as LLVM intrinsics NVPTX selects.
  add("gpu.module(convert-math-to-llvm)");
  add("reconcile-unrealized-casts");
  add("tessel-cuda-bare-pointer-kernels");
  return pipeline;
}
