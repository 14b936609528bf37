//===- BuiltinsMemory.cpp - builtins: loads, stores, atomics and block pointers
//-*- C++ -*-===//
//
// loads, stores, atomics and block pointers.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>

using namespace mlir;

namespace tessel::frontend {

namespace {

/// Strict where Triton is: a mask is boolean.
absl::StatusOr<V> booleanMask(Generator &g, V m, SourceLocation at) {
  bool boolean = m->kind == Val::Bool ||
                 (m->kind == Val::Tensor && getElementTypeOrSelf(m->value.getType()).isInteger(1));
  if (!boolean)
    return g.error(at, "a mask must be boolean, not " + g.describe(m) +
                           " (compare it: e.g. offs < n)");
  return m;
}

/// Strict where Triton is: a modifier (`param`) is one of Triton's names when
/// given.
absl::Status oneOf(Generator &g, SourceLocation at, Params &p, const char *param,
                   std::initializer_list<const char *> allowed) {
  V v = p.opt(param);
  if (!v)
    return absl::OkStatus();
  std::string names;
  for (const char *a : allowed) {
    if (v->kind == Val::Str && v->s == a)
      return absl::OkStatus();
    names += std::string(names.empty() ? "" : ", ") + "\"" + a + "\"";
  }
  return g.error(at, std::string(param) + " must be one of " + names + ", not " +
                         (v->kind == Val::Str ? "\"" + v->s + "\"" : g.describe(v)));
}

} // namespace

absl::StatusOr<V> Generator::builtinLoad(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "load",
                                          {{"pointer", true},
                                           {"mask", false},
                                           {"other", false},
                                           {"boundary_check", false},
                                           {"padding_option", false},
                                           {"cache_modifier", false},
                                           {"eviction_policy", false},
                                           {"volatile", false}}));
  RETURN_IF_ERROR(oneOf(*this, at, p, "cache_modifier", {"", ".ca", ".cg", ".cv"}));
  RETURN_IF_ERROR(
      oneOf(*this, at, p, "eviction_policy", {"", "evict_normal", "evict_first", "evict_last"}));
  ASSIGN_OR_RETURN(V ptr, p.tensor("pointer"));
  auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
  if (!ptrElem)
    return error(at, "tl.load needs a pointer, got " + describe(ptr));
  auto boundaryCheck = [&]() -> absl::StatusOr<SmallVector<int32_t>> {
    SmallVector<int32_t> dims;
    if (V bc = p.opt("boundary_check")) {
      ASSIGN_OR_RETURN(std::vector<int64_t> list, intList(*this, bc, at, "boundary_check"));
      for (int64_t d : list)
        dims.push_back(int32_t(d));
    }
    return dims;
  };
  if (auto block = dyn_cast<RankedTensorType>(ptrElem.getPointeeType())) {
    if (p.opt("mask") || p.opt("other"))
      return error(at, "a load through a block pointer takes boundary_check and "
                       "padding_option, "
                       "not mask and other");
    tt::PaddingOptionAttr padding;
    if (V pad = p.opt("padding_option")) {
      if (pad->kind != Val::Str || (pad->s != "" && pad->s != "zero" && pad->s != "nan"))
        return error(at, "padding_option must be \"zero\" or \"nan\"");
      if (pad->s == "zero")
        padding = tt::PaddingOptionAttr::get(context(), tt::PaddingOption::PAD_ZERO);
      else if (pad->s == "nan")
        padding = tt::PaddingOptionAttr::get(context(), tt::PaddingOption::PAD_NAN);
    }
    ASSIGN_OR_RETURN(SmallVector<int32_t> dims, boundaryCheck());
    return makeTensor(
        tt::LoadOp::create(b_, l, block, ptr->value, Value(), Value(), dims, padding));
  }
  if (p.opt("boundary_check"))
    return error(at, "boundary_check applies to block pointers only");
  Type elem = ptrElem.getPointeeType();
  ArrayRef<int64_t> shape = shapeOf(ptr->value);
  Value mask, other;
  if (V m = p.opt("mask")) {
    ASSIGN_OR_RETURN(V boolean, booleanMask(*this, m, at));
    ASSIGN_OR_RETURN(V maskI1, cast(boolean, b_.getI1Type(), false, at));
    ASSIGN_OR_RETURN(auto pm, broadcastPair(ptr, maskI1, at));
    auto [pp, mm] = pm;
    ptr = pp;
    shape = shapeOf(ptr->value);
    ASSIGN_OR_RETURN(V maskV, broadcastTo(mm, shape, at));
    mask = maskV->value;
  }
  if (V o = p.opt("other")) {
    if (!mask)
      return error(at, "tl.load's 'other' needs a mask");
    ASSIGN_OR_RETURN(V otherElem, cast(o, elem, false, at));
    ASSIGN_OR_RETURN(V otherV, broadcastTo(otherElem, shape, at));
    other = otherV->value;
  }
  Type result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
  auto load = tt::LoadOp::create(b_, l, result, ptr->value, mask, other, ArrayRef<int32_t>{},
                                 tt::PaddingOptionAttr());
  if (V v = p.opt("volatile")) {
    ASSIGN_OR_RETURN(bool isVolatile, truthy(v, at));
    load.setIsVolatile(isVolatile);
  }
  return makeTensor(load, ptr->isUnsigned);
}

