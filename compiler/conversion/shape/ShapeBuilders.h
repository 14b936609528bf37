//===- ShapeBuilders.h - tensor ops for tt's shape manipulations -----*- C++ -*-===//
//
// The tensor/linalg forms of tt.expand_dims and tt.broadcast, shared by the conversion of
// number tensors (triton-arith-to-linalg) and of pointer offsets (structured-to-memref).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_CONVERSION_SHAPE_SHAPEBUILDERS_H
#define TESSEL_COMPILER_CONVERSION_SHAPE_SHAPEBUILDERS_H

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"

namespace tessel {

/// tensor.empty of `type`'s shape and element type (a destination for linalg ops).
mlir::Value emptyLike(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type);

/// Offsets, sizes and unit strides selecting `size` elements at `offset` along `axis` of
/// `shape` and everything along the other dimensions.
struct AxisSlice {
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
  AxisSlice(mlir::OpBuilder &b, llvm::ArrayRef<int64_t> shape, int64_t axis, int64_t offset,
            int64_t size);
};

/// Reassociation grouping the unit dimension `axis` of a rank-`rank` tensor with a neighbour:
/// expands a rank-(rank-1) tensor by a size-1 dimension at `axis`.
llvm::SmallVector<mlir::ReassociationIndices> unitDimReassociation(int64_t rank, int64_t axis);

/// tensor.expand_shape inserting a size-1 dimension at `axis`; `resultType` has it.
mlir::Value buildExpandDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                            mlir::RankedTensorType resultType, int64_t axis);

/// linalg.generic stretching the size-1 dimensions of `src` to `resultType`'s shape.
mlir::Value buildBroadcast(mlir::OpBuilder &b, mlir::Location loc, mlir::Value src,
                           mlir::RankedTensorType resultType);

} // namespace tessel

#endif // TESSEL_COMPILER_CONVERSION_SHAPE_SHAPEBUILDERS_H
