//===- WarpgroupDots.h - tile matmuls on Hopper's warpgroup tensor cores (wgmma) -*- C++ -*-===//
//
// On sm_90a a warpgroup (4 warps) multiplies a 64 x N piece of C by wgmma.mma_async, reading
// both operands from shared memory through matrix descriptors instead of loading fragments
// into registers. The descriptors describe the tiles as TileCopies.h stores them swizzled
// (the 32-, 64- or 128-byte patterns; wider rows as 64-element column blocks), at 1024-byte
// boundaries (planWarpgroupDot marks the tiles with kTileAlignmentAttr, which
// tessel-cuda-map-programs follows). tessel-cuda-tensor-core-dots uses it where a plan
// qualifies and mma.sync (TensorCoreDots.cpp) elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_WARPGROUPDOTS_H
#define TESSEL_COMPILER_BACKEND_CUDA_WARPGROUPDOTS_H

#include "compiler/backend/cuda/MatrixDots.h"

namespace tessel::cuda {

/// The byte boundary a tile wgmma reads must start at (the swizzle patterns repeat every
/// 1024 bytes).
inline constexpr int64_t kWarpgroupTileAlignment = 1024;

/// Re-grids `p` (planned for mma.sync, its tiles staged) over warpgroups where wgmma can run
/// it with `warps` warps: both tiles stored swizzled in a layout a descriptor describes, M a
/// multiple of 64, each warpgroup's part of N at most 256 columns; its tiles are then marked to
/// start at kWarpgroupTileAlignment. With `aInRegisters` wgmma reads A from registers
/// (DotPlan::aInRegisters) and A's tile may be stored any way. Where the knob set the warps'
/// rows (DotPlan::warpM), only the grid of warpM / 4 rows of warpgroups qualifies. Returns
/// whether it did.
bool planWarpgroupDot(DotPlan &p, int64_t warps, bool aInRegisters = false);

/// The emitter of a plan planWarpgroupDot accepted.
std::unique_ptr<DotEmitter> makeWarpgroupEmitter(mlir::OpBuilder &b, mlir::Location loc,
                                                 const DotPlan &p);

/// A proxy fence after the cp.async waits of `func` (regions marked kAsyncWaitAttr) and at the
/// end of the per-thread regions that store into a tile wgmma reads: what the threads wrote
/// becomes visible to wgmma, which reads shared memory through the async proxy.
void fenceAsyncProxyAfterWrites(mlir::func::FuncOp func);

} // namespace tessel::cuda

#endif // TESSEL_COMPILER_BACKEND_CUDA_WARPGROUPDOTS_H
