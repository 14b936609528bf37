//===- TileAndVectorize.cpp - tile a linalg op and vectorize the tiles -*- C++ -*-===//

#include "compiler/backend/cpu/TileAndVectorize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

void tessel::tileAndVectorize(IRRewriter &rewriter, Operation *op, ArrayRef<int64_t> tile,
                             bool namedContraction) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), tile));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return;
  rewriter.replaceOp(op, tiled->replacements);
  for (Operation *t : tiled->tiledOps) {
    rewriter.setInsertionPoint(t);
    FailureOr<linalg::VectorizationResult> vectorized =
        linalg::vectorize(rewriter, t, /*inputVectorSizes=*/{}, /*scalableDims=*/{},
                          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
                          /*assumeDynamicDimsMatchVecSizes=*/false, namedContraction);
    if (succeeded(vectorized))
      rewriter.replaceOp(t, vectorized->replacements);
  }
}

SmallVector<int64_t> tessel::fitTile(ArrayRef<int64_t> tile, ArrayRef<int64_t> bounds) {
  SmallVector<int64_t> fitted(tile);
  for (size_t d = 0; d < fitted.size(); ++d)
    while (fitted[d] > 1 && bounds[d] % fitted[d] != 0)
      fitted[d] /= 2;
  return fitted;
}
