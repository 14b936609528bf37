//===- PtrAnalysis.cpp - structured views of offsets, pointers, masks -*- C++ -*-===//

#include "compiler/conversion/triton_to_structured/PtrAnalysis.h"

#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessel;
namespace tt = tessel::tt;

bool OffsetState::hasWrap() const {
  return llvm::any_of(wraps, [](OpFoldResult w) { return static_cast<bool>(w); });
}

bool OffsetState::isUniform() const {
  return !hasWrap() && llvm::all_of(strides, PtrAnalysis::isZero);
}

int64_t OffsetState::unitStrideDim() const {
  int64_t varying = kNoVaryingDim;
  for (int64_t d = 0; d < rank(); ++d) {
    if (PtrAnalysis::isZero(strides[d]))
      continue;
    if (varying != kNoVaryingDim || !isConstantIntValue(strides[d], 1))
      return kNotARange;
    varying = d;
  }
  return varying;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

bool PtrAnalysis::isZero(OpFoldResult v) { return isConstantIntValue(v, 0); }

bool PtrAnalysis::same(OpFoldResult x, OpFoldResult y) {
  if (!x || !y)
    return !x && !y;
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return *cx == *cy;
  return x == y;
}

static Value materialize(OpBuilder &b, Location loc, OpFoldResult v) {
  if (auto value = dyn_cast<Value>(v))
    return value;
  return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(v));
}

OpFoldResult PtrAnalysis::add(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  if (cx && *cx == 0)
    return y;
  if (cy && *cy == 0)
    return x;
  return arith::AddIOp::create(b, loc, materialize(b, loc, x), materialize(b, loc, y))
      .getResult();
}

OpFoldResult PtrAnalysis::sub(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx - *cy);
  if (cy && *cy == 0)
    return x;
  return arith::SubIOp::create(b, loc, materialize(b, loc, x), materialize(b, loc, y))
      .getResult();
}

OpFoldResult PtrAnalysis::mul(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx * *cy);
  if ((cx && *cx == 0) || (cy && *cy == 0))
    return b.getIndexAttr(0);
  if (cx && *cx == 1)
    return y;
  if (cy && *cy == 1)
    return x;
  return arith::MulIOp::create(b, loc, materialize(b, loc, x), materialize(b, loc, y))
      .getResult();
}

OpFoldResult PtrAnalysis::minimum(OpBuilder &b, Location loc, OpFoldResult x, OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x), cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(std::min(*cx, *cy));
  return arith::MinSIOp::create(b, loc, materialize(b, loc, x), materialize(b, loc, y))
      .getResult();
}

OpFoldResult PtrAnalysis::clamp(OpBuilder &b, Location loc, OpFoldResult x, int64_t hi) {
  if (std::optional<int64_t> c = getConstantIntValue(x))
    return b.getIndexAttr(std::clamp<int64_t>(*c, 0, hi));
  Value v = arith::MinSIOp::create(b, loc, materialize(b, loc, x),
                                   arith::ConstantIndexOp::create(b, loc, hi));
  return arith::MaxSIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, 0))
      .getResult();
}

OpFoldResult PtrAnalysis::toIndex(OpBuilder &b, Location loc, Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return b.getIndexAttr(constant.getSExtValue());
  if (value.getType().isIndex())
    return value;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value).getResult();
}

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

std::nullopt_t PtrAnalysis::fail(const Twine &why) {
  failure = why.str();
  return std::nullopt;
}

void PtrAnalysis::placeAfter(Value value) {
  if (Operation *def = value.getDefiningOp())
    builder.setInsertionPointAfter(def);
  else
    builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
}

/// Looks `value` up in `cache`, computing and remembering it on a miss (failures are not
/// remembered: their reason must be reported again).
template <typename State, typename Compute>
static std::optional<State> memoized(DenseMap<Value, State> &cache, Value value,
                                     Compute compute) {
  if (auto it = cache.find(value); it != cache.end())
    return it->second;
  std::optional<State> state = compute(value);
  if (state)
    cache[value] = *state;
  return state;
}

