//===- ShapeBuilders.cpp - tensor ops for tt's shape manipulations ---*- C++ -*-===//

#include "compiler/conversion/shape/ShapeBuilders.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

Value tessel::emptyLike(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

tessel::AxisSlice::AxisSlice(OpBuilder &b, ArrayRef<int64_t> shape, int64_t axis,
                             int64_t offset, int64_t size) {
  for (auto [d, extent] : llvm::enumerate(shape)) {
    bool onAxis = static_cast<int64_t>(d) == axis;
    offsets.push_back(b.getIndexAttr(onAxis ? offset : 0));
    sizes.push_back(b.getIndexAttr(onAxis ? size : extent));
    strides.push_back(b.getIndexAttr(1));
  }
}

SmallVector<ReassociationIndices> tessel::unitDimReassociation(int64_t rank, int64_t axis) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis && !groups.empty() && axis == rank - 1) {
      groups.back().push_back(d);
      continue;
    }
    if (d == axis) {
      groups.push_back({d, d + 1});
      ++d;
      continue;
    }
    groups.push_back({d});
  }
  return groups;
}

Value tessel::buildExpandDims(OpBuilder &b, Location loc, Value src, RankedTensorType resultType,
                              int64_t axis) {
  return tensor::ExpandShapeOp::create(b, loc, resultType, src,
                                       unitDimReassociation(resultType.getRank(), axis));
}

Value tessel::buildBroadcast(OpBuilder &b, Location loc, Value src,
                             RankedTensorType resultType) {
  auto srcType = cast<RankedTensorType>(src.getType());
  int64_t rank = resultType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(srcType.getDimSize(d) == 1 && resultType.getDimSize(d) != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(d));
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{src},
             ValueRange{emptyLike(b, loc, resultType)},
             ArrayRef<AffineMap>{AffineMap::get(rank, 0, exprs, b.getContext()),
                                 b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, ValueRange{args[0]});
             })
      .getResult(0);
}
