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

V Generator::builtinSplit(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  Params p(*this, args, "split", {{"a", true}});
  V x = p.tensor("a");
  SmallVector<int64_t> shape(shapeOf(x->value));
  if (shape.empty() || shape.back() != 2)
    error(at, "tl.split needs a tensor whose last dimension is 2");
  shape.pop_back();
  Type half =
      shape.empty() ? elementOf(x->value) : Type(RankedTensorType::get(shape, elementOf(x->value)));
  auto split = tt::SplitOp::create(b_, l, TypeRange{half, half}, x->value);
  return makeTuple({makeTensor(split->getResult(0), x->isUnsigned),
                    makeTensor(split->getResult(1), x->isUnsigned)});
}

V Generator::builtinJoin(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  Params p(*this, args, "join", {{"a", true}, {"b", true}});
  auto [a, bb] = broadcastPair(p.tensor("a"), p.tensor("b"), at);
  if (elementOf(a->value) != elementOf(bb->value))
    error(at, "tl.join needs two tensors of one dtype");
  SmallVector<int64_t> shape(shapeOf(a->value));
  shape.push_back(2);
  return makeTensor(tt::JoinOp::create(b_, l, RankedTensorType::get(shape, elementOf(a->value)),
                                       a->value, bb->value),
                    a->isUnsigned);
}

V Generator::builtinInterleave(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // Triton's definition: join the two (last dimension 2), then fold that
  // dimension into the one before it: a0 b0 a1 b1 ... along the last axis.
  Params p(*this, args, "interleave", {{"a", true}, {"b", true}});
  CallArgs joinArgs{{p.get("a"), p.get("b")}, {}, at};
  V joined = callBuiltin("join", joinArgs);
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

V Generator::builtinCat(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  Params p(*this, args, "cat", {{"input", true}, {"other", true}, {"can_reorder", false}});
  V a = p.tensor("input"), bb = p.tensor("other");
  if (a->value.getType() != bb->value.getType() || shapeOf(a->value).empty())
    error(at, "tl.cat needs two tensors of one type");
  SmallVector<int64_t> shape(shapeOf(a->value));
  shape[0] *= 2;
  return makeTensor(tt::CatOp::create(b_, l, RankedTensorType::get(shape, elementOf(a->value)),
                                      a->value, bb->value),
                    a->isUnsigned);
}

V Generator::builtinGather(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  Params p(*this, args, "gather", {{"src", true}, {"index", true}, {"axis", true}});
  V src = p.tensor("src"), index = p.tensor("index");
  int64_t axis = requireInt(p.get("axis"), at, "the axis");
  if (axis < 0 || axis >= int64_t(shapeOf(src->value).size()) ||
      shapeOf(index->value).size() != shapeOf(src->value).size())
    error(at, "tl.gather needs an index of the source's rank and a valid axis");
  auto type = RankedTensorType::get(shapeOf(index->value), elementOf(src->value));
  return makeTensor(tt::GatherOp::create(b_, l, type, src->value, index->value, uint32_t(axis)),
                    src->isUnsigned);
}

V Generator::builtinFlip(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // Triton's standard library: reverse along `dim` (the last by default). A
  // gather of the reversed index along that dimension.
  Params p(*this, args, "flip", {{"x", true}, {"dim", false}});
  V x = p.tensor("x");
  ArrayRef<int64_t> shape = shapeOf(x->value);
  int64_t dim = dimArg(*this, p, x, at, "tl.flip");
  V index = binary("-", makeInt(shape[dim] - 1), positionsAlong(*this, shape, dim, at), at);
  CallArgs gather{{x, index, makeInt(dim)}, {}, at};
  return callBuiltin("gather", gather);
}

V Generator::builtinBroadcastTo(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  if (args.positional.size() > 2) {
    std::vector<V> dims(args.positional.begin() + 1, args.positional.end());
    args.positional.resize(1);
    args.positional.push_back(makeTuple(dims));
  }
  Params p(*this, args, "broadcast_to", {{"input", true}, {"shape", true}});
  return broadcastTo(p.tensor("input"), shapeArg(*this, at, p.get("shape")), at);
}

V Generator::builtinReshape(const std::string &name, CallArgs &args) {
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
  Params p(*this, args, name, params);
  V x = p.tensor("input");
  SmallVector<int64_t> shape;
  int64_t n = 1;
  for (int64_t d : shapeOf(x->value))
    n *= d;
  if (name == "ravel")
    shape = {n};
  else
    for (int64_t d : intList(*this, p.get("shape"), at, "a shape"))
      shape.push_back(d);
  int64_t m = 1;
  for (int64_t d : shape)
    m *= d;
  if (m != n)
    error(at, "cannot reshape a tensor of " + std::to_string(n) + " elements into " +
                  std::to_string(m));
  if (ArrayRef<int64_t>(shape) == shapeOf(x->value))
    return x; // as in Triton: reshaping to the same shape emits nothing
  bool reorder = name == "view" || (p.opt("can_reorder") && truthy(p.get("can_reorder"), at));
  return makeTensor(tt::ReshapeOp::create(b_, l, RankedTensorType::get(shape, elementOf(x->value)),
                                          x->value, reorder, false),
                    x->isUnsigned);
}

V Generator::builtinExpandDims(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  Params p(*this, args, "expand_dims", {{"input", true}, {"axis", true}});
  V x = p.tensor("input");
  std::vector<int64_t> axes = intList(*this, p.get("axis"), at, "the axis");
  int64_t rank = int64_t(shapeOf(x->value).size()) + int64_t(axes.size());
  for (int64_t &a : axes) {
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      error(at, "expand_dims axis out of range");
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    error(at, "expand_dims axes repeat");
  Value v = x->value;
  if (shapeOf(v).empty())
    v = broadcastTo(x, {1}, at)->value, axes.erase(axes.begin());
  for (int64_t a : axes) {
    SmallVector<int64_t> s(shapeOf(v));
    s.insert(s.begin() + a, 1);
    v = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, elementOf(v)), v, int32_t(a));
  }
  return makeTensor(v, x->isUnsigned);
}

V Generator::builtinPermute(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  if (args.positional.empty())
    error(at, "tl." + name + " needs a tensor");
  V x = toTensor(args.positional[0], at);
  std::vector<int64_t> order;
  if (args.positional.size() == 2)
    order = intList(*this, args.positional[1], at, "the dims");
  else
    for (size_t k = 1; k < args.positional.size(); ++k)
      order.push_back(requireInt(args.positional[k], at, "a dim"));
  for (auto &kw : args.keywords) {
    if (kw.first != "dims")
      error(at, "tl." + name + " got an unexpected keyword '" + kw.first + "'");
    order = intList(*this, kw.second, at, "the dims");
  }
  ArrayRef<int64_t> shape = shapeOf(x->value);
  if (order.empty()) {
    if (shape.size() != 2 && name == "trans")
      error(at, "tl.trans without dims needs a 2-D tensor");
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
    error(at, "the permutation has " + std::to_string(order.size()) +
                  " dims for a tensor of rank " + std::to_string(shape.size()));
  SmallVector<int64_t> out;
  SmallVector<int32_t> order32;
  std::vector<bool> seen(shape.size());
  for (int64_t d : order) {
    if (d < 0 || d >= int64_t(shape.size()) || seen[d])
      error(at, "invalid permutation");
    seen[d] = true;
    out.push_back(shape[d]);
    order32.push_back(int32_t(d));
  }
  return makeTensor(tt::TransOp::create(b_, l, RankedTensorType::get(out, elementOf(x->value)),
                                        x->value, order32),
                    x->isUnsigned);
}

} // namespace tessel::frontend