std::optional<OffsetState> PtrAnalysis::getOffset(Value value) {
  return memoized(offsets, value, [this](Value v) { return computeOffset(v); });
}

std::optional<PtrState> PtrAnalysis::getPtr(Value value) {
  return memoized(ptrs, value, [this](Value v) { return computePtr(v); });
}

std::optional<MaskState> PtrAnalysis::getMask(Value value) {
  return memoized(masks, value, [this](Value v) { return computeMask(v); });
}

static SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {};
}

/// A state of the given shape that is `scalar` everywhere.
static OffsetState uniform(OpBuilder &b, ArrayRef<int64_t> shape, OpFoldResult scalar) {
  OffsetState s;
  s.shape.assign(shape.begin(), shape.end());
  s.scalar = scalar;
  s.strides.assign(shape.size(), b.getIndexAttr(0));
  s.wraps.assign(shape.size(), OpFoldResult());
  s.wrapOffsets.assign(shape.size(), OpFoldResult());
  return s;
}

/// a + b, or nullopt when a wrap-around dimension of one meets a varying dimension of the other.
static std::optional<OffsetState> addStates(OpBuilder &b, Location loc, const OffsetState &x,
                                            const OffsetState &y) {
  if (x.shape != y.shape)
    return std::nullopt;
  OffsetState r = x;
  r.scalar = PtrAnalysis::add(b, loc, x.scalar, y.scalar);
  for (int64_t d = 0; d < x.rank(); ++d) {
    bool xWrap = static_cast<bool>(x.wraps[d]), yWrap = static_cast<bool>(y.wraps[d]);
    if (xWrap && yWrap)
      return std::nullopt;
    if ((xWrap && !PtrAnalysis::isZero(y.strides[d])) ||
        (yWrap && !PtrAnalysis::isZero(x.strides[d])))
      return std::nullopt;
    if (yWrap) {
      r.wraps[d] = y.wraps[d];
      r.wrapOffsets[d] = y.wrapOffsets[d];
      r.strides[d] = y.strides[d];
      continue;
    }
    if (!xWrap)
      r.strides[d] = PtrAnalysis::add(b, loc, x.strides[d], y.strides[d]);
  }
  return r;
}

static OffsetState scaleState(OpBuilder &b, Location loc, const OffsetState &x,
                              OpFoldResult factor) {
  OffsetState r = x;
  r.scalar = PtrAnalysis::mul(b, loc, x.scalar, factor);
  for (OpFoldResult &s : r.strides)
    s = PtrAnalysis::mul(b, loc, s, factor);
  return r;
}

/// The state of a value with a dimension inserted at `axis` (size 1, no contribution).
static OffsetState expandState(OpBuilder &b, const OffsetState &x, int64_t axis) {
  OffsetState r = x;
  r.shape.insert(r.shape.begin() + axis, 1);
  r.strides.insert(r.strides.begin() + axis, b.getIndexAttr(0));
  r.wraps.insert(r.wraps.begin() + axis, OpFoldResult());
  r.wrapOffsets.insert(r.wrapOffsets.begin() + axis, OpFoldResult());
  return r;
}

/// The state broadcast to `shape`; a size-1 dimension contributes nothing once stretched,
/// unless it wraps (then nullopt).
static std::optional<OffsetState> broadcastState(OpBuilder &b, const OffsetState &x,
                                                 ArrayRef<int64_t> shape) {
  OffsetState r = x;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (x.shape[d] == shape[d])
      continue;
    if (x.wraps[d])
      return std::nullopt;
    r.strides[d] = b.getIndexAttr(0);
  }
  r.shape.assign(shape.begin(), shape.end());
  return r;
}

