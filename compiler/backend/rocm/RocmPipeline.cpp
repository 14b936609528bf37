//===- RocmPipeline.cpp - the rocm backend's pass pipeline ----------*- C++ -*-===//
//
// As the cuda pipeline (compiler/backend/cuda/CudaPipeline.cpp) up to the mapping of programs
// to workgroups, with the chip's wave size and LDS; matmuls of 16-bit floats on the matrix
// cores; transcendental math as polynomials before MLIR's GPU-to-ROCDL lowering, which calls
// the ROCm device libraries (__ocml_*) for math ops: those left are instructions.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/rocm/RocmBackend.h"
#include "compiler/backend/GpuKernels.h"
#include "compiler/conversion/narrow_floats/NarrowFloatLowering.h"

std::string tessel::rocmPipeline(const RocmChip &chip, int64_t numWarps, int64_t unroll,
                                 int64_t vectorBytes) {
  std::string pipeline;
  auto add = [&](const std::string &step) {
    pipeline += (pipeline.empty() ? "" : ",") + step;
  };
  std::string arch = chip.arch;
  add(gpuBufferizationPipeline());
  // Matmuls of 16-bit floats on the matrix cores (mfma / wmma); the rest as loops.
  add("func.func(tessel-rocm-matrix-core-dots{num-warps=" + std::to_string(numWarps) +
      " chipset=" + arch + "})");
  add("convert-linalg-to-parallel-loops");
  add("tessel-cpu-approximate-math");
  add("canonicalize,cse");
  add("func.func(tessel-cuda-whole-tile-loops)");
  add("tessel-cuda-map-programs{num-warps=" + std::to_string(numWarps) +
      " warp-size=" + std::to_string(chip.waveSize) + " unroll=" + std::to_string(unroll) +
      " vector-bytes=" + std::to_string(vectorBytes) +
      " max-shared-bytes=" + std::to_string(chip.maxLdsBytes) +
      // Every tile buffer in the arena, laid out by the Allocation analysis: the 64 KB of LDS
      // go further where lifetimes do not overlap.
      " static-shared-bytes=0}");
  add("tessel-cuda-redundant-barriers");
  add("expand-strided-metadata,lower-affine,convert-scf-to-cf,canonicalize,cse");
  add(narrowFloatLowering());
  // What math is left (floor, sqrt, exp2, fma, ...) becomes ocml calls, which the code
  // generator replaces with the LLVM intrinsics AMDGPU has instructions for (RocmCodeGen.cpp).
  add("gpu.module(convert-gpu-to-rocdl{chipset=" + arch + " index-bitwidth=64 runtime=HIP})");
  add("reconcile-unrealized-casts");
  add("tessel-cuda-bare-pointer-kernels");
  return pipeline;
}
