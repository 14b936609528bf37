//===- TritonOps.cpp - tt operations: verifiers and custom syntax -*- C++ -*-===//

#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tessel::tt;

/// Prints a shape as `128x64` for diagnostics.
static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s.empty() ? "scalar" : s;
}

//===----------------------------------------------------------------------===//
// FuncOp, CallOp, ReturnOp
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type, ArrayRef<NamedAttribute> attrs,
                   ArrayRef<DictionaryAttr> argAttrs) {
  state.addAttribute(SymbolTable::getSymbolAttrName(), builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.attributes.append(attrs.begin(), attrs.end());
  state.addRegion();
  if (argAttrs.empty())
    return;
  call_interface_impl::addArgAndResultAttrs(
      builder, state, argAttrs, /*resultAttrs=*/{}, getArgAttrsAttrName(state.name),
      getResAttrsAttrName(state.name));
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name),
      buildFuncType, getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(printer, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

bool FuncOp::isNoInline() {
  auto attr = (*this)->getAttrOfType<BoolAttr>("noinline");
  return attr && attr.getValue();
}

LogicalResult FuncOp::verify() {
  if (Attribute noinline = (*this)->getAttr("noinline"); noinline && !isa<BoolAttr>(noinline))
    return emitOpError("'noinline' must be a boolean, got ") << noinline;
  if (isExternal())
    return success();
  Block &entry = getBody().front();
  ArrayRef<Type> inputs = getFunctionType().getInputs();
  if (entry.getNumArguments() != inputs.size())
    return emitOpError("entry block has ")
           << entry.getNumArguments() << " arguments but the function type has "
           << inputs.size();
  for (auto [i, arg, type] : llvm::enumerate(entry.getArguments(), inputs))
    if (arg.getType() != type)
      return emitOpError("entry block argument #")
             << i << " has type " << arg.getType() << " but the function type says " << type;
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = getCalleeAttr();
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, callee);
  if (!fn)
    return emitOpError("'") << callee.getValue() << "' does not name a tt.func";
  FunctionType type = fn.getFunctionType();
  if (type.getNumInputs() != getNumOperands())
    return emitOpError("passes ") << getNumOperands() << " operands but '" << callee.getValue()
                                  << "' takes " << type.getNumInputs();
  for (auto [i, operand, expected] : llvm::enumerate(getOperandTypes(), type.getInputs()))
    if (operand != expected)
      return emitOpError("operand #") << i << " has type " << operand << " but '"
                                      << callee.getValue() << "' expects " << expected;
  if (type.getNumResults() != getNumResults())
    return emitOpError("expects ") << getNumResults() << " results but '" << callee.getValue()
                                   << "' returns " << type.getNumResults();
  for (auto [i, res, expected] : llvm::enumerate(getResultTypes(), type.getResults()))
    if (res != expected)
      return emitOpError("result #") << i << " has type " << res << " but '"
                                     << callee.getValue() << "' returns " << expected;
  return success();
}

LogicalResult ReturnOp::verify() {
  auto fn = cast<FuncOp>((*this)->getParentOp());
  ArrayRef<Type> results = fn.getFunctionType().getResults();
  if (getNumOperands() != results.size())
    return emitOpError("returns ") << getNumOperands() << " values but '" << fn.getName()
                                   << "' declares " << results.size() << " results";
  for (auto [i, value, expected] : llvm::enumerate(getOperandTypes(), results))
    if (value != expected)
      return emitOpError("value #") << i << " has type " << value << " but '" << fn.getName()
                                    << "' returns " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  if (end <= start)
    return emitOpError("needs start < end, got [") << start << ", " << end << ")";
  auto type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != end - start)
    return emitOpError("result must be tensor<") << (end - start) << "xi32> for ["
                                                 << start << ", " << end << "), got " << type;
  return success();
}

LogicalResult SplatOp::verify() {
  if (isa<RankedTensorType>(getSrc().getType()))
    return emitOpError("source must be a scalar, got ") << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), res = getType();
  if (src.getRank() != res.getRank())
    return emitOpError("source rank ") << src.getRank() << " differs from result rank "
                                       << res.getRank();
  for (auto [i, s, r] : llvm::enumerate(src.getShape(), res.getShape()))
    if (s != r && s != 1)
      return emitOpError("dimension ") << i << " of size " << s
                                       << " can only broadcast if it is 1 or " << r;
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), res = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ") << axis << " out of range for a rank-" << src.getRank()
                                << " source";
  SmallVector<int64_t> expected(src.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ") << shapeString(res.getShape()) << " should be "
                                        << shapeString(expected);
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), res = getType();
  if (src.getNumElements() != res.getNumElements())
    return emitOpError("cannot reshape ") << shapeString(src.getShape()) << " ("
                                          << src.getNumElements() << " elements) to "
                                          << shapeString(res.getShape()) << " ("
                                          << res.getNumElements() << " elements)";
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), res = getType();
  ArrayRef<int32_t> order = getOrder();
  if (static_cast<int64_t>(order.size()) != src.getRank())
    return emitOpError("order has ") << order.size() << " entries for a rank-"
                                     << src.getRank() << " source";
  SmallVector<bool> seen(order.size(), false);
  SmallVector<int64_t> expected;
  for (int32_t d : order) {
    if (d < 0 || d >= src.getRank() || seen[d])
      return emitOpError("order must be a permutation of 0..") << (src.getRank() - 1);
    seen[d] = true;
    expected.push_back(src.getDimSize(d));
  }
  if (res.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ") << shapeString(res.getShape()) << " should be "
                                        << shapeString(expected);
  return success();
}