/// The state of `x` viewed in `shape` (tt.reshape): dropping or inserting size-1 dimensions
/// keeps the strides; a 1-D range reshaped to several dimensions gets the row-major strides.
static std::optional<OffsetState> reshapeState(OpBuilder &b, Location loc, const OffsetState &x,
                                               ArrayRef<int64_t> shape) {
  if (x.hasWrap())
    return std::nullopt;
  SmallVector<int64_t> srcNonUnit, dstNonUnit;
  SmallVector<OpFoldResult> srcStrides;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (x.shape[d] != 1) {
      srcNonUnit.push_back(x.shape[d]);
      srcStrides.push_back(x.strides[d]);
    }
  for (int64_t s : shape)
    if (s != 1)
      dstNonUnit.push_back(s);
  OffsetState r = uniform(b, shape, x.scalar);
  if (srcNonUnit == dstNonUnit) {
    size_t k = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] != 1)
        r.strides[d] = srcStrides[k++];
    return r;
  }
  if (srcNonUnit.size() == 1) {
    // Element k of the range sits at row-major position k of the new shape.
    OpFoldResult stride = srcStrides[0];
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      if (shape[d] != 1)
        r.strides[d] = stride;
      stride = PtrAnalysis::mul(b, loc, stride, b.getIndexAttr(shape[d]));
    }
    return r;
  }
  return std::nullopt;
}

std::optional<OffsetState> PtrAnalysis::computeOffset(Value value) {
  Type type = value.getType();
  if (!isa<IntegerType, IndexType>(getElementTypeOrSelf(type)))
    return fail("offset is not an integer");
  Location loc = value.getLoc();
  SmallVector<int64_t> shape = shapeOf(type);
  if (shape.empty()) {
    placeAfter(value);
    return uniform(builder, {}, toIndex(builder, loc, value));
  }
  Operation *def = value.getDefiningOp();
  if (!def)
    return fail("offset tensor is a block argument");

  Attribute constant;
  if (matchPattern(value, m_Constant(&constant))) {
    auto splat = dyn_cast<SplatElementsAttr>(constant);
    if (!splat)
      return fail("offset is a non-splat constant");
    builder.setInsertionPointAfter(def);
    return uniform(builder, shape,
                   builder.getIndexAttr(splat.getSplatValue<APInt>().getSExtValue()));
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(def)) {
    OffsetState s = uniform(builder, shape, builder.getIndexAttr(range.getStart()));
    s.strides[0] = builder.getIndexAttr(1);
    return s;
  }
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    placeAfter(value);
    return uniform(builder, shape, toIndex(builder, loc, splat.getSrc()));
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    std::optional<OffsetState> src = getOffset(expand.getSrc());
    if (!src)
      return std::nullopt;
    return expandState(builder, *src, expand.getAxis());
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    std::optional<OffsetState> src = getOffset(bcast.getSrc());
    if (!src)
      return std::nullopt;
    std::optional<OffsetState> r = broadcastState(builder, *src, shape);
    if (!r)
      return fail("broadcast of a wrap-around dimension");
    return r;
  }
  if (auto reshape = dyn_cast<tt::ReshapeOp>(def)) {
    std::optional<OffsetState> src = getOffset(reshape.getSrc());
    if (!src)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    std::optional<OffsetState> r = reshapeState(builder, loc, *src, shape);
    if (!r)
      return fail("reshape of a multi-dimensional or wrapped offset");
    return r;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(def))
    return getOffset(def->getOperand(0));
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::RemSIOp, arith::RemUIOp>(def)) {
    std::optional<OffsetState> lhs = getOffset(def->getOperand(0));
    if (!lhs)
      return std::nullopt;
    std::optional<OffsetState> rhs = getOffset(def->getOperand(1));
    if (!rhs)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    if (isa<arith::AddIOp>(def)) {
      std::optional<OffsetState> r = addStates(builder, loc, *lhs, *rhs);
      return r ? r : fail("sum of two wrap-around offsets");
    }
    if (isa<arith::SubIOp>(def)) {
      if (rhs->hasWrap())
        return fail("subtracting a wrap-around offset");
      std::optional<OffsetState> r =
          addStates(builder, loc, *lhs, scaleState(builder, loc, *rhs, builder.getIndexAttr(-1)));
      return r ? r : fail("difference of wrap-around offsets");
    }
    if (isa<arith::MulIOp>(def)) {
      if (rhs->isUniform())
        return scaleState(builder, loc, *lhs, rhs->scalar);
      if (lhs->isUniform())
        return scaleState(builder, loc, *rhs, lhs->scalar);
      return fail("product of two varying offsets");
    }
    // Remainder by a uniform size: wrap-around along the one dimension that varies.
    if (!rhs->isUniform() || lhs->hasWrap())
      return fail("remainder of a varying divisor or of a wrapped offset");
    int64_t varying = lhs->unitStrideDim();
    if (varying == OffsetState::kNotARange)
      return fail("remainder of an offset that is not a unit-stride range");
    if (varying == OffsetState::kNoVaryingDim)
      return fail("remainder of a uniform offset");
    OffsetState r = *lhs;
    r.wraps[varying] = rhs->scalar;
    r.wrapOffsets[varying] = lhs->scalar;
    r.scalar = builder.getIndexAttr(0);
    return r;
  }
  return fail(Twine("offset computed by '") + def->getName().getStringRef() +
              "' has no structured form");
}

