//===- StructuredToMemrefPass.cpp - the structured-to-memref pass -*- C++ -*-===//
//
// Pointers become memrefs. Every scalar pointer is a (root memref, index offset) pair: the root
// is a function argument of type memref<?xT, strided<[1], offset: ?>>, or such a memref made
// from the address a tt.int_to_ptr converts. tts tiles become
// reinterpret_casts of the root (two per wrap-around dimension); loads copy into a fresh
// buffer, stores materialize into the view. Tensors of pointers left by triton-to-structured
// become tensors of index offsets, and their loads, stores and atomics per-element loops.
//
// A wrap-around dimension (`(o + i) % M`) may wrap more than once when the parent M can be
// shorter than the tile less one row: its second view stops at M, so no view leaves the
// buffer, and a load gathers the tile element by element, `(o + i) mod M`, where at run time
// it does wrap more than once (an scf.if marked `tessel.wrap_gather`, after the copies; the
// GPU backends fold it into their tile copies). A store needs no gather: its two views write
// every row the tile addresses, from one of the elements that address it (which one, Triton
// leaves unspecified).
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/Passes.h"
#include "compiler/conversion/shape/ShapeBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace tessel {
#define GEN_PASS_DEF_STRUCTUREDTOMEMREF
#include "compiler/conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;
namespace tt = tessel::tt;
namespace tts = tessel::tts;

namespace {

/// Where a pointer (or each element of a tensor of pointers) points: `root` at `offset`
/// (an index, or a tensor of indices), counted in elements from the start of `root`.
struct Address {
  Value root;
  Value offset;
};

MemRefType rootType(Type pointee) {
  MLIRContext *ctx = pointee.getContext();
  auto layout = StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {1});
  return MemRefType::get({ShapedType::kDynamic}, pointee, layout);
}

using tt::hasPointerElements;

Value indexValue(OpBuilder &b, Location loc, OpFoldResult v) {
  return getValueOrCreateConstantIndexOp(b, loc, v);
}

/// An all-parallel linalg.generic over tensors of the same shape applying `fn` per element.
Value mapElements(OpBuilder &b, Location loc, ValueRange inputs, RankedTensorType resultType,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  int64_t rank = resultType.getRank();
  Value init = tessel::emptyLike(b, loc, resultType);
  SmallVector<AffineMap> maps(inputs.size() + 1, b.getMultiDimIdentityMap(rank));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, fn(nb, l, args.drop_back()));
      });
  return generic.getResult(0);
}

std::optional<arith::AtomicRMWKind> atomicKind(tt::RMWOp op, Type elem) {
  bool isFloat = isa<FloatType>(elem);
  switch (op) {
  case tt::RMWOp::ADD:
    return isFloat ? arith::AtomicRMWKind::addf : arith::AtomicRMWKind::addi;
  case tt::RMWOp::FADD:
    return arith::AtomicRMWKind::addf;
  case tt::RMWOp::AND:
    return arith::AtomicRMWKind::andi;
  case tt::RMWOp::OR:
    return arith::AtomicRMWKind::ori;
  case tt::RMWOp::XOR:
    return arith::AtomicRMWKind::xori;
  case tt::RMWOp::MAX:
    return isFloat ? arith::AtomicRMWKind::maximumf : arith::AtomicRMWKind::maxs;
  case tt::RMWOp::MIN:
    return isFloat ? arith::AtomicRMWKind::minimumf : arith::AtomicRMWKind::mins;
  case tt::RMWOp::UMAX:
    return arith::AtomicRMWKind::maxu;
  case tt::RMWOp::UMIN:
    return arith::AtomicRMWKind::minu;
  case tt::RMWOp::XCHG:
    return arith::AtomicRMWKind::assign;
  }
  return std::nullopt;
}

class Lowering {
public:
  explicit Lowering(func::FuncOp func) : func(func) {}

  LogicalResult run() {
    // The ops of the input, before lowering adds its own.
    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != func.getOperation())
        ops.push_back(op);
    });
    convertSignature();
    for (Operation *op : ops)
      if (failed(lower(op)))
        return failure();
    for (Operation *op : llvm::reverse(dead))
      op->erase();
    return success();
  }