LogicalResult JoinOp::verify() {
  auto src = getLhs().getType(), res = getType();
  SmallVector<int64_t> expected(src.getShape());
  expected.push_back(2);
  if (res.getShape() != ArrayRef<int64_t>(expected) ||
      res.getElementType() != src.getElementType())
    return emitOpError("result must be ") << shapeString(expected) << " of "
                                          << src.getElementType() << ", got " << res;
  return success();
}

LogicalResult SplitOp::verify() {
  auto src = getSrc().getType(), res = getOutLHS().getType();
  if (src.getRank() == 0 || src.getShape().back() != 2)
    return emitOpError("source's last dimension must be 2, got ") << src;
  if (res.getShape() != src.getShape().drop_back() ||
      res.getElementType() != src.getElementType())
    return emitOpError("results must be ")
           << shapeString(src.getShape().drop_back()) << " of " << src.getElementType()
           << ", got " << res;
  return success();
}

LogicalResult CatOp::verify() {
  auto src = getLhs().getType(), res = getType();
  if (src.getRank() != res.getRank() || src.getRank() == 0)
    return emitOpError("result rank must equal the operands' rank");
  if (res.getNumElements() != 2 * src.getNumElements())
    return emitOpError("result must hold the ")
           << 2 * src.getNumElements() << " elements of both operands, got " << res;
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  Type ptr = getPtr().getType(), offset = getOffset().getType();
  bool ptrTensor = isa<RankedTensorType>(ptr), offTensor = isa<RankedTensorType>(offset);
  if (ptrTensor != offTensor)
    return emitOpError("pointer ") << ptr << " and offset " << offset
                                   << " must both be scalars or both be tensors";
  if (ptrTensor && getShapeOf(ptr) != getShapeOf(offset))
    return emitOpError("offset shape ") << shapeString(getShapeOf(offset))
                                        << " differs from pointer shape "
                                        << shapeString(getShapeOf(ptr));
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  // A splat of a constant scalar is a constant tensor.
  if (auto value = dyn_cast_or_null<TypedAttr>(adaptor.getSrc()))
    if (isa<IntegerAttr, FloatAttr>(value))
      return SplatElementsAttr::get(cast<ShapedType>(getType()), value);
  return {};
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  // p + 0 is p.
  if (matchPattern(getOffset(), m_Zero()))
    return getPtr();
  return {};
}

/// Block-pointer-only attributes may only be used with block pointers, and name dimensions
/// that exist.
static LogicalResult verifyBoundaryCheck(Operation *op, Type ptr,
                                         ArrayRef<int32_t> boundaryCheck) {
  if (boundaryCheck.empty())
    return success();
  if (!isBlockPointer(ptr))
    return op->emitOpError("boundaryCheck needs a block pointer, got ") << ptr;
  int64_t rank = getShapeOf(ptr).size();
  for (int32_t d : boundaryCheck)
    if (d < 0 || d >= rank)
      return op->emitOpError("boundaryCheck dimension ") << d << " out of range for rank "
                                                         << rank;
  return success();
}

LogicalResult LoadOp::verify() {
  Type ptr = getPtr().getType();
  if (isBlockPointer(ptr) && (getMask() || getOther()))
    return emitOpError("a block-pointer load takes boundaryCheck/padding, not mask/other");
  if (getPadding() && !isBlockPointer(ptr))
    return emitOpError("padding needs a block pointer, got ") << ptr;
  return verifyBoundaryCheck(*this, ptr, getBoundaryCheck());
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(),
                       SideEffects::DefaultResource::get());
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

LogicalResult StoreOp::verify() {
  Type ptr = getPtr().getType();
  if (isBlockPointer(ptr) && getMask())
    return emitOpError("a block-pointer store takes boundaryCheck, not a mask");
  return verifyBoundaryCheck(*this, ptr, getBoundaryCheck());
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(),
                       SideEffects::DefaultResource::get());
}