std::optional<PtrState> PtrAnalysis::computePtr(Value value) {
  Type type = value.getType();
  Location loc = value.getLoc();
  Operation *def = value.getDefiningOp();

  if (tt::isScalarPointer(type)) {
    if (auto addptr = dyn_cast_or_null<tt::AddPtrOp>(def)) {
      std::optional<PtrState> ptr = getPtr(addptr.getPtr());
      if (!ptr)
        return std::nullopt;
      std::optional<OffsetState> off = getOffset(addptr.getOffset());
      if (!off)
        return std::nullopt;
      builder.setInsertionPointAfter(def);
      ptr->offset.scalar = add(builder, loc, ptr->offset.scalar, off->scalar);
      return ptr;
    }
    PtrState root;
    root.base = value;
    root.offset = uniform(builder, {}, builder.getIndexAttr(0));
    return root;
  }

  if (tt::isBlockPointer(type)) {
    if (auto make = dyn_cast_or_null<tt::MakeTensorPtrOp>(def)) {
      std::optional<PtrState> base = getPtr(make.getBase());
      if (!base)
        return std::nullopt;
      builder.setInsertionPointAfter(def);
      PtrState s;
      s.base = base->base;
      SmallVector<int64_t> blockShape(tt::getShapeOf(type));
      s.offset = uniform(builder, blockShape, base->offset.scalar);
      for (auto [d, stride] : llvm::enumerate(make.getStrides()))
        s.offset.strides[d] = toIndex(builder, loc, stride);
      s.order = SmallVector<int32_t>(make.getOrder());
      for (Value o : make.getOffsets())
        s.blockOffsets.push_back(toIndex(builder, loc, o));
      for (Value p : make.getShape())
        s.parentShape.push_back(toIndex(builder, loc, p));
      return s;
    }
    if (auto advance = dyn_cast_or_null<tt::AdvanceOp>(def)) {
      std::optional<PtrState> ptr = getPtr(advance.getPtr());
      if (!ptr)
        return std::nullopt;
      builder.setInsertionPointAfter(def);
      for (auto [d, o] : llvm::enumerate(advance.getOffsets()))
        ptr->blockOffsets[d] = add(builder, loc, ptr->blockOffsets[d], toIndex(builder, loc, o));
      return ptr;
    }
    return fail("block pointer of unknown origin");
  }

  if (!tt::isPointerLike(type))
    return fail("not a pointer");
  if (!def)
    return fail("tensor of pointers carried by a block argument that was not analysed");
  SmallVector<int64_t> shape = shapeOf(type);
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    std::optional<PtrState> scalar = getPtr(splat.getSrc());
    if (!scalar)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    PtrState s = *scalar;
    s.offset = uniform(builder, shape, scalar->offset.scalar);
    return s;
  }
  if (auto addptr = dyn_cast<tt::AddPtrOp>(def)) {
    std::optional<PtrState> ptr = getPtr(addptr.getPtr());
    if (!ptr)
      return std::nullopt;
    std::optional<OffsetState> off = getOffset(addptr.getOffset());
    if (!off)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    std::optional<OffsetState> sum = addStates(builder, loc, ptr->offset, *off);
    if (!sum)
      return fail("pointer offsets combine two wrap-arounds on one dimension");
    ptr->offset = *sum;
    return ptr;
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    std::optional<PtrState> ptr = getPtr(expand.getSrc());
    if (!ptr)
      return std::nullopt;
    ptr->offset = expandState(builder, ptr->offset, expand.getAxis());
    return ptr;
  }
  if (auto reshape = dyn_cast<tt::ReshapeOp>(def)) {
    std::optional<PtrState> ptr = getPtr(reshape.getSrc());
    if (!ptr)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    std::optional<OffsetState> r = reshapeState(builder, loc, ptr->offset, shape);
    if (!r)
      return fail("reshape of multi-dimensional or wrapped pointers");
    ptr->offset = *r;
    return ptr;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    std::optional<PtrState> ptr = getPtr(bcast.getSrc());
    if (!ptr)
      return std::nullopt;
    std::optional<OffsetState> r = broadcastState(builder, ptr->offset, shape);
    if (!r)
      return fail("broadcast of a wrap-around dimension");
    ptr->offset = *r;
    return ptr;
  }
  return fail(Twine("pointers computed by '") + def->getName().getStringRef() +
              "' have no structured form");
}

