//===- BuiltinsShapes.cpp - builtins: shapes -*- C++ -*-===//
//
// shapes: broadcast, reshape, expand_dims, permute, split, join, interleave,
// cat, gather, flip.
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

absl::StatusOr<V> Generator::builtinSplit(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "split", {{"a", true}}));
  ASSIGN_OR_RETURN(V x, p.tensor("a"));
  SmallVector<int64_t> shape(shapeOf(x->value));
  if (shape.empty() || shape.back() != 2)
    return error(at, "tl.split needs a tensor whose last dimension is 2");
  shape.pop_back();
  Type half =
      shape.empty() ? elementOf(x->value) : Type(RankedTensorType::get(shape, elementOf(x->value)));
  auto split = tt::SplitOp::create(b_, l, TypeRange{half, half}, x->value);
  return makeTuple({makeTensor(split->getResult(0), x->isUnsigned),
                    makeTensor(split->getResult(1), x->isUnsigned)});
}

absl::StatusOr<V> Generator::builtinJoin(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "join", {{"a", true}, {"b", true}}));
  ASSIGN_OR_RETURN(V ta, p.tensor("a"));
  ASSIGN_OR_RETURN(V tb, p.tensor("b"));
  ASSIGN_OR_RETURN(auto ab, broadcastPair(ta, tb, at));
  auto [a, bb] = ab;
  if (elementOf(a->value) != elementOf(bb->value))
    return error(at, "tl.join needs two tensors of one dtype");
  SmallVector<int64_t> shape(shapeOf(a->value));
  shape.push_back(2);
  return makeTensor(tt::JoinOp::create(b_, l, RankedTensorType::get(shape, elementOf(a->value)),
                                       a->value, bb->value),
                    a->isUnsigned);
}

absl::StatusOr<V> Generator::builtinInterleave(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // Triton's definition: join the two (last dimension 2), then fold that
  // dimension into the one before it: a0 b0 a1 b1 ... along the last axis.
  ASSIGN_OR_RETURN(Params p,
                   Params::Make(*this, args, "interleave", {{"a", true}, {"b", true}}));
  CallArgs joinArgs{{p.get("a"), p.get("b")}, {}, at};
  ASSIGN_OR_RETURN(V joined, callBuiltin("join", joinArgs));
  SmallVector<int64_t> shape(shapeOf(joined->value));
  if (shape.size() == 1)
    return joined; // two scalars
  shape.pop_back();
  shape.back() *= 2;
  std::vector<V> dims;
  for (int64_t d : shape)
    dims.push_back(makeInt(d));
  CallArgs reshapeArgs{{joined, makeTuple(dims)}, {}, at};
  return callBuiltin("reshape", reshapeArgs);
}

absl::StatusOr<V> Generator::builtinCat(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(
      Params p,
      Params::Make(*this, args, "cat", {{"input", true}, {"other", true}, {"can_reorder", false}}));
  ASSIGN_OR_RETURN(V a, p.tensor("input"));
  ASSIGN_OR_RETURN(V bb, p.tensor("other"));
  if (a->value.getType() != bb->value.getType() || shapeOf(a->value).empty())
    return error(at, "tl.cat needs two tensors of one type");
  SmallVector<int64_t> shape(shapeOf(a->value));
  shape[0] *= 2;
  return makeTensor(tt::CatOp::create(b_, l, RankedTensorType::get(shape, elementOf(a->value)),
                                      a->value, bb->value),
                    a->isUnsigned);
}

absl::StatusOr<V> Generator::builtinGather(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "gather",
                                          {{"src", true}, {"index", true}, {"axis", true}}));
  ASSIGN_OR_RETURN(V src, p.tensor("src"));
  ASSIGN_OR_RETURN(V index, p.tensor("index"));
  ASSIGN_OR_RETURN(int64_t axis, requireInt(p.get("axis"), at, "the axis"));
  if (axis < 0 || axis >= int64_t(shapeOf(src->value).size()) ||
      shapeOf(index->value).size() != shapeOf(src->value).size())
    return error(at, "tl.gather needs an index of the source's rank and a valid axis");
  auto type = RankedTensorType::get(shapeOf(index->value), elementOf(src->value));
  return makeTensor(tt::GatherOp::create(b_, l, type, src->value, index->value, uint32_t(axis)),
                    src->isUnsigned);
}

absl::StatusOr<V> Generator::builtinFlip(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // Triton's standard library: reverse along `dim` (the last by default). A
  // gather of the reversed index along that dimension.
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "flip", {{"x", true}, {"dim", false}}));
  ASSIGN_OR_RETURN(V x, p.tensor("x"));
  ArrayRef<int64_t> shape = shapeOf(x->value);
  ASSIGN_OR_RETURN(int64_t dim, dimArg(*this, p, x, at, "tl.flip"));
  ASSIGN_OR_RETURN(V positions, positionsAlong(*this, shape, dim, at));
  ASSIGN_OR_RETURN(V index, binary("-", makeInt(shape[dim] - 1), positions, at));
  CallArgs gather{{x, index, makeInt(dim)}, {}, at};
  return callBuiltin("gather", gather);
}