absl::StatusOr<V> Generator::builtinStore(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "store",
                                          {{"pointer", true},
                                           {"value", true},
                                           {"mask", false},
                                           {"boundary_check", false},
                                           {"cache_modifier", false},
                                           {"eviction_policy", false}}));
  RETURN_IF_ERROR(oneOf(*this, at, p, "cache_modifier", {"", ".wb", ".cg", ".cs", ".wt"}));
  RETURN_IF_ERROR(
      oneOf(*this, at, p, "eviction_policy", {"", "evict_normal", "evict_first", "evict_last"}));
  ASSIGN_OR_RETURN(V ptr, p.tensor("pointer"));
  auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
  if (!ptrElem)
    return error(at, "tl.store needs a pointer, got " + describe(ptr));
  if (auto block = dyn_cast<RankedTensorType>(ptrElem.getPointeeType())) {
    if (p.opt("mask"))
      return error(at, "a store through a block pointer takes boundary_check, not mask");
    ASSIGN_OR_RETURN(V elemValue, cast(p.get("value"), block.getElementType(), false, at));
    ASSIGN_OR_RETURN(V value, broadcastTo(elemValue, block.getShape(), at));
    SmallVector<int32_t> dims;
    if (V bc = p.opt("boundary_check")) {
      ASSIGN_OR_RETURN(std::vector<int64_t> list, intList(*this, bc, at, "boundary_check"));
      for (int64_t d : list)
        dims.push_back(int32_t(d));
    }
    tt::StoreOp::create(b_, l, ptr->value, value->value, Value(), dims);
    return makeNone();
  }
  Type elem = ptrElem.getPointeeType();
  ASSIGN_OR_RETURN(V value, cast(p.get("value"), elem, false, at));
  ASSIGN_OR_RETURN(auto pv, broadcastPair(ptr, value, at));
  auto [pp, vv] = pv;
  ArrayRef<int64_t> shape = shapeOf(pp->value);
  Value mask;
  if (V m = p.opt("mask")) {
    ASSIGN_OR_RETURN(V boolean, booleanMask(*this, m, at));
    ASSIGN_OR_RETURN(V maskI1, cast(boolean, b_.getI1Type(), false, at));
    ASSIGN_OR_RETURN(V maskV, broadcastTo(maskI1, shape, at));
    mask = maskV->value;
  }
  tt::StoreOp::create(b_, l, pp->value, vv->value, mask, ArrayRef<int32_t>{});
  return makeNone();
}