private:
  void convertSignature() {
    if (func.isExternal())
      return;
    SmallVector<Type> inputs(func.getArgumentTypes());
    Block &entry = func.getBody().front();
    OpBuilder b(&entry, entry.begin());
    for (auto [i, type] : llvm::enumerate(inputs)) {
      auto ptr = dyn_cast<tt::PointerType>(type);
      if (!ptr || isa<RankedTensorType>(ptr.getPointeeType()))
        continue;
      inputs[i] = rootType(ptr.getPointeeType());
      BlockArgument arg = entry.getArgument(i);
      arg.setType(inputs[i]);
      addresses[arg] = {arg, arith::ConstantIndexOp::create(b, func.getLoc(), 0)};
      // Offsets are kept relative to the argument; a reinterpret_cast needs them absolute.
      rootOffsets[arg] =
          memref::ExtractStridedMetadataOp::create(b, func.getLoc(), arg).getOffset();
    }
    func.setFunctionType(FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  }

  /// A scalar int_to_ptr: a root memref whose descriptor points at the address (offset 0, unit
  /// stride, the largest size: nothing tells how far the memory reaches).
  LogicalResult lowerIntToPtr(tt::IntToPtrOp toPtr) {
    auto ptrType = dyn_cast<tt::PointerType>(toPtr.getType());
    if (!ptrType)
      return unsupported(toPtr, "a tensor of addresses converted to pointers has no root memory "
                                "(convert one scalar address and add offsets to it)");
    if (!ptrType.getPointeeType().isIntOrFloat())
      return unsupported(toPtr, "an address converted to a pointer to a pointer or a block has "
                                "no memory to view (convert it to a pointer to elements)");
    OpBuilder b(toPtr);
    Location loc = toPtr.getLoc();
    MLIRContext *ctx = b.getContext();
    Type i64 = b.getI64Type();
    auto llvmPtr = LLVM::LLVMPointerType::get(ctx);
    auto dims = LLVM::LLVMArrayType::get(i64, 1);
    auto descriptorType = LLVM::LLVMStructType::getLiteral(ctx, {llvmPtr, llvmPtr, i64, dims, dims});
    Value address = LLVM::IntToPtrOp::create(b, loc, llvmPtr, toPtr.getSrc());
    auto i64Constant = [&](int64_t v) {
      return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
    };
    Value d = LLVM::PoisonOp::create(b, loc, descriptorType);
    d = LLVM::InsertValueOp::create(b, loc, d, address, ArrayRef<int64_t>{0});
    d = LLVM::InsertValueOp::create(b, loc, d, address, ArrayRef<int64_t>{1});
    d = LLVM::InsertValueOp::create(b, loc, d, i64Constant(0), ArrayRef<int64_t>{2});
    d = LLVM::InsertValueOp::create(b, loc, d, i64Constant(std::numeric_limits<int64_t>::max()),
                                    ArrayRef<int64_t>{3, 0});
    d = LLVM::InsertValueOp::create(b, loc, d, i64Constant(1), ArrayRef<int64_t>{4, 0});
    Value root = UnrealizedConversionCastOp::create(b, loc, rootType(ptrType.getPointeeType()), d)
                     .getResult(0);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    addresses[toPtr.getResult()] = {root, zero};
    rootOffsets[root] = zero;
    dead.push_back(toPtr);
    return success();
  }

  LogicalResult unsupported(Operation *op, const Twine &what) {
    return op->emitError() << "structured-to-memref: " << what;
  }

  std::optional<Address> addressOf(Operation *user, Value ptr) {
    auto it = addresses.find(ptr);
    if (it != addresses.end())
      return it->second;
    user->emitError() << "structured-to-memref: cannot tell which argument or converted "
                         "address this pointer comes from (pointers through control flow and "
                         "pointer results are not supported)";
    return std::nullopt;
  }

  LogicalResult lower(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto call = dyn_cast<func::CallOp>(op))
      return lowerCall(call);
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return lowerLoopCarriedPointers(loop);
    if (auto yield = dyn_cast<scf::YieldOp>(op); yield && rewrittenLoops.count(op->getParentOp()))
      return lowerLoopYield(yield);
    if (auto addptr = dyn_cast<tt::AddPtrOp>(op)) {
      std::optional<Address> base = addressOf(op, addptr.getPtr());
      if (!base)
        return failure();
      Value offset = addptr.getOffset();
      Value result;
      if (auto type = dyn_cast<RankedTensorType>(offset.getType())) {
        auto indexType = RankedTensorType::get(type.getShape(), b.getIndexType());
        result = mapElements(b, loc, ValueRange{base->offset, offset}, indexType,
                             [](OpBuilder &nb, Location l, ValueRange args) -> Value {
                               Value o = arith::IndexCastOp::create(nb, l, nb.getIndexType(),
                                                                    args[1]);
                               return arith::AddIOp::create(nb, l, args[0], o);
                             });
      } else {
        Value o = arith::IndexCastOp::create(b, loc, b.getIndexType(), offset);
        result = arith::AddIOp::create(b, loc, base->offset, o);
      }
      addresses[addptr.getResult()] = {base->root, result};
      dead.push_back(op);
      return success();
    }
    if (auto splat = dyn_cast<tt::SplatOp>(op); splat && hasPointerElements(splat.getType())) {
      std::optional<Address> base = addressOf(op, splat.getSrc());
      if (!base)
        return failure();
      auto type = RankedTensorType::get(splat.getType().getShape(), b.getIndexType());
      Value init = tensor::EmptyOp::create(b, loc, type.getShape(), b.getIndexType());
      Value offsets =
          linalg::FillOp::create(b, loc, ValueRange{base->offset}, ValueRange{init}).getResult(0);
      addresses[splat.getResult()] = {base->root, offsets};
      dead.push_back(op);
      return success();
    }
    if (isa<tt::BroadcastOp, tt::ExpandDimsOp>(op) && hasPointerElements(op->getResult(0).getType()))
      return lowerPointerShapeOp(op);
    if (auto make = dyn_cast<tts::MakeTensorPtrOp>(op)) {
      dead.push_back(op);
      return success(); // lowered at each load and store
    }
    if (auto load = dyn_cast<tts::LoadOp>(op))
      return lowerTileLoad(load);
    if (auto store = dyn_cast<tts::StoreOp>(op))
      return lowerTileStore(store);
    if (auto load = dyn_cast<tt::LoadOp>(op))
      return lowerLoad(load);
    if (auto store = dyn_cast<tt::StoreOp>(op))
      return lowerStore(store);
    if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op))
      return lowerAtomic(op, rmw.getPtr(), rmw.getMask());
    if (auto cas = dyn_cast<tt::AtomicCASOp>(op))
      return lowerAtomic(op, cas.getPtr(), Value());
    if (auto toPtr = dyn_cast<tt::IntToPtrOp>(op))
      return lowerIntToPtr(toPtr);
    if (isa<tt::PrintOp>(op)) {
      // Printing is target-specific: the backend lowers it. A pointer has become a memref and
      // an offset here, which no backend prints.
      for (Value v : op->getOperands())
        if (hasPointerElements(v.getType()) || addresses.count(v))
          return unsupported(op, "printing a pointer is not supported (print the offsets)");
      return success();
    }
    if (isa<tt::TritonDialect, tts::StructuredDialect>(op->getDialect()))
      return unsupported(op, Twine("'") + op->getName().getStringRef() +
                                 "' is not supported here");
    // Arguments were already rewritten to memrefs, so look at what flows in and out.
    auto isPointerValue = [&](Value v) {
      return hasPointerElements(v.getType()) || addresses.count(v);
    };
    if (llvm::any_of(op->getOperands(), isPointerValue) ||
        llvm::any_of(op->getResults(), isPointerValue))
      return unsupported(op, "pointers carried through '" + op->getName().getStringRef() +
                                 "' are not supported");
    return success();
  }

  /// The type that carries a pointer's offsets: index, or a tensor of indices.
  static Type offsetType(Type pointerType) {
    if (auto tensor = dyn_cast<RankedTensorType>(pointerType))
      return RankedTensorType::get(tensor.getShape(), IndexType::get(tensor.getContext()));
    return IndexType::get(pointerType.getContext());
  }

  /// Pointers carried through a loop that triton-to-structured could not structure: the loop
  /// carries their offsets instead (the root must stay the same).
  LogicalResult lowerLoopCarriedPointers(scf::ForOp loop) {
    SmallVector<unsigned> positions;
    for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
      if (addresses.count(init))
        positions.push_back(i);
    if (positions.empty())
      return success();
    OpBuilder b(loop);
    SmallVector<Value> inits(loop.getInitArgs());
    SmallVector<Value> roots;
    for (unsigned i : positions) {
      if (tt::isBlockPointer(inits[i].getType()))
        return unsupported(loop, "a block pointer carried by a loop was not structured");
      Address a = addresses.lookup(inits[i]);
      roots.push_back(a.root);
      inits[i] = a.offset;
    }
    auto newLoop = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep(), inits);
    Block *oldBody = loop.getBody(), *newBody = newLoop.getBody();
    for (auto [k, i] : llvm::enumerate(positions))
      addresses[newBody->getArgument(1 + i)] = {roots[k], newBody->getArgument(1 + i)};
    for (auto [k, i] : llvm::enumerate(positions)) {
      // Remaining users of the old pointer block argument read its address from the map.
      Value oldArg = oldBody->getArgument(1 + i);
      addresses[oldArg] = addresses[newBody->getArgument(1 + i)];
    }
    for (auto [oldArg, newArg] : llvm::zip(oldBody->getArguments(), newBody->getArguments()))
      if (oldArg.getType() == newArg.getType())
        oldArg.replaceAllUsesWith(newArg);
    newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
    rewrittenLoops[newLoop] = {positions, roots};
    for (auto [i, result] : llvm::enumerate(loop.getResults())) {
      auto it = llvm::find(positions, i);
      if (it == positions.end()) {
        result.replaceAllUsesWith(newLoop.getResult(i));
        continue;
      }
      addresses[result] = {roots[it - positions.begin()], newLoop.getResult(i)};
      addresses[newLoop.getResult(i)] = addresses[result];
    }
    dead.push_back(loop);
    return success();
  }

  LogicalResult lowerLoopYield(scf::YieldOp yield) {
    auto &[positions, roots] = rewrittenLoops[yield->getParentOp()];
    for (auto [k, i] : llvm::enumerate(positions)) {
      std::optional<Address> a = addressOf(yield, yield.getOperand(i));
      if (!a)
        return failure();
      if (a->root != roots[k])
        return unsupported(yield, "a loop-carried pointer moves to another argument");
      yield->setOperand(i, a->offset);
    }
    return success();
  }

  LogicalResult lowerCall(func::CallOp call) {
    OpBuilder b(call);
    SmallVector<Value> operands;
    for (Value v : call.getOperands()) {
      if (!tt::isScalarPointer(v.getType())) {
        if (hasPointerElements(v.getType()))
          return unsupported(call, "tensors of pointers cannot be passed to a call");
        operands.push_back(v);
        continue;
      }
      std::optional<Address> a = addressOf(call, v);
      if (!a)
        return failure();
      auto type = cast<MemRefType>(a->root.getType());
      // The callee sees its pointer as a root of its own: the rest of the caller's root from
      // the offset on.
      Value extent = memref::DimOp::create(b, call.getLoc(), a->root, 0);
      Value rest = arith::SubIOp::create(b, call.getLoc(), extent, a->offset);
      Value view = memref::SubViewOp::create(b, call.getLoc(), a->root,
                                             ArrayRef<OpFoldResult>{a->offset},
                                             ArrayRef<OpFoldResult>{rest},
                                             ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
      if (view.getType() != type)
        view = memref::CastOp::create(b, call.getLoc(), type, view);
      operands.push_back(view);
    }
    call->setOperands(operands);
    return success();
  }

  LogicalResult lowerPointerShapeOp(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    std::optional<Address> src = addressOf(op, op->getOperand(0));
    if (!src)
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    auto indexType = RankedTensorType::get(resultType.getShape(), b.getIndexType());
    Value offsets =
        isa<tt::ExpandDimsOp>(op)
            ? tessel::buildExpandDims(b, loc, src->offset, indexType,
                                      cast<tt::ExpandDimsOp>(op).getAxis())
            : tessel::buildBroadcast(b, loc, src->offset, indexType);
    addresses[op->getResult(0)] = {src->root, offsets};
    dead.push_back(op);
    return success();
  }

  /// One rectangular piece of a tile: a view of memory and where it sits in the tile.
  struct Piece {
    Value view;
    SmallVector<OpFoldResult> tileOffsets, sizes;
  };

  /// Whether wrap-around dimension `d` of `make` may wrap more than once: its parent size is
  /// not a constant of at least the tile's size less one (the first view then holds at least
  /// one row, so the second at most size - 1 <= parent).
  static bool mayWrapTwice(tts::MakeTensorPtrOp make, int64_t d) {
    std::optional<int64_t> parent = getConstantIntValue(make.getMixedParentSizes()[d]);
    return !parent || *parent < make.getSizes()[d] - 1;
  }

  /// Whether dimension `d` of `make` wraps around.
  static bool wraps(tts::MakeTensorPtrOp make, int64_t d) {
    return !make.isBlockPointer() && !isConstantIntValue(make.getMixedParentSizes()[d], 0);
  }

  /// The views a tile is made of: one, or two per wrap-around dimension, each inside the
  /// parent. With `wrapsTwice`, set to whether at run time some dimension wraps more than once
  /// (the views then miss rows); null where no dimension can.
  FailureOr<SmallVector<Piece>> tilePieces(OpBuilder &b, Location loc,
                                           tts::MakeTensorPtrOp make,
                                           Value *wrapsTwice = nullptr) {
    // The base operand by position: after function conversion it may already be a memref, which
    // the typed accessor (a !tt.ptr cast) would not accept.
    std::optional<Address> base = addressOf(make, make->getOperand(0));
    if (!base)
      return failure();
    ArrayRef<int64_t> sizes = make.getSizes();
    SmallVector<OpFoldResult> strides = make.getMixedStrides();
    SmallVector<OpFoldResult> offsets = make.getMixedOffsets();
    SmallVector<OpFoldResult> parents = make.getMixedParentSizes();
    int64_t rank = sizes.size();
    if (wrapsTwice)
      *wrapsTwice = Value();

    // Per dimension, one or two (memory index, tile offset, size) choices.
    struct Choice {
      Value memIndex;
      OpFoldResult tileOffset, size;
    };
    SmallVector<SmallVector<Choice, 2>> choices(rank);
    for (int64_t d = 0; d < rank; ++d) {
      Value off = indexValue(b, loc, offsets[d]);
      if (!wraps(make, d)) {
        choices[d].push_back({off, b.getIndexAttr(0), b.getIndexAttr(sizes[d])});
        continue;
      }
      // Wrap-around: rows start..min(start + size, parent), then 0..the rest.
      Value parent = indexValue(b, loc, parents[d]);
      Value start = arith::RemSIOp::create(b, loc, off, parent);
      Value avail = arith::SubIOp::create(b, loc, parent, start);
      Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
      Value first = arith::MinSIOp::create(b, loc, avail, size);
      Value second = arith::SubIOp::create(b, loc, size, first);
      if (mayWrapTwice(make, d)) {
        // Rows past the parent's end again repeat it: the view stops there.
        if (wrapsTwice) {
          Value twice = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, second, parent);
          *wrapsTwice =
              *wrapsTwice ? arith::OrIOp::create(b, loc, *wrapsTwice, twice).getResult() : twice;
        }
        second = arith::MinSIOp::create(b, loc, second, parent);
      }
      choices[d].push_back({start, b.getIndexAttr(0), first});
      choices[d].push_back({arith::ConstantIndexOp::create(b, loc, 0), first, second});
    }
    SmallVector<Piece> pieces;
    SmallVector<int64_t> pick(rank, 0);
    Type elem = cast<MemRefType>(base->root.getType()).getElementType();
    while (true) {
      Value linear = arith::AddIOp::create(b, loc, rootOffsets.lookup(base->root), base->offset);
      Piece piece;
      SmallVector<int64_t> staticSizes, staticStrides;
      for (int64_t d = 0; d < rank; ++d) {
        const Choice &c = choices[d][pick[d]];
        Value stride = indexValue(b, loc, strides[d]);
        linear = arith::AddIOp::create(b, loc, linear,
                                       arith::MulIOp::create(b, loc, c.memIndex, stride));
        piece.tileOffsets.push_back(c.tileOffset);
        piece.sizes.push_back(c.size);
        std::optional<int64_t> s = getConstantIntValue(c.size);
        staticSizes.push_back(s ? *s : ShapedType::kDynamic);
        std::optional<int64_t> st = getConstantIntValue(strides[d]);
        staticStrides.push_back(st ? *st : ShapedType::kDynamic);
      }
      auto layout =
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, staticStrides);
      auto viewType = MemRefType::get(staticSizes, elem, layout);
      SmallVector<OpFoldResult> viewSizes(piece.sizes), viewStrides(strides);
      piece.view = memref::ReinterpretCastOp::create(b, loc, viewType, base->root,
                                                     OpFoldResult(linear), viewSizes,
                                                     viewStrides);
      pieces.push_back(std::move(piece));
      int64_t d = rank - 1;
      while (d >= 0 && ++pick[d] == static_cast<int64_t>(choices[d].size()))
        pick[d--] = 0;
      if (d < 0)
        break;
    }
    // triton-to-structured's AxisInfo-proven alignment of the tile's first element; only a
    // single view starts there.
    if (auto alignment = make->getAttrOfType<IntegerAttr>("tessel.alignment");
        alignment && pieces.size() == 1)
      pieces[0].view = memref::AssumeAlignmentOp::create(
          b, loc, pieces[0].view, b.getI32IntegerAttr(alignment.getInt()));
    return pieces;
  }

  /// Where `wrapsTwice` holds, `buffer` (the tile of `make`) read element by element:
  /// element i from `(offsets[d] + i_d) mod parent_sizes[d]` along wrap-around dimensions,
  /// `offsets[d] + i_d` along the others; elements outside `mask` keep what they hold.
  LogicalResult gatherWrapped(OpBuilder &b, Location loc, tts::MakeTensorPtrOp make,
                              Value buffer, ArrayRef<OpFoldResult> mask, Value wrapsTwice) {
    std::optional<Address> base = addressOf(make, make->getOperand(0));
    if (!base)
      return failure();
    int64_t rank = make.getSizes().size();
    SmallVector<Value> offsets, parents, strides, bounds;
    for (int64_t d = 0; d < rank; ++d) {
      offsets.push_back(indexValue(b, loc, make.getMixedOffsets()[d]));
      parents.push_back(wraps(make, d) ? indexValue(b, loc, make.getMixedParentSizes()[d])
                                       : Value());
      strides.push_back(indexValue(b, loc, make.getMixedStrides()[d]));
      if (!mask.empty())
        bounds.push_back(indexValue(b, loc, mask[d]));
    }
    auto ifTwice = scf::IfOp::create(b, loc, wrapsTwice, /*withElseRegion=*/false);
    // Named for the GPU backends, which write the tile in per-thread chunks (TileCopies.h).
    ifTwice->setAttr("tessel.wrap_gather", b.getUnitAttr());
    OpBuilder in = ifTwice.getThenBodyBuilder();
    SmallVector<AffineMap> maps{in.getMultiDimIdentityMap(rank)};
    linalg::GenericOp::create(
        in, loc, TypeRange{}, ValueRange{}, ValueRange{buffer}, maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          // Relative to the root memref (memref.load adds its offset), as base->offset is.
          Value linear = base->offset, inside;
          for (int64_t d = 0; d < rank; ++d) {
            Value i = linalg::IndexOp::create(nb, l, static_cast<uint64_t>(d));
            Value row = arith::AddIOp::create(nb, l, offsets[d], i);
            if (parents[d])
              row = arith::RemSIOp::create(nb, l, row, parents[d]);
            linear = arith::AddIOp::create(nb, l, linear,
                                           arith::MulIOp::create(nb, l, row, strides[d]));
            if (bounds.empty())
              continue;
            Value below = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, i, bounds[d]);
            inside = inside ? arith::AndIOp::create(nb, l, inside, below).getResult() : below;
          }
          auto read = [&](OpBuilder &rb, Location rl) -> Value {
            return memref::LoadOp::create(rb, rl, base->root, ValueRange{linear});
          };
          if (!inside) {
            linalg::YieldOp::create(nb, l, read(nb, l));
            return;
          }
          // Elements outside the mask may lie outside the buffer: never read them.
          auto ifInside = scf::IfOp::create(
              nb, l, inside,
              [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, read(tb, tl)); },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, args[0]); });
          linalg::YieldOp::create(nb, l, ifInside.getResult(0));
        });
    return success();
  }

  /// The part of `piece` inside the mask: per dimension clamp(mask - tileOffset, 0, size).
  SmallVector<OpFoldResult> maskedSizes(OpBuilder &b, Location loc, const Piece &piece,
                                        ArrayRef<OpFoldResult> mask) {
    if (mask.empty())
      return piece.sizes;
    SmallVector<OpFoldResult> out;
    for (size_t d = 0; d < mask.size(); ++d) {
      std::optional<int64_t> m = getConstantIntValue(mask[d]);
      std::optional<int64_t> t = getConstantIntValue(piece.tileOffsets[d]);
      std::optional<int64_t> s = getConstantIntValue(piece.sizes[d]);
      if (m && t && s) {
        out.push_back(b.getIndexAttr(std::clamp<int64_t>(*m - *t, 0, *s)));
        continue;
      }
      Value v = arith::SubIOp::create(b, loc, indexValue(b, loc, mask[d]),
                                      indexValue(b, loc, piece.tileOffsets[d]));
      v = arith::MinSIOp::create(b, loc, v, indexValue(b, loc, piece.sizes[d]));
      v = arith::MaxSIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, 0));
      out.push_back(v);
    }
    return out;
  }

  SmallVector<OpFoldResult> ones(OpBuilder &b, size_t n) {
    return SmallVector<OpFoldResult>(n, b.getIndexAttr(1));
  }
  SmallVector<OpFoldResult> zeros(OpBuilder &b, size_t n) {
    return SmallVector<OpFoldResult>(n, b.getIndexAttr(0));
  }

  /// Fills the tile buffer with `other` where the masked copies will not write. One piece at
  /// the tile origin (no wrap-around) copies a box [0, size_d) per dimension; its complement
  /// is filled as one slab per dimension d (earlier dimensions inside the box, d past it,
  /// later ones whole), so no element is written twice. Otherwise the whole buffer is filled.
  void fillOutsideMask(OpBuilder &b, Location loc, Value other, Value buffer,
                       ArrayRef<Piece> pieces, ArrayRef<OpFoldResult> mask) {
    auto bufType = cast<MemRefType>(buffer.getType());
    size_t rank = bufType.getRank();
    bool atOrigin = pieces.size() == 1 && llvm::all_of(pieces.front().tileOffsets, [](auto o) {
                      return isConstantIntValue(o, 0);
                    });
    if (!atOrigin) {
      linalg::FillOp::create(b, loc, ValueRange{other}, ValueRange{buffer});
      return;
    }
    SmallVector<OpFoldResult> box = maskedSizes(b, loc, pieces.front(), mask);
    for (size_t d = 0; d < rank; ++d) {
      int64_t extent = bufType.getDimSize(d);
      if (isConstantIntValue(box[d], extent))
        continue; // nothing past the box along d
      SmallVector<OpFoldResult> offsets = zeros(b, rank), sizes;
      for (size_t e = 0; e < rank; ++e)
        sizes.push_back(e < d ? box[e] : b.getIndexAttr(bufType.getDimSize(e)));
      offsets[d] = box[d];
      Value start = getValueOrCreateConstantIndexOp(b, loc, box[d]);
      sizes[d] = arith::SubIOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, extent),
                                       start)
                     .getResult();
      Value slab = memref::SubViewOp::create(b, loc, buffer, offsets, sizes, ones(b, rank));
      linalg::FillOp::create(b, loc, ValueRange{other}, ValueRange{slab});
    }
  }

  LogicalResult lowerTileLoad(tts::LoadOp load) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    auto make = load.getPtr().getDefiningOp<tts::MakeTensorPtrOp>();
    if (!make)
      return unsupported(load, "tts.load must read a tts.make_tptr tile");
    Value wrapsTwice;
    FailureOr<SmallVector<Piece>> pieces = tilePieces(b, loc, make, &wrapsTwice);
    if (failed(pieces))
      return failure();
    auto type = cast<RankedTensorType>(load.getType());
    auto bufType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(b, loc, bufType);
    SmallVector<OpFoldResult> mask = load.getMixedMaskDims();
    size_t rank = type.getRank();
    if (load.hasMask() && load.getOther())
      fillOutsideMask(b, loc, load.getOther(), buffer, *pieces, mask);
    for (const Piece &piece : *pieces) {
      SmallVector<OpFoldResult> sizes = maskedSizes(b, loc, piece, mask);
      Value src = memref::SubViewOp::create(b, loc, piece.view, zeros(b, rank), sizes,
                                            ones(b, rank));
      Value dst = memref::SubViewOp::create(b, loc, buffer, piece.tileOffsets, sizes,
                                            ones(b, rank));
      linalg::CopyOp::create(b, loc, src, dst);
    }
    if (wrapsTwice && failed(gatherWrapped(b, loc, make, buffer, mask, wrapsTwice)))
      return failure();
    Value tensor = bufferization::ToTensorOp::create(b, loc, type, buffer, /*restrict=*/true,
                                                     /*writable=*/true);
    load.replaceAllUsesWith(tensor);
    dead.push_back(load);
    return success();
  }

  LogicalResult lowerTileStore(tts::StoreOp store) {
    OpBuilder b(store);
    Location loc = store.getLoc();
    auto make = store.getPtr().getDefiningOp<tts::MakeTensorPtrOp>();
    if (!make)
      return unsupported(store, "tts.store must write a tts.make_tptr tile");
    FailureOr<SmallVector<Piece>> pieces = tilePieces(b, loc, make);
    if (failed(pieces))
      return failure();
    SmallVector<OpFoldResult> mask = store.getMixedMaskDims();
    size_t rank = make.getSizes().size();
    for (const Piece &piece : *pieces) {
      SmallVector<OpFoldResult> sizes = maskedSizes(b, loc, piece, mask);
      Value dst = memref::SubViewOp::create(b, loc, piece.view, zeros(b, rank), sizes,
                                            ones(b, rank));
      Value src = tensor::ExtractSliceOp::create(b, loc, store.getValue(), piece.tileOffsets,
                                                 sizes, ones(b, rank));
      auto materialize = bufferization::MaterializeInDestinationOp::create(b, loc, src, dst);
      materialize.setWritable(true);
    }
    dead.push_back(store);
    return success();
  }

  /// Loops over every element of `shape`, calling `body` with the indices; threads `iters`.
  SmallVector<Value> forEachElement(
      OpBuilder &b, Location loc, ArrayRef<int64_t> shape, ValueRange iters,
      function_ref<SmallVector<Value>(OpBuilder &, ValueRange, ValueRange)> body) {
    SmallVector<Value> lbs, ubs, steps;
    for (int64_t s : shape) {
      lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
      ubs.push_back(arith::ConstantIndexOp::create(b, loc, s));
      steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
    }
    scf::LoopNest nest = scf::buildLoopNest(
        b, loc, lbs, ubs, steps, iters,
        [&](OpBuilder &nb, Location, ValueRange ivs, ValueRange args) -> scf::ValueVector {
          return body(nb, ivs, args);
        });
    return nest.results;
  }

  LogicalResult lowerLoad(tt::LoadOp load) {
    OpBuilder b(load);
    Location loc = load.getLoc();
    std::optional<Address> a = addressOf(load, load.getPtr());
    if (!a)
      return failure();
    Type resultType = load.getType();
    Value mask = load.getMask(), other = load.getOther();
    auto loadOne = [&](OpBuilder &nb, Value offset, Value m, Value o) -> Value {
      Type elem = getElementTypeOrSelf(resultType);
      if (!m)
        return memref::LoadOp::create(nb, loc, a->root, ValueRange{offset});
      auto ifOp = scf::IfOp::create(
          nb, loc, m,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(
                tb, l, ValueRange{memref::LoadOp::create(tb, l, a->root, ValueRange{offset})});
          },
          [&](OpBuilder &eb, Location l) {
            Value fill = o ? o
                           : arith::ConstantOp::create(eb, l, eb.getZeroAttr(elem)).getResult();
            scf::YieldOp::create(eb, l, ValueRange{fill});
          });
      return ifOp.getResult(0);
    };
    Value result;
    if (auto type = dyn_cast<RankedTensorType>(resultType)) {
      // Masked per-element gather.
      SmallVector<Value> inputs{a->offset};
      if (mask)
        inputs.push_back(mask);
      if (other)
        inputs.push_back(other);
      result = mapElements(b, loc, inputs, type,
                           [&](OpBuilder &nb, Location, ValueRange args) -> Value {
                             return loadOne(nb, args[0], mask ? args[1] : Value(),
                                            other ? args[mask ? 2 : 1] : Value());
                           });
    } else {
      result = loadOne(b, a->offset, mask, other);
    }
    load.replaceAllUsesWith(result);
    dead.push_back(load);
    return success();
  }

  LogicalResult lowerStore(tt::StoreOp store) {
    OpBuilder b(store);
    Location loc = store.getLoc();
    std::optional<Address> a = addressOf(store, store.getPtr());
    if (!a)
      return failure();
    Value mask = store.getMask();
    auto storeOne = [&](OpBuilder &nb, Value value, Value offset, Value m) {
      if (!m) {
        memref::StoreOp::create(nb, loc, value, a->root, ValueRange{offset});
        return;
      }
      scf::IfOp::create(nb, loc, m, [&](OpBuilder &tb, Location l) {
        memref::StoreOp::create(tb, l, value, a->root, ValueRange{offset});
        scf::YieldOp::create(tb, l);
      });
    };
    if (auto type = dyn_cast<RankedTensorType>(store.getValue().getType())) {
      // Masked per-element scatter.
      forEachElement(b, loc, type.getShape(), {},
                     [&](OpBuilder &nb, ValueRange ivs, ValueRange) -> SmallVector<Value> {
                       Value v = tensor::ExtractOp::create(nb, loc, store.getValue(), ivs);
                       Value o = tensor::ExtractOp::create(nb, loc, a->offset, ivs);
                       Value m = mask ? tensor::ExtractOp::create(nb, loc, mask, ivs).getResult()
                                      : Value();
                       storeOne(nb, v, o, m);
                       return {};
                     });
    } else {
      storeOne(b, store.getValue(), a->offset, mask);
    }
    dead.push_back(store);
    return success();
  }

  /// One atomic at `offset`: memref.atomic_rmw where a kind exists, a generic atomic region
  /// for compare-and-swap.
  Value atomicOne(OpBuilder &b, Location loc, Operation *op, Value root, Value offset,
                  ValueRange scalars) {
    if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op)) {
      Type elem = scalars[0].getType();
      arith::AtomicRMWKind kind = *atomicKind(rmw.getAtomicRmwOp(), elem);
      return memref::AtomicRMWOp::create(b, loc, kind, scalars[0], root, ValueRange{offset});
    }
    Value cmp = scalars[0], val = scalars[1];
    auto generic = memref::GenericAtomicRMWOp::create(b, loc, root, ValueRange{offset});
    OpBuilder body = OpBuilder::atBlockEnd(generic.getBody());
    Value current = generic.getCurrentValue();
    Value equal = isa<FloatType>(cmp.getType())
                      ? arith::CmpFOp::create(body, loc, arith::CmpFPredicate::OEQ, current, cmp)
                            .getResult()
                      : arith::CmpIOp::create(body, loc, arith::CmpIPredicate::eq, current, cmp)
                            .getResult();
    Value next = arith::SelectOp::create(body, loc, equal, val, current);
    memref::AtomicYieldOp::create(body, loc, next);
    return generic.getResult();
  }

  LogicalResult lowerAtomic(Operation *op, Value ptr, Value mask) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    std::optional<Address> a = addressOf(op, ptr);
    if (!a)
      return failure();
    SmallVector<Value> values;
    if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op)) {
      values.push_back(rmw.getVal());
      if (!atomicKind(rmw.getAtomicRmwOp(), getElementTypeOrSelf(rmw.getVal().getType())))
        return unsupported(op, "this atomic operation has no memref form");
    } else {
      auto cas = cast<tt::AtomicCASOp>(op);
      values.push_back(cas.getCmp());
      values.push_back(cas.getVal());
    }
    Type resultType = op->getResult(0).getType();
    auto oneMasked = [&](OpBuilder &nb, Value offset, ValueRange scalars, Value m) -> Value {
      if (!m)
        return atomicOne(nb, loc, op, a->root, offset, scalars);
      Type elem = getElementTypeOrSelf(resultType);
      auto ifOp = scf::IfOp::create(
          nb, loc, m,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(tb, l, atomicOne(tb, l, op, a->root, offset, scalars));
          },
          [&](OpBuilder &eb, Location l) {
            scf::YieldOp::create(
                eb, l, ValueRange{arith::ConstantOp::create(eb, l, eb.getZeroAttr(elem))});
          });
      return ifOp.getResult(0);
    };
    Value result;
    if (auto type = dyn_cast<RankedTensorType>(resultType)) {
      Value init = tessel::emptyLike(b, loc, type);
      SmallVector<Value> out = forEachElement(
          b, loc, type.getShape(), ValueRange{init},
          [&](OpBuilder &nb, ValueRange ivs, ValueRange iters) -> SmallVector<Value> {
            Value o = tensor::ExtractOp::create(nb, loc, a->offset, ivs);
            SmallVector<Value> scalars;
            for (Value v : values)
              scalars.push_back(tensor::ExtractOp::create(nb, loc, v, ivs));
            Value m = mask ? tensor::ExtractOp::create(nb, loc, mask, ivs).getResult() : Value();
            Value old = oneMasked(nb, o, scalars, m);
            return {tensor::InsertOp::create(nb, loc, old, iters[0], ivs)};
          });
      result = out[0];
    } else {
      result = oneMasked(b, a->offset, values, mask);
    }
    op->getResult(0).replaceAllUsesWith(result);
    dead.push_back(op);
    return success();
  }

  func::FuncOp func;
  DenseMap<Value, Address> addresses;
  /// Loops whose pointer iter_args now carry offsets: positions and roots.
  DenseMap<Operation *, std::pair<SmallVector<unsigned>, SmallVector<Value>>> rewrittenLoops;
  /// The offset of each root memref within its buffer.
  DenseMap<Value, Value> rootOffsets;
  SmallVector<Operation *> dead;
};

struct StructuredToMemrefPass
    : public tessel::impl::StructuredToMemrefBase<StructuredToMemrefPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(Lowering(func).run()))
        return signalPassFailure();
    WalkResult leftover = module.walk([](Operation *op) {
      if (isa<tt::TritonDialect, tts::StructuredDialect>(op->getDialect()) &&
          !isa<tt::PrintOp>(op)) {
        op->emitError() << "structured-to-memref: '" << op->getName()
                        << "' is left; run triton-arith-to-linalg first";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