absl::StatusOr<V> Generator::builtinBroadcastTo(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  if (args.positional.size() > 2) {
    std::vector<V> dims(args.positional.begin() + 1, args.positional.end());
    args.positional.resize(1);
    args.positional.push_back(makeTuple(dims));
  }
  ASSIGN_OR_RETURN(Params p,
                   Params::Make(*this, args, "broadcast_to", {{"input", true}, {"shape", true}}));
  ASSIGN_OR_RETURN(V input, p.tensor("input"));
  ASSIGN_OR_RETURN(SmallVector<int64_t> shape, shapeArg(*this, at, p.get("shape")));
  return broadcastTo(input, shape, at);
}

absl::StatusOr<V> Generator::builtinReshape(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  if (name != "ravel" && args.positional.size() > 2) {
    std::vector<V> dims(args.positional.begin() + 1, args.positional.end());
    args.positional.resize(1);
    args.positional.push_back(makeTuple(dims));
  }
  std::vector<std::pair<std::string, bool>> params = {{"input", true}};
  if (name != "ravel")
    params.push_back({"shape", true}), params.push_back({"can_reorder", false});
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name, params));
  ASSIGN_OR_RETURN(V x, p.tensor("input"));
  SmallVector<int64_t> shape;
  int64_t n = 1;
  for (int64_t d : shapeOf(x->value))
    n *= d;
  if (name == "ravel") {
    shape = {n};
  } else {
    ASSIGN_OR_RETURN(std::vector<int64_t> dims, intList(*this, p.get("shape"), at, "a shape"));
    for (int64_t d : dims)
      shape.push_back(d);
  }
  int64_t m = 1;
  for (int64_t d : shape)
    m *= d;
  if (m != n)
    return error(at, "cannot reshape a tensor of " + std::to_string(n) + " elements into " +
                         std::to_string(m));
  if (ArrayRef<int64_t>(shape) == shapeOf(x->value))
    return x; // as in Triton: reshaping to the same shape emits nothing
  bool reorder = name == "view";
  if (!reorder && p.opt("can_reorder")) {
    ASSIGN_OR_RETURN(reorder, truthy(p.get("can_reorder"), at));
  }
  return makeTensor(tt::ReshapeOp::create(b_, l, RankedTensorType::get(shape, elementOf(x->value)),
                                          x->value, reorder, false),
                    x->isUnsigned);
}

absl::StatusOr<V> Generator::builtinExpandDims(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p,
                   Params::Make(*this, args, "expand_dims", {{"input", true}, {"axis", true}}));
  ASSIGN_OR_RETURN(V x, p.tensor("input"));
  ASSIGN_OR_RETURN(std::vector<int64_t> axes, intList(*this, p.get("axis"), at, "the axis"));
  int64_t rank = int64_t(shapeOf(x->value).size()) + int64_t(axes.size());
  for (int64_t &a : axes) {
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      return error(at, "expand_dims axis out of range");
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return error(at, "expand_dims axes repeat");
  Value v = x->value;
  if (shapeOf(v).empty()) {
    ASSIGN_OR_RETURN(V one, broadcastTo(x, {1}, at));
    v = one->value, axes.erase(axes.begin());
  }
  for (int64_t a : axes) {
    SmallVector<int64_t> s(shapeOf(v));
    s.insert(s.begin() + a, 1);
    v = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, elementOf(v)), v, int32_t(a));
  }
  return makeTensor(v, x->isUnsigned);
}

absl::StatusOr<V> Generator::builtinPermute(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  if (args.positional.empty())
    return error(at, "tl." + name + " needs a tensor");
  ASSIGN_OR_RETURN(V x, toTensor(args.positional[0], at));
  std::vector<int64_t> order;
  if (args.positional.size() == 2) {
    ASSIGN_OR_RETURN(order, intList(*this, args.positional[1], at, "the dims"));
  } else {
    for (size_t k = 1; k < args.positional.size(); ++k) {
      ASSIGN_OR_RETURN(int64_t d, requireInt(args.positional[k], at, "a dim"));
      order.push_back(d);
    }
  }
  for (auto &kw : args.keywords) {
    if (kw.first != "dims")
      return error(at, "tl." + name + " got an unexpected keyword '" + kw.first + "'");
    ASSIGN_OR_RETURN(order, intList(*this, kw.second, at, "the dims"));
  }
  ArrayRef<int64_t> shape = shapeOf(x->value);
  if (order.empty()) {
    if (shape.size() != 2 && name == "trans")
      return error(at, "tl.trans without dims needs a 2-D tensor");
    for (int64_t k = int64_t(shape.size()) - 1; k >= 0; --k)
      order.push_back(k);
    if (shape.size() > 2) { // swap the last two
      order.clear();
      for (size_t k = 0; k < shape.size(); ++k)
        order.push_back(k);
      std::swap(order[shape.size() - 1], order[shape.size() - 2]);
    }
  }
  if (order.size() != shape.size())
    return error(at, "the permutation has " + std::to_string(order.size()) +
                         " dims for a tensor of rank " + std::to_string(shape.size()));
  SmallVector<int64_t> out;
  SmallVector<int32_t> order32;
  std::vector<bool> seen(shape.size());
  for (int64_t d : order) {
    if (d < 0 || d >= int64_t(shape.size()) || seen[d])
      return error(at, "invalid permutation");
    seen[d] = true;
    out.push_back(shape[d]);
    order32.push_back(int32_t(d));
  }
  return makeTensor(tt::TransOp::create(b_, l, RankedTensorType::get(out, elementOf(x->value)),
                                        x->value, order32),
                    x->isUnsigned);
}

} // namespace tessel::frontend