absl::StatusOr<V> Generator::builtinAtomicCas(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{"pointer", true},
                                           {"cmp", true},
                                           {"val", true},
                                           {"sem", false},
                                           {"scope", false}}));
  RETURN_IF_ERROR(oneOf(*this, at, p, "sem", {"acquire", "release", "acq_rel", "relaxed"}));
  RETURN_IF_ERROR(oneOf(*this, at, p, "scope", {"gpu", "cta", "sys"}));
  ASSIGN_OR_RETURN(V ptr, p.tensor("pointer"));
  auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
  if (!ptrElem)
    return error(at, "tl.atomic_cas needs a pointer");
  Type elem = ptrElem.getPointeeType();
  bool unsignedPointee = ptr->isUnsigned;
  ASSIGN_OR_RETURN(V cmp, cast(p.get("cmp"), elem, unsignedPointee, at));
  ASSIGN_OR_RETURN(V val, cast(p.get("val"), elem, unsignedPointee, at));
  ASSIGN_OR_RETURN(auto pc, broadcastPair(ptr, cmp, at));
  auto [pp, cc] = pc;
  ASSIGN_OR_RETURN(auto pv, broadcastPair(pp, val, at));
  auto [pp2, vv] = pv;
  ASSIGN_OR_RETURN(cc, broadcastTo(cc, shapeOf(pp2->value), at));
  ArrayRef<int64_t> shape = shapeOf(pp2->value);
  Type result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
  return makeTensor(tt::AtomicCASOp::create(b_, l, result, pp2->value, cc->value, vv->value,
                                            tt::MemSemantic::ACQUIRE_RELEASE,
                                            tt::MemSyncScope::GPU),
                    unsignedPointee);
}

absl::StatusOr<V> Generator::builtinAtomicRmw(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  static const std::map<std::string, int> kinds = {
      {"atomic_add", 0}, {"atomic_max", 1}, {"atomic_min", 2}, {"atomic_xchg", 3},
      {"atomic_and", 4}, {"atomic_or", 5},  {"atomic_xor", 6}};
  auto kind = kinds.find(name);
  if (kind == kinds.end())
    return error(at, "'tl." + name + "' is not supported yet");
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{"pointer", true},
                                           {"val", true},
                                           {"mask", false},
                                           {"sem", false},
                                           {"scope", false}}));
  RETURN_IF_ERROR(oneOf(*this, at, p, "sem", {"acquire", "release", "acq_rel", "relaxed"}));
  RETURN_IF_ERROR(oneOf(*this, at, p, "scope", {"gpu", "cta", "sys"}));
  ASSIGN_OR_RETURN(V ptr, p.tensor("pointer"));
  auto ptrElem = dyn_cast<tt::PointerType>(elementOf(ptr->value));
  if (!ptrElem)
    return error(at, "tl." + name + " needs a pointer");
  Type elem = ptrElem.getPointeeType();
  bool unsignedPointee = ptr->isUnsigned; // *u32: unsigned max/min, as Triton does
  ASSIGN_OR_RETURN(V val, cast(p.get("val"), elem, unsignedPointee, at));
  ASSIGN_OR_RETURN(auto pv, broadcastPair(ptr, val, at));
  auto [pp, vv] = pv;
  ArrayRef<int64_t> shape = shapeOf(pp->value);
  Value mask;
  if (V m = p.opt("mask")) {
    ASSIGN_OR_RETURN(V boolean, booleanMask(*this, m, at));
    ASSIGN_OR_RETURN(V maskI1, cast(boolean, b_.getI1Type(), false, at));
    ASSIGN_OR_RETURN(V maskV, broadcastTo(maskI1, shape, at));
    mask = maskV->value;
  }
  bool isFloat = isa<FloatType>(elem);
  tt::RMWOp op;
  switch (kind->second) {
  case 0:
    op = isFloat ? tt::RMWOp::FADD : tt::RMWOp::ADD;
    break;
  case 1:
    op = isFloat || !unsignedPointee ? tt::RMWOp::MAX : tt::RMWOp::UMAX;
    break;
  case 2:
    op = isFloat || !unsignedPointee ? tt::RMWOp::MIN : tt::RMWOp::UMIN;
    break;
  case 3:
    op = tt::RMWOp::XCHG;
    break;
  case 4:
    op = tt::RMWOp::AND;
    break;
  case 5:
    op = tt::RMWOp::OR;
    break;
  default:
    op = tt::RMWOp::XOR;
    break;
  }
  Type result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
  auto rmw = tt::AtomicRMWOp::create(b_, l, result, op, pp->value, vv->value, mask,
                                     tt::MemSemantic::ACQUIRE_RELEASE, tt::MemSyncScope::GPU);
  return makeTensor(rmw, unsignedPointee);
}