std::optional<MaskState> PtrAnalysis::computeMask(Value value) {
  SmallVector<int64_t> shape = shapeOf(value.getType());
  Operation *def = value.getDefiningOp();
  if (shape.empty() || !def)
    return fail("mask is not a tensor computed in this function");
  Location loc = value.getLoc();
  auto full = [&]() {
    MaskState m;
    m.shape = shape;
    for (int64_t s : shape)
      m.bounds.push_back(builder.getIndexAttr(s));
    return m;
  };
  Attribute constant;
  if (matchPattern(value, m_Constant(&constant))) {
    auto splat = dyn_cast<SplatElementsAttr>(constant);
    if (!splat)
      return fail("mask is a non-splat constant");
    builder.setInsertionPointAfter(def);
    MaskState m = full();
    if (!splat.getSplatValue<bool>())
      m.bounds[0] = builder.getIndexAttr(0);
    return m;
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    std::optional<MaskState> src = getMask(expand.getSrc());
    if (!src)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    src->shape = shape;
    src->bounds.insert(src->bounds.begin() + expand.getAxis(), builder.getIndexAttr(1));
    return src;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    std::optional<MaskState> src = getMask(bcast.getSrc());
    if (!src)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    for (size_t d = 0; d < shape.size(); ++d)
      if (src->shape[d] != shape[d]) // bound is 0 or 1 along a stretched dimension
        src->bounds[d] = mul(builder, loc, src->bounds[d], builder.getIndexAttr(shape[d]));
    src->shape = shape;
    return src;
  }
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    std::optional<MaskState> lhs = getMask(andOp.getLhs());
    if (!lhs)
      return std::nullopt;
    std::optional<MaskState> rhs = getMask(andOp.getRhs());
    if (!rhs)
      return std::nullopt;
    builder.setInsertionPointAfter(def);
    for (size_t d = 0; d < shape.size(); ++d)
      lhs->bounds[d] = minimum(builder, loc, lhs->bounds[d], rhs->bounds[d]);
    return lhs;
  }
  if (auto orOp = dyn_cast<arith::OrIOp>(def)) {
    // The union of two leading boxes is a box when they differ along at most one dimension:
    // there it reaches the larger bound.
    std::optional<MaskState> lhs = getMask(orOp.getLhs());
    if (!lhs)
      return std::nullopt;
    std::optional<MaskState> rhs = getMask(orOp.getRhs());
    if (!rhs)
      return std::nullopt;
    int64_t differing = -1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (same(lhs->bounds[d], rhs->bounds[d]))
        continue;
      if (differing >= 0)
        return fail("'or' of masks that differ along two dimensions is not a box");
      differing = d;
    }
    if (differing < 0)
      return lhs;
    builder.setInsertionPointAfter(def);
    OpFoldResult a = lhs->bounds[differing], b = rhs->bounds[differing];
    std::optional<int64_t> ca = getConstantIntValue(a), cb = getConstantIntValue(b);
    lhs->bounds[differing] =
        ca && cb ? OpFoldResult(builder.getIndexAttr(std::max(*ca, *cb)))
                 : OpFoldResult(arith::MaxSIOp::create(builder, loc, materialize(builder, loc, a),
                                                       materialize(builder, loc, b))
                                    .getResult());
    return lhs;
  }
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp)
    return fail(Twine("mask computed by '") + def->getName().getStringRef() +
                "' has no structured form");
  Value lhsValue = cmp.getLhs(), rhsValue = cmp.getRhs();
  arith::CmpIPredicate pred = cmp.getPredicate();
  // Put the range on the left: `n > offs` reads as `offs < n`.
  switch (pred) {
  case arith::CmpIPredicate::sgt: // n > offs  is  offs < n
    std::swap(lhsValue, rhsValue);
    pred = arith::CmpIPredicate::slt;
    break;
  case arith::CmpIPredicate::ugt:
    std::swap(lhsValue, rhsValue);
    pred = arith::CmpIPredicate::ult;
    break;
  case arith::CmpIPredicate::sge:
    std::swap(lhsValue, rhsValue);
    pred = arith::CmpIPredicate::sle;
    break;
  case arith::CmpIPredicate::uge:
    std::swap(lhsValue, rhsValue);
    pred = arith::CmpIPredicate::ule;
    break;
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult:
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    break;
  default:
    return fail("mask comparison is not <, <=, > or >=");
  }
  std::optional<OffsetState> lhs = getOffset(lhsValue);
  if (!lhs)
    return std::nullopt;
  std::optional<OffsetState> rhs = getOffset(rhsValue);
  if (!rhs)
    return std::nullopt;
  if (!rhs->isUniform() || lhs->hasWrap())
    return fail("mask compares against a varying bound or a wrapped range");
  int64_t varying = lhs->unitStrideDim();
  if (varying == OffsetState::kNotARange)
    return fail("mask compares a range that is not unit-stride along one dimension");
  if (varying == OffsetState::kNoVaryingDim)
    return fail("mask compares two uniform values");
  builder.setInsertionPointAfter(def);
  MaskState m = full();
  OpFoldResult bound = sub(builder, loc, rhs->scalar, lhs->scalar);
  if (pred == arith::CmpIPredicate::sle || pred == arith::CmpIPredicate::ule)
    bound = add(builder, loc, bound, builder.getIndexAttr(1));
  m.bounds[varying] = clamp(builder, loc, bound, shape[varying]);
  return m;
}

std::optional<Value> PtrAnalysis::getScalarOther(Value other, OpBuilder &at) {
  Attribute constant;
  if (matchPattern(other, m_Constant(&constant)))
    if (auto splat = dyn_cast<SplatElementsAttr>(constant))
      return arith::ConstantOp::create(at, other.getLoc(), splat.getSplatValue<TypedAttr>())
          .getResult();
  if (auto splat = other.getDefiningOp<tt::SplatOp>())
    return splat.getSrc();
  return fail("'other' is not a splat");
}
