//===- TritonDialect.cpp - tt dialect, types and enums ----------*- C++ -*-===//

#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel::tt;

#include "compiler/dialect/triton/TritonDialect.cpp.inc"
#include "compiler/dialect/triton/TritonEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/triton/TritonTypes.cpp.inc"

namespace {
/// tt functions, and everything inside them, may be inlined; noinline functions are kept by
/// the inliner's callers (the pipeline), not by this interface.
struct TritonInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *call, Operation *callable,
                       bool wouldBeCloned) const final {
    auto func = dyn_cast<FuncOp>(callable);
    return !func || !func.isNoInline();
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }

  /// A tt.return in an inlined single-block function becomes the call's results.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto ret = cast<ReturnOp>(op);
    for (auto [from, to] : llvm::zip(valuesToRepl, ret.getSrcs()))
      from.replaceAllUsesWith(to);
  }

  /// A tt.return in a multi-block function branches to the block after the call.
  void handleTerminator(Operation *op, Block *newDest) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret)
      return;
    OpBuilder builder(op);
    cf::BranchOp::create(builder, op->getLoc(), newDest, ret.getSrcs());
    op->erase();
  }
};
} // namespace

/// Folded tt ops (a splat of a constant) become arith constants.
Operation *TritonDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                             Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

void TritonDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialect/triton/TritonOps.cpp.inc"
      >();
  addInterfaces<TritonInlinerInterface>();
}

void TritonDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialect/triton/TritonTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PointerType
//===----------------------------------------------------------------------===//

/// The address space Triton uses for global memory; printed only when another one is used.
static constexpr int kGlobalAddressSpace = 1;

Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int addressSpace = kGlobalAddressSpace;
  if (parser.parseLess() || parser.parseType(pointee))
    return Type();
  if (succeeded(parser.parseOptionalComma()) && parser.parseInteger(addressSpace))
    return Type();
  if (parser.parseGreater())
    return Type();
  return parser.getChecked<PointerType>(pointee.getContext(), pointee, addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != kGlobalAddressSpace)
    printer << ", " << getAddressSpace();
  printer << ">";
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  Type pointee, int addressSpace) {
  if (!pointee)
    return emitError() << "pointer needs a pointee type";
  if (addressSpace < 0)
    return emitError() << "pointer address space must be non-negative, got "
                       << addressSpace;
  if (auto tensor = dyn_cast<RankedTensorType>(pointee)) {
    if (isa<PointerType>(tensor.getElementType()))
      return emitError() << "a block pointer cannot point to a tensor of pointers";
    return success();
  }
  if (isa<TensorType>(pointee))
    return emitError() << "a block pointer must point to a ranked tensor, got " << pointee;
  return success();
}

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

bool tessel::tt::isScalarPointer(Type type) {
  auto ptr = dyn_cast<PointerType>(type);
  return ptr && !isa<RankedTensorType>(ptr.getPointeeType());
}

bool tessel::tt::isBlockPointer(Type type) {
  auto ptr = dyn_cast<PointerType>(type);
  return ptr && isa<RankedTensorType>(ptr.getPointeeType());
}

bool tessel::tt::isPointerLike(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return isScalarPointer(tensor.getElementType());
  return isScalarPointer(type);
}

bool tessel::tt::hasPointerElements(Type type) {
  return isa<PointerType>(getElementTypeOrSelf(type));
}

Type tessel::tt::getLoadedType(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike)) {
    auto ptr = dyn_cast<PointerType>(tensor.getElementType());
    return ptr ? tensor.clone(ptr.getPointeeType()) : Type();
  }
  if (auto ptr = dyn_cast<PointerType>(ptrLike))
    return ptr.getPointeeType();
  return Type();
}

Type tessel::tt::getMaskType(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto ptr = dyn_cast<PointerType>(type))
    if (auto tensor = dyn_cast<RankedTensorType>(ptr.getPointeeType()))
      return tensor.clone(i1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}

Type tessel::tt::getBlockBaseType(Type blockPtr) {
  auto ptr = dyn_cast<PointerType>(blockPtr);
  auto tensor = ptr ? dyn_cast<RankedTensorType>(ptr.getPointeeType()) : nullptr;
  if (!tensor)
    return Type();
  return PointerType::get(tensor.getElementType(), ptr.getAddressSpace());
}

ArrayRef<int64_t> tessel::tt::getShapeOf(Type type) {
  if (auto ptr = dyn_cast<PointerType>(type))
    type = ptr.getPointeeType();
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}