LogicalResult MakeTensorPtrOp::verify() {
  auto ptrType = cast<PointerType>(getType());
  auto tensor = cast<RankedTensorType>(ptrType.getPointeeType());
  auto base = cast<PointerType>(getBase().getType());
  size_t rank = tensor.getRank();
  if (getShape().size() != rank || getStrides().size() != rank || getOffsets().size() != rank)
    return emitOpError("needs ") << rank << " shape, stride and offset values for a rank-"
                                 << rank << " block, got " << getShape().size() << ", "
                                 << getStrides().size() << " and " << getOffsets().size();
  if (base.getPointeeType() != tensor.getElementType())
    return emitOpError("base points to ") << base.getPointeeType()
                                          << " but the block holds " << tensor.getElementType();
  ArrayRef<int32_t> order = getOrder();
  if (order.size() != rank)
    return emitOpError("order has ") << order.size() << " entries for a rank-" << rank
                                     << " block";
  SmallVector<bool> seen(rank, false);
  for (int32_t d : order) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[d])
      return emitOpError("order must be a permutation of 0..") << (rank - 1);
    seen[d] = true;
  }
  return success();
}

LogicalResult AdvanceOp::verify() {
  size_t rank = getShapeOf(getPtr().getType()).size();
  if (getOffsets().size() != rank)
    return emitOpError("needs ") << rank << " offsets for a rank-" << rank
                                 << " block pointer, got " << getOffsets().size();
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  Type elem = getElementTypeOrSelf(getVal().getType());
  RMWOp kind = getAtomicRmwOp();
  if (kind == RMWOp::FADD && !isa<FloatType>(elem))
    return emitOpError("fadd needs floating-point values, got ") << elem;
  if ((kind == RMWOp::AND || kind == RMWOp::OR || kind == RMWOp::XOR ||
       kind == RMWOp::UMAX || kind == RMWOp::UMIN) &&
      !isa<IntegerType>(elem))
    return emitOpError("'") << stringifyRMWOp(kind) << "' needs integer values, got " << elem;
  return success();
}

static void addReadWriteEffects(
    OpOperand &ptr,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &ptr, SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), &ptr, SideEffects::DefaultResource::get());
}

void AtomicRMWOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addReadWriteEffects(getPtrMutable(), effects);
}

void AtomicCASOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addReadWriteEffects(getPtrMutable(), effects);
}

//===----------------------------------------------------------------------===//
// Casts and math
//===----------------------------------------------------------------------===//

/// Width in bits of a scalar element; pointers are 64-bit.
static unsigned elementBitWidth(Type type) {
  Type elem = getElementTypeOrSelf(type);
  if (isa<PointerType>(elem))
    return 64;
  return elem.getIntOrFloatBitWidth();
}

LogicalResult BitcastOp::verify() {
  unsigned from = elementBitWidth(getSrc().getType()), to = elementBitWidth(getType());
  if (from != to)
    return emitOpError("cannot bitcast ") << from << "-bit elements to " << to << "-bit ones";
  return success();
}

LogicalResult FpToFpOp::verify() {
  unsigned from = elementBitWidth(getSrc().getType()), to = elementBitWidth(getType());
  if (to < from && !getRounding())
    return emitOpError("narrowing from ") << from << " to " << to
                                          << " bits needs a rounding mode";
  return success();
}

/// An op that is not pure (a library call, inline assembly) may read and write anything.
static void impureEffects(
    bool pure, SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (pure)
    return;
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  impureEffects(getPure(), effects);
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  impureEffects(getPure(), effects);
}

LogicalResult ElementwiseInlineAsmOp::verify() {
  if (getPackedElement() < 1)
    return emitOpError() << "packed_element must be at least 1, got " << getPackedElement();
  if (getResult().empty())
    return emitOpError() << "needs at least one result";
  std::optional<ArrayRef<int64_t>> shape;
  SmallVector<Type> types(getArgs().getTypes());
  llvm::append_range(types, getResult().getTypes());
  for (Type t : types) {
    ArrayRef<int64_t> s;
    if (auto tensor = dyn_cast<RankedTensorType>(t))
      s = tensor.getShape();
    if (shape && *shape != s)
      return emitOpError() << "operands and results must have one shape";
    shape = s;
  }
  return success();
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType());
  auto b = cast<RankedTensorType>(getB().getType());
  auto c = cast<RankedTensorType>(getC().getType());
  int64_t rank = a.getRank();
  if (rank < 2 || rank > 3 || b.getRank() != rank || c.getRank() != rank)
    return emitOpError("operands must all be 2-D (or all 3-D for a batch), got ")
           << a << ", " << b << " and " << c;
  ArrayRef<int64_t> as = a.getShape(), bs = b.getShape(), cs = c.getShape();
  if (as[rank - 1] != bs[rank - 2])
    return emitOpError("a is ") << shapeString(as) << " and b is " << shapeString(bs)
                                << ": their inner dimensions differ";
  if (cs[rank - 2] != as[rank - 2] || cs[rank - 1] != bs[rank - 1] ||
      (rank == 3 && (as[0] != bs[0] || as[0] != cs[0])))
    return emitOpError("accumulator is ") << shapeString(cs) << " but a*b is "
                                          << shapeString({as[0], rank == 3 ? as[1] : bs[1]})
                                          << (rank == 3 ? "x..." : "");
  if (a.getElementType() != b.getElementType() &&
      !(isa<FloatType>(a.getElementType()) && isa<FloatType>(b.getElementType()) &&
        a.getElementType().getIntOrFloatBitWidth() == 8 &&
        b.getElementType().getIntOrFloatBitWidth() == 8))
    return emitOpError("a and b must have the same element type, got ")
           << a.getElementType() << " and " << b.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions, scans, histograms, gathers
