//===- BuiltinsReductions.cpp - builtins: reductions, scans, sort and histogram
//-*- C++ -*-===//
//
// reductions, scans, sort and histogram.
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

absl::StatusOr<V> Generator::builtinReduction(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  bool isScan = name == "cumsum" || name == "cumprod" || name == "associative_scan";
  std::vector<std::pair<std::string, bool>> params = {
      {"input", true}, {"axis", name == "reduce" || name == "associative_scan"}};
  if (name == "reduce" || name == "associative_scan")
    params.push_back({"combine_fn", true});
  if (name == "sum" || name == "cumsum" || name == "cumprod")
    params.push_back({name == "sum" ? "keep_dims" : "reverse", false}),
        params.push_back({"dtype", false});
  else if (name == "max" || name == "min")
    params.push_back({"return_indices", false}),
        params.push_back({"return_indices_tie_break_left", false}),
        params.push_back({"keep_dims", false}), params.push_back({"propagate_nan", false});
  else if (name == "argmax" || name == "argmin")
    params.push_back({"tie_break_left", false}), params.push_back({"keep_dims", false});
  else if (name == "reduce")
    params.push_back({"keep_dims", false});
  else
    params.push_back({"reverse", false});
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name, params));
  if ((name == "max" || name == "min") && p.opt("return_indices")) {
    ASSIGN_OR_RETURN(bool returnIndices, truthy(p.get("return_indices"), at));
    if (returnIndices)
      return error(at, "return_indices is not supported yet: use tl.argmax / tl.argmin");
  }
  // Inputs: one tensor, or a tuple of tensors for reduce / associative_scan.
  std::vector<V> inputs;
  V in = p.get("input");
  if (in->kind == Val::Tuple && (name == "reduce" || name == "associative_scan")) {
    inputs = in->items;
  } else {
    ASSIGN_OR_RETURN(V input, toTensor(in, at));
    inputs = {input};
  }
  for (V &x : inputs) {
    ASSIGN_OR_RETURN(x, toTensor(x, at));
  }
  SmallVector<int64_t> shape(shapeOf(inputs[0]->value));
  for (V &x : inputs)
    if (shapeOf(x->value) != ArrayRef<int64_t>(shape))
      return error(at, "the inputs of tl." + name + " must have one shape");
  if (shape.empty()) {
    if (isScan)
      return error(at, "tl." + name + " needs a tensor");
    return inputs.size() == 1 ? inputs[0] : makeTuple(inputs);
  }
  bool promoteSmallInts = name == "sum" || name == "cumsum" || name == "cumprod";
  for (V &x : inputs) {
    Type elem = elementOf(x->value);
    if (promoteSmallInts && isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() < 32) {
      ASSIGN_OR_RETURN(x, cast(x, b_.getI32Type(), x->isUnsigned, at));
    }
  }
  if (V d = p.opt("dtype")) {
    ASSIGN_OR_RETURN(Type dtype, requireDtype(d, at, "dtype"));
    ASSIGN_OR_RETURN(inputs[0], cast(inputs[0], dtype, false, at));
  }
  bool keepDims = false;
  if (p.opt("keep_dims")) {
    ASSIGN_OR_RETURN(keepDims, truthy(p.get("keep_dims"), at));
  }
  bool reverse = false;
  if (p.opt("reverse")) {
    ASSIGN_OR_RETURN(reverse, truthy(p.get("reverse"), at));
  }
  int64_t axis = 0;
  // Reducing every axis with keep_dims gives a tensor of the input's rank with
  // all sizes 1.
  std::vector<int64_t> allOnes(shape.size(), 1);
  if (V ax = p.opt("axis")) {
    ASSIGN_OR_RETURN(axis, requireInt(ax, at, "the axis"));
    if (axis < 0)
      axis += int64_t(shape.size());
    if (axis < 0 || axis >= int64_t(shape.size()))
      return error(at, "axis " + std::to_string(ax->i) +
                           " is out of range for a tensor of rank " + std::to_string(shape.size()));
  } else if (isScan) {
    axis = 0;
  } else if (shape.size() > 1) {
    // Reduce everything: flatten first.
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    for (V &x : inputs)
      x = makeTensor(tt::ReshapeOp::create(b_, l, RankedTensorType::get({n}, elementOf(x->value)),
                                           x->value,
                                           /*allow_reorder=*/true, /*efficient_layout=*/false),
                     x->isUnsigned);
    shape = {n};
  }
  // argmax / argmin reduce (values, indices along the axis).
  bool isArg = name == "argmax" || name == "argmin";
  if (isArg) {
    Value index = tt::MakeRangeOp::create(
        b_, l, RankedTensorType::get({shape[axis]}, b_.getI32Type()), 0, int32_t(shape[axis]));
    SmallVector<int64_t> s = {shape[axis]};
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
      if (d == axis)
        continue;
      s.insert(s.begin() + d, 1);
      index = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(s, b_.getI32Type()), index,
                                       int32_t(d));
    }
    ASSIGN_OR_RETURN(V indices, broadcastTo(makeTensor(index), shape, at));
    inputs.push_back(indices);
  }

  // The combine region: block arguments (accumulators..., new values...).
  SmallVector<Value> srcs;
  SmallVector<Type> elems;
  for (V &x : inputs) {
    srcs.push_back(x->value);
    elems.push_back(elementOf(x->value));
  }
  bool isUnsigned = inputs[0]->isUnsigned;
  auto combine = [&](mlir::Block *block) -> absl::StatusOr<SmallVector<Value>> {
    size_t n = srcs.size();
    ValueRange a = block->getArguments().take_front(n), c = block->getArguments().drop_front(n);
    Type elem = elems[0];
    bool isFloat = isa<FloatType>(elem);
    if (name == "sum" || name == "cumsum")
      return SmallVector<Value>{isFloat ? Value(arith::AddFOp::create(b_, l, a[0], c[0]))
                                        : Value(arith::AddIOp::create(b_, l, a[0], c[0]))};
    if (name == "cumprod")
      return SmallVector<Value>{isFloat ? Value(arith::MulFOp::create(b_, l, a[0], c[0]))
                                        : Value(arith::MulIOp::create(b_, l, a[0], c[0]))};
    if (name == "max")
      return SmallVector<Value>{isFloat      ? Value(arith::MaxNumFOp::create(b_, l, a[0], c[0]))
                                : isUnsigned ? Value(arith::MaxUIOp::create(b_, l, a[0], c[0]))
                                             : Value(arith::MaxSIOp::create(b_, l, a[0], c[0]))};
    if (name == "min")
      return SmallVector<Value>{isFloat      ? Value(arith::MinNumFOp::create(b_, l, a[0], c[0]))
                                : isUnsigned ? Value(arith::MinUIOp::create(b_, l, a[0], c[0]))
                                             : Value(arith::MinSIOp::create(b_, l, a[0], c[0]))};
    if (isArg) {
      // Triton's combine: keep the first argument on a tie (lower index) when
      // asked.
      bool tieLeft = true;
      if (p.opt("tie_break_left")) {
        ASSIGN_OR_RETURN(tieLeft, truthy(p.get("tie_break_left"), at));
      }
      bool isMax = name == "argmax";
      Value better;
      Value tie;
      if (isFloat) {
        tie = arith::CmpFOp::create(b_, l, arith::CmpFPredicate::OEQ, a[0], c[0]);
        better = arith::CmpFOp::create(
            b_, l, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, a[0], c[0]);
      } else {
        tie = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::eq, a[0], c[0]);
        auto pred = isMax ? (isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
                          : (isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt);
        better = arith::CmpIOp::create(b_, l, pred, a[0], c[0]);
      }
      if (tieLeft) {
        Value lower = arith::CmpIOp::create(b_, l, arith::CmpIPredicate::slt, a[1], c[1]);
        tie = arith::AndIOp::create(b_, l, tie, lower);
        better = arith::OrIOp::create(b_, l, better, tie);
      }
      return SmallVector<Value>{arith::SelectOp::create(b_, l, better, a[0], c[0]),
                                arith::SelectOp::create(b_, l, better, a[1], c[1])};
    }
    // A jit combine function, inlined.
    V fnVal = p.get("combine_fn");
    if (fnVal->kind != Val::Function)
      return error(at, "combine_fn must be a @triton.jit function");
    CallArgs call;
    call.loc = at;
    for (Value v : block->getArguments())
      call.positional.push_back(makeTensor(v, isUnsigned));
    ASSIGN_OR_RETURN(V r, callFunction(*fnVal->fn, call));
    std::vector<V> items = r->kind == Val::Tuple ? r->items : std::vector<V>{r};
    if (items.size() != n)
      return error(at, "combine_fn returns " + std::to_string(items.size()) + " values for " +
                           std::to_string(n) + " inputs");
    SmallVector<Value> out;
    for (size_t k = 0; k < n; ++k) {
      ASSIGN_OR_RETURN(V item, cast(items[k], elems[k], isUnsigned, at));
      out.push_back(item->value);
    }
    return out;
  };
  SmallVector<Type> argTypes(elems);
  argTypes.append(elems.begin(), elems.end());
  SmallVector<Location> argLocs(argTypes.size(), l);
  SmallVector<Value> results;
  if (isScan) {
    SmallVector<Type> types;
    for (Value v : srcs)
      types.push_back(v.getType());
    auto scan = tt::ScanOp::create(b_, l, types, srcs, uint32_t(axis), reverse);
    OpBuilder::InsertionGuard guard(b_);
    mlir::Block *block = b_.createBlock(&scan.getCombineOp(), {}, argTypes, argLocs);
    ASSIGN_OR_RETURN(SmallVector<Value> r, combine(block));
    tt::ScanReturnOp::create(b_, l, r);
    results.assign(scan->result_begin(), scan->result_end());
  } else {
    SmallVector<int64_t> reduced(shape);
    reduced.erase(reduced.begin() + axis);
    SmallVector<Type> types;
    for (Type e : elems)
      types.push_back(reduced.empty() ? e : Type(RankedTensorType::get(reduced, e)));
    auto reduce = tt::ReduceOp::create(b_, l, types, srcs, uint32_t(axis));
    {
      OpBuilder::InsertionGuard guard(b_);
      mlir::Block *block = b_.createBlock(&reduce.getCombineOp(), {}, argTypes, argLocs);
      ASSIGN_OR_RETURN(SmallVector<Value> r, combine(block));
      tt::ReduceReturnOp::create(b_, l, r);
    }
    results.assign(reduce->result_begin(), reduce->result_end());
    if (keepDims) {
      SmallVector<int64_t> kept(shape);
      kept[axis] = 1;
      for (Value &r : results) {
        if (reduced.empty()) {
          ASSIGN_OR_RETURN(V expanded,
                           broadcastTo(makeTensor(r),
                                       p.opt("axis") ? std::vector<int64_t>{1} : allOnes, at));
          r = expanded->value;
        } else {
          r = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(kept, elementOf(r)), r,
                                       int32_t(axis));
        }
      }
    }
  }
  if (isArg)
    return makeTensor(results[1]);
  std::vector<V> out;
  for (Value r : results)
    out.push_back(makeTensor(r, isUnsigned));
  return out.size() == 1 ? out[0] : makeTuple(out);
}

