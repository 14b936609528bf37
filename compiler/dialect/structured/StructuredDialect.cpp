//===- StructuredDialect.cpp - tts dialect and its verifiers -----*- C++ -*-===//

#include "compiler/dialect/structured/StructuredDialect.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace tessel::tts;
namespace tt = tessel::tt;

#include "compiler/dialect/structured/StructuredDialect.cpp.inc"

void TTSDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/structured/StructuredOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Custom directive: an optional `mask: [...]` list of static or dynamic sizes
//===----------------------------------------------------------------------===//

static ParseResult parseMaskDims(OpAsmParser &parser,
                                 SmallVectorImpl<OpAsmParser::UnresolvedOperand> &values,
                                 DenseI64ArrayAttr &statics) {
  if (failed(parser.parseOptionalKeyword("mask"))) {
    statics = parser.getBuilder().getDenseI64ArrayAttr({});
    return success();
  }
  if (parser.parseColon())
    return failure();
  return parseDynamicIndexList(parser, values, statics);
}

static void printMaskDims(OpAsmPrinter &printer, Operation *op, OperandRange values,
                          DenseI64ArrayAttr statics) {
  if (statics.empty())
    return;
  printer << "mask: ";
  printDynamicIndexList(printer, op, values, statics);
}

//===----------------------------------------------------------------------===//
// Verification helpers
//===----------------------------------------------------------------------===//

/// Checks that `statics` has one entry per dimension and that its dynamic entries match the
/// dynamic operands, then applies `checkStatic` to each static entry.
static LogicalResult verifyMixedList(Operation *op, StringRef what, ArrayRef<int64_t> statics,
                                     ValueRange dynamics, size_t rank,
                                     function_ref<LogicalResult(size_t, int64_t)> checkStatic) {
  if (statics.size() != rank)
    return op->emitOpError() << "has " << statics.size() << " " << what << " for rank "
                             << rank;
  size_t numDynamic = llvm::count(statics, ShapedType::kDynamic);
  if (numDynamic != dynamics.size())
    return op->emitOpError() << what << " mark " << numDynamic << " dynamic entries but "
                             << dynamics.size() << " values are given";
  for (auto [d, v] : llvm::enumerate(statics))
    if (v != ShapedType::kDynamic && failed(checkStatic(d, v)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// MakeTensorPtrOp
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> MakeTensorPtrOp::getMixedStrides() {
  return getMixedValues(getStaticStrides(), getStrides(), getContext());
}
SmallVector<OpFoldResult> MakeTensorPtrOp::getMixedOffsets() {
  return getMixedValues(getStaticOffsets(), getOffsets(), getContext());
}
SmallVector<OpFoldResult> MakeTensorPtrOp::getMixedParentSizes() {
  return getMixedValues(getStaticParentSizes(), getParentSizes(), getContext());
}

LogicalResult MakeTensorPtrOp::verify() {
  ArrayRef<int64_t> sizes = getSizes();
  size_t rank = sizes.size();
  if (rank == 0)
    return emitOpError("needs at least one dimension");
  for (auto [d, size] : llvm::enumerate(sizes))
    if (size <= 0)
      return emitOpError("size of dimension ") << d << " must be positive, got " << size;

  auto noCheck = [](size_t, int64_t) { return success(); };
  if (failed(verifyMixedList(*this, "strides", getStaticStrides(), getStrides(), rank,
                             noCheck)) ||
      failed(verifyMixedList(*this, "offsets", getStaticOffsets(), getOffsets(), rank,
                             noCheck)) ||
      failed(verifyMixedList(*this, "parent_sizes", getStaticParentSizes(), getParentSizes(),
                             rank, [&](size_t d, int64_t v) -> LogicalResult {
                               if (v < 0)
                                 return emitOpError("parent size of dimension ")
                                        << d << " must be non-negative, got " << v;
                               return success();
                             })))
    return failure();

  Type elem = cast<tt::PointerType>(getBase().getType()).getPointeeType();
  Type resultType = getType();
  if (std::optional<ArrayRef<int32_t>> order = getOrder()) {
    if (!tt::isBlockPointer(resultType))
      return emitOpError("with an order the result must be a block pointer, got ")
             << resultType;
    if (order->size() != rank)
      return emitOpError("order has ") << order->size() << " entries for rank " << rank;
    SmallVector<bool> seen(rank, false);
    for (int32_t d : *order) {
      if (d < 0 || static_cast<size_t>(d) >= rank || seen[d])
        return emitOpError("order must be a permutation of 0..") << (rank - 1);
      seen[d] = true;
    }
    auto pointee = cast<RankedTensorType>(cast<tt::PointerType>(resultType).getPointeeType());
    if (pointee.getShape() != sizes || pointee.getElementType() != elem)
      return emitOpError("result must be a block pointer to tensor of ")
             << "sizes with element " << elem << ", got " << resultType;
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(resultType);
  if (!tensor)
    return emitOpError("without an order the result must be a tensor of pointers, got ")
           << resultType;
  auto ptr = dyn_cast<tt::PointerType>(tensor.getElementType());
  if (tensor.getShape() != sizes)
    return emitOpError("result shape must equal sizes");
  if (!ptr || ptr.getPointeeType() != elem)
    return emitOpError("result elements must be pointers to ") << elem << ", got "
                                                               << tensor.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

/// A mask, when present, has one entry per dimension of the tile, each in [0, size].
static LogicalResult verifyMask(Operation *op, Type ptrType, ArrayRef<int64_t> statics,
                                ValueRange dynamics) {
  if (statics.empty()) {
    if (!dynamics.empty())
      return op->emitOpError("has dynamic mask values but no mask");
    return success();
  }
  ArrayRef<int64_t> shape = tt::getShapeOf(ptrType);
  return verifyMixedList(op, "mask dims", statics, dynamics, shape.size(),
                         [&](size_t d, int64_t v) -> LogicalResult {
                           if (v < 0 || v > shape[d])
                             return op->emitOpError("mask of dimension ")
                                    << d << " must be in [0, " << shape[d] << "], got " << v;
                           return success();
                         });
}

SmallVector<OpFoldResult> LoadOp::getMixedMaskDims() {
  return getMixedValues(getStaticMaskDims(), getMaskDims(), getContext());
}

LogicalResult LoadOp::verify() {
  Type loaded = tt::getLoadedType(getPtr().getType());
  if (getType() != loaded)
    return emitOpError("result must be ") << loaded << ", got " << getType();
  if (getOther() && !hasMask())
    return emitOpError("'other' only makes sense with a mask");
  return verifyMask(*this, getPtr().getType(), getStaticMaskDims(), getMaskDims());
}

SmallVector<OpFoldResult> StoreOp::getMixedMaskDims() {
  return getMixedValues(getStaticMaskDims(), getMaskDims(), getContext());
}

LogicalResult StoreOp::verify() {
  return verifyMask(*this, getPtr().getType(), getStaticMaskDims(), getMaskDims());
}

#define GET_OP_CLASSES
#include "compiler/dialect/structured/StructuredOps.cpp.inc"