//===----------------------------------------------------------------------===//

/// Checks the combine region of a reduce/scan: 2*N scalar arguments (accumulators then new
/// values, each of its operand's element type) and a terminator yielding N such values.
static LogicalResult verifyCombineRegion(Operation *op, Region &region, ValueRange srcs) {
  Block &block = region.front();
  size_t n = srcs.size();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError("combine region needs ") << 2 * n << " arguments for " << n
                                                    << " operands, got "
                                                    << block.getNumArguments();
  for (size_t i = 0; i < 2 * n; ++i) {
    Type expected = getElementTypeOrSelf(srcs[i % n].getType());
    if (block.getArgument(i).getType() != expected)
      return op->emitOpError("combine region argument #")
             << i << " must be " << expected << ", got " << block.getArgument(i).getType();
  }
  Operation *terminator = block.getTerminator();
  if (terminator->getNumOperands() != n)
    return op->emitOpError("combine region must yield ") << n << " values, got "
                                                         << terminator->getNumOperands();
  for (size_t i = 0; i < n; ++i) {
    Type expected = getElementTypeOrSelf(srcs[i].getType());
    if (terminator->getOperand(i).getType() != expected)
      return op->emitOpError("combine region yields ")
             << terminator->getOperand(i).getType() << " as value #" << i << ", expected "
             << expected;
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one operand");
  auto src = cast<RankedTensorType>(getSrcs().front().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank " << src.getRank();
  if (getNumResults() != getSrcs().size())
    return emitOpError("has ") << getSrcs().size() << " operands but " << getNumResults()
                               << " results";
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + axis);
  for (auto [i, operand, result] : llvm::enumerate(getSrcs(), getResults())) {
    Type elem = getElementTypeOrSelf(operand.getType());
    Type expected = shape.empty() ? elem : RankedTensorType::get(shape, elem);
    if (result.getType() != expected)
      return emitOpError("result #") << i << " must be " << expected << ", got "
                                     << result.getType();
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombineRegion(*this, getCombineOp(), getSrcs());
}

LogicalResult ScanOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one operand");
  auto src = cast<RankedTensorType>(getSrcs().front().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank " << src.getRank();
  if (getNumResults() != getSrcs().size())
    return emitOpError("has ") << getSrcs().size() << " operands but " << getNumResults()
                               << " results";
  for (auto [i, operand, result] : llvm::enumerate(getSrcs(), getResults()))
    if (result.getType() != operand.getType())
      return emitOpError("result #") << i << " must be " << operand.getType() << ", got "
                                     << result.getType();
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombineRegion(*this, getCombineOp(), getSrcs());
}

LogicalResult HistogramOp::verify() {
  if (getSrc().getType().getRank() != 1 || getType().getRank() != 1)
    return emitOpError("source and result must be 1-D, got ")
           << getSrc().getType() << " and " << getType();
  return success();
}

LogicalResult GatherOp::verify() {
  auto src = getSrc().getType(), idx = getIndices().getType(), res = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for rank " << src.getRank();
  if (idx.getRank() != src.getRank())
    return emitOpError("indices rank ") << idx.getRank() << " differs from source rank "
                                        << src.getRank();
  if (res.getShape() != idx.getShape() || res.getElementType() != src.getElementType())
    return emitOpError("result must be ") << shapeString(idx.getShape()) << " of "
                                          << src.getElementType() << ", got " << res;
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && idx.getDimSize(d) != src.getDimSize(d))
      return emitOpError("indices dimension ") << d << " is " << idx.getDimSize(d)
                                               << " but the source's is " << src.getDimSize(d);
  return success();
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError("isSigned has ") << getIsSigned().size() << " entries for "
                                        << getArgs().size() << " arguments";
  return success();
}

#define GET_OP_CLASSES
#include "compiler/dialect/triton/TritonOps.cpp.inc"
