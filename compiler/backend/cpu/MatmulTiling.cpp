//===- MatmulTiling.cpp - the matmul register tile -*- C++ -*-===//

#include "compiler/backend/cpu/Passes.h"
#include "compiler/backend/cpu/TileAndVectorize.h"

using namespace mlir;

/// Tiles every static linalg.matmul by the register tile (each dimension halved until it
/// divides the block) and vectorizes the tiles into vector.contract ops, lowered to outer
/// products: rows of FMAs on vectors of tileN elements.
static void tileAndVectorizeMatmuls(ModuleOp module, int64_t tileM, int64_t tileN,
                                    int64_t tileK) {
  if (tileM <= 0 || tileN <= 0 || tileK <= 0)
    return;
  MLIRContext *ctx = module.getContext();
  SmallVector<int64_t> tile{tileM, tileN, tileK};
  SmallVector<linalg::MatmulOp> matmuls;
  module.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  IRRewriter rewriter(ctx);
  for (linalg::MatmulOp matmul : matmuls) {
    if (!matmul.hasPureTensorSemantics())
      continue;
    SmallVector<int64_t> bounds = matmul.getStaticLoopRanges();
    if (bounds.size() != 3 || llvm::any_of(bounds, ShapedType::isDynamic))
      continue;
    tessel::tileAndVectorize(rewriter, matmul, tessel::fitTile(tile, bounds), /*namedContraction=*/true);
  }
}


namespace tessel {
#define GEN_PASS_DEF_CPUTILEMATMULS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuTileMatmulsPass : tessel::impl::CpuTileMatmulsBase<CpuTileMatmulsPass> {
  using Base::Base;
  void runOnOperation() override {
    tileAndVectorizeMatmuls(getOperation(), tileM, tileN, tileK);
  }
};
} // namespace
