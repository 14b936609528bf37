//===- TileAndVectorize.h - tile a linalg op and vectorize the tiles -*- C++ -*-===//
//
// Shared by the matmul register tiling and the elementwise vectorization passes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_TILEANDVECTORIZE_H
#define TESSEL_COMPILER_BACKEND_CPU_TILEANDVECTORIZE_H

#include "mlir/IR/PatternMatch.h"

namespace tessel {

/// Tiles `op` by `tile` and vectorizes the tiles; an op that cannot be tiled stays as it is
/// (and becomes loops), a tile that cannot be vectorized stays a tiled linalg op.
void tileAndVectorize(mlir::IRRewriter &rewriter, mlir::Operation *op,
                      llvm::ArrayRef<int64_t> tile, bool namedContraction);

/// Halves each tile dimension until it divides the static loop bound.
llvm::SmallVector<int64_t> fitTile(llvm::ArrayRef<int64_t> tile, llvm::ArrayRef<int64_t> bounds);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CPU_TILEANDVECTORIZE_H
