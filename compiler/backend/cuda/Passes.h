//===- Passes.h - the CUDA backend's passes and its pipeline -------*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_PASSES_H
#define TESSEL_COMPILER_BACKEND_CUDA_PASSES_H

#include "compiler/backend/GpuKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace tessel {

#define GEN_PASS_DECL
#include "compiler/backend/cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/backend/cuda/Passes.h.inc"

// kDynamicSharedBytesAttr, kTotalSharedBytesAttr, kArgDivisibilityAttr: GpuKernels.h.

/// The cuda pipeline from the structured lowering's output to a gpu.module of NVVM/LLVM
/// dialect kernels with bare-pointer entries (textual, as tessel-opt runs it). `numStages`:
/// the K loops' operand tiles are loaded numStages - 1 iterations ahead; `unroll`:
/// iterations of a distributed loop per thread at once; `vectorBytes`: the widest group of
/// consecutive elements a thread owns in a kept tile (vector accesses); `maxSharedBytes`:
/// what a block may use; `libdevice`: math is left to libdevice (linked after the lowering),
/// not approximated; `wgmma`: matmuls whose tiles allow it on warpgroups (sm_90a);
/// `warpgroupTurns`: with wgmma and two or more warpgroups, they issue the first product of a
/// loop chaining products in turns (tessel-cuda-warpgroup-turns); `warpM`: the rows of the
/// warps' grid over each matmul's C (0: chosen per matmul; tessel-cuda-tensor-core-dots);
/// `persistent`: blocks run the grid's programs in turn (tessel-cuda-map-programs); `tma`:
/// operand tiles loaded by TMA where they can be (sm_90a; tessel-cuda-tensor-core-dots);
/// `warpSpecialize`: with tma, a producer warp after the numWarps warps issues the TMA loads
/// (tessel-cuda-warp-specialize; the block has numWarps + 1 warps).
std::string cudaPipeline(int64_t numWarps, int64_t numStages, int64_t unroll,
                         int64_t vectorBytes, int64_t maxSharedBytes, bool libdevice,
                         bool wgmma = false, bool warpgroupTurns = false, int64_t warpM = 0,
                         bool persistent = false, bool tma = false, bool warpSpecialize = false);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CUDA_PASSES_H