absl::StatusOr<V> Generator::builtinMakeBlockPtr(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "make_block_ptr",
                                          {{"base", true},
                                           {"shape", true},
                                           {"strides", true},
                                           {"offsets", true},
                                           {"block_shape", true},
                                           {"order", true}}));
  ASSIGN_OR_RETURN(V base, p.tensor("base"));
  auto ptrType = dyn_cast<tt::PointerType>(base->value.getType());
  if (!ptrType)
    return error(at, "make_block_ptr's base must be a scalar pointer");
  auto tupleOf = [&](const std::string &what) -> absl::StatusOr<std::vector<V>> {
    V v = p.get(what);
    if (v->kind != Val::Tuple)
      return error(at, "make_block_ptr's " + what + " must be a tuple");
    return v->items;
  };
  ASSIGN_OR_RETURN(std::vector<V> shape, tupleOf("shape"));
  ASSIGN_OR_RETURN(std::vector<V> strides, tupleOf("strides"));
  ASSIGN_OR_RETURN(std::vector<V> offsets, tupleOf("offsets"));
  ASSIGN_OR_RETURN(std::vector<int64_t> block,
                   intList(*this, p.get("block_shape"), at, "block_shape"));
  ASSIGN_OR_RETURN(std::vector<int64_t> order, intList(*this, p.get("order"), at, "order"));
  size_t rank = block.size();
  if (shape.size() != rank || strides.size() != rank || offsets.size() != rank ||
      order.size() != rank)
    return error(at, "make_block_ptr's shape, strides, offsets, block_shape and order "
                     "must have "
                     "one length");
  SmallVector<Value> shapeV, strideV, offsetV;
  for (size_t k = 0; k < rank; ++k) {
    ASSIGN_OR_RETURN(V dim, cast(shape[k], b_.getI64Type(), false, at));
    shapeV.push_back(dim->value);
    ASSIGN_OR_RETURN(V stride, cast(strides[k], b_.getI64Type(), false, at));
    strideV.push_back(stride->value);
    ASSIGN_OR_RETURN(V offset, cast(offsets[k], b_.getI32Type(), false, at));
    offsetV.push_back(offset->value);
  }
  auto tile = RankedTensorType::get(SmallVector<int64_t>(block.begin(), block.end()),
                                    ptrType.getPointeeType());
  SmallVector<int32_t> order32(order.begin(), order.end());
  return makeTensor(tt::MakeTensorPtrOp::create(b_, l, tt::PointerType::get(tile, 1), base->value,
                                                shapeV, strideV, offsetV, order32));
}

absl::StatusOr<V> Generator::builtinAdvance(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p,
                   Params::Make(*this, args, "advance", {{"base", true}, {"offsets", true}}));
  ASSIGN_OR_RETURN(V base, p.tensor("base"));
  V offs = p.get("offsets");
  if (offs->kind != Val::Tuple)
    return error(at, "advance's offsets must be a tuple");
  SmallVector<Value> offsetV;
  for (const V &o : offs->items) {
    ASSIGN_OR_RETURN(V offset, cast(o, b_.getI32Type(), false, at));
    offsetV.push_back(offset->value);
  }
  return makeTensor(tt::AdvanceOp::create(b_, l, base->value.getType(), base->value, offsetV));
}

} // namespace tessel::frontend