absl::StatusOr<V> Generator::builtinSort(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // Triton's standard library: a bitonic sort along the last dimension (a power
  // of two), ascending unless `descending`. Each compare-and-swap step pairs
  // position i with i ^ j (a gather), orders the pair (lo, hi) up or down by
  // block ((i & k) != 0, flipped when descending) and swaps when (lo > hi)
  // differs from that direction (so a NaN never moves on its own).
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "sort",
                                          {{"x", true}, {"dim", false}, {"descending", false}}));
  ASSIGN_OR_RETURN(V x, p.tensor("x"));
  SmallVector<int64_t> shape(shapeOf(x->value));
  int64_t rank = int64_t(shape.size());
  ASSIGN_OR_RETURN(int64_t dim, dimArg(*this, p, x, at, "tl.sort"));
  if (dim != rank - 1)
    return error(at, "tl.sort sorts along the last dimension only (dim " +
                         std::to_string(rank - 1) + " or -1), as Triton does");
  int64_t n = shape[dim];
  if (n & (n - 1))
    return error(at, "tl.sort needs a power-of-two size along its dimension, got " +
                         std::to_string(n));
  bool descending = false;
  if (p.opt("descending")) {
    ASSIGN_OR_RETURN(descending, truthy(p.get("descending"), at));
  }
  ASSIGN_OR_RETURN(V pos, positionsAlong(*this, shape, dim, at));
  auto where = [&](V c, V a, V b) -> absl::StatusOr<V> {
    CallArgs w{{c, a, b}, {}, at};
    return callBuiltin("where", w);
  };
  for (int64_t k = 2; k <= n; k *= 2)
    for (int64_t j = k / 2; j >= 1; j /= 2) {
      ASSIGN_OR_RETURN(V partnerPos, binary("^", pos, makeInt(j), at));
      CallArgs gather{{x, partnerPos, makeInt(dim)}, {}, at};
      ASSIGN_OR_RETURN(V partner, callBuiltin("gather", gather));
      ASSIGN_OR_RETURN(V lowBit, binary("&", pos, makeInt(j), at));
      ASSIGN_OR_RETURN(V lower, binary("==", lowBit, makeInt(0), at));
      ASSIGN_OR_RETURN(V lo, where(lower, x, partner));
      ASSIGN_OR_RETURN(V hi, where(lower, partner, x));
      ASSIGN_OR_RETURN(V blockBit, binary("&", pos, makeInt(k), at));
      ASSIGN_OR_RETURN(V down, binary("!=", blockBit, makeInt(0), at));
      if (descending) {
        ASSIGN_OR_RETURN(down, binary("^", down, makeBool(true), at));
      }
      ASSIGN_OR_RETURN(V greater, binary(">", lo, hi, at));
      ASSIGN_OR_RETURN(V swap, binary("!=", greater, down, at));
      ASSIGN_OR_RETURN(x, where(swap, partner, x));
    }
  return x;
}

absl::StatusOr<V> Generator::builtinHistogram(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "histogram",
                                          {{"input", true}, {"num_bins", true}, {"mask", false}}));
  ASSIGN_OR_RETURN(V x, p.tensor("input"));
  ASSIGN_OR_RETURN(int64_t bins, requireInt(p.get("num_bins"), at, "num_bins"));
  if (shapeOf(x->value).size() != 1 || !isa<IntegerType>(elementOf(x->value)))
    return error(at, "tl.histogram needs a 1-D integer tensor");
  Value mask;
  if (V m = p.opt("mask")) {
    ASSIGN_OR_RETURN(V maskI1, cast(m, b_.getI1Type(), false, at));
    ASSIGN_OR_RETURN(V maskV, broadcastTo(maskI1, shapeOf(x->value), at));
    mask = maskV->value;
  }
  return makeTensor(tt::HistogramOp::create(b_, l, RankedTensorType::get({bins}, b_.getI32Type()),
                                            x->value, mask));
}

} // namespace tessel::frontend
