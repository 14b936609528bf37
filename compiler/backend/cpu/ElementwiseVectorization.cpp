//===- ElementwiseVectorization.cpp - explicit vectors for elementwise ops -*- C++ -*-===//

#include "compiler/backend/cpu/Passes.h"
#include "compiler/backend/cpu/TileAndVectorize.h"

using namespace mlir;

/// Tiles every static all-parallel linalg op to `unroll` x `vectorWidth` along its two
/// innermost loops and vectorizes the tiles.
static void tileAndVectorizeElementwise(ModuleOp module, int64_t vectorWidth, int64_t unroll) {
  if (vectorWidth <= 0)
    return;
  MLIRContext *ctx = module.getContext();
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()) ||
        !op.hasPureTensorSemantics() || op.getNumLoops() == 0 ||
        op.getNumLoops() != op.getNumParallelLoops() ||
        op->getParentOfType<linalg::LinalgOp>())
      return;
    // i1 vectors are bit-packed in memory while scalar i1 accesses use bytes: keep boolean
    // tensors scalar.
    for (Value v : op->getOperands())
      if (getElementTypeOrSelf(v.getType()).isInteger(1))
        return;
    // Only pure arithmetic bodies: gathers (tensor.extract) and per-element memory accesses
    // (loads, atomics, scf.if) stay scalar.
    if (!tessel::isPlainArithmetic(*op.getBlock()) ||
        !op.getBlock()->getOps<tensor::ExtractOp>().empty())
      return;
    ops.push_back(op);
  });
  IRRewriter rewriter(ctx);
  for (linalg::LinalgOp op : ops) {
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    if (llvm::any_of(bounds, ShapedType::isDynamic))
      continue;
    size_t rank = bounds.size();
    SmallVector<int64_t> tile(rank, 1);
    tile[rank - 1] = vectorWidth;
    if (rank > 1)
      tile[rank - 2] = std::max<int64_t>(1, unroll);
    tile = tessel::fitTile(tile, bounds);
    if (tile[rank - 1] < 4)
      continue; // too narrow to be worth vectors
    tessel::tileAndVectorize(rewriter, op, tile, /*namedContraction=*/false);
  }
}


namespace tessel {
#define GEN_PASS_DEF_CPUVECTORIZEELEMENTWISE
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuVectorizeElementwisePass : tessel::impl::CpuVectorizeElementwiseBase<CpuVectorizeElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    tileAndVectorizeElementwise(getOperation(), vectorWidth, unroll);
  }
};
} // namespace
