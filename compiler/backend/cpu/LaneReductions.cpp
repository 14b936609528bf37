//===- LaneReductions.cpp - reductions without a neutral element, lane by lane -*- C++ -*-===//
//
// A reduction whose combine function is not one arith op (argmax: a value and its index, or a
// user's tl.reduce over a tuple) has no neutral element: the structured lowering takes the
// first element as the initial value and reduces the rest one element after another, a chain
// LLVM cannot vectorize. Like Triton on a GPU, which combines lanes in a tree, tessel relies on
// the combine function being associative and commutative and reduces 1-D tensors lane by lane:
//
//   lanes  = x[0, V)                                  (V accumulators per operand)
//   lanes  = reduce over rows of x[V, V + mV) seen as m x V, from `lanes`
//   result = reduce(lanes, from the original init), then reduce(x[V + mV, n), from it)
//
// The middle reduction's inner loop runs over the V independent lanes, which LLVM vectorizes.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// Lanes per accumulator: a 512-bit vector of the widest operand.
int64_t laneCount(linalg::ReduceOp reduce) {
  unsigned widest = 8;
  for (Value v : reduce.getInputs())
    widest = std::max(widest, getElementTypeOrSelf(v.getType()).getIntOrFloatBitWidth());
  return 512 / widest;
}

/// A reduce like `reduce` (same combiner) of `inputs` from `inits` over `dims`.
linalg::ReduceOp cloneReduce(OpBuilder &b, linalg::ReduceOp reduce, ValueRange inputs,
                             ValueRange inits, ArrayRef<int64_t> dims) {
  auto fresh = linalg::ReduceOp::create(b, reduce.getLoc(), inputs, inits, dims,
                                        [](OpBuilder &, Location, ValueRange) {});
  // The builder made a body with a terminator-less block; replace it by the combiner.
  fresh.getCombiner().getBlocks().clear();
  IRMapping map;
  reduce.getCombiner().cloneInto(&fresh.getCombiner(), map);
  return fresh;
}

SmallVector<Value> slices(OpBuilder &b, Location loc, ValueRange values, int64_t offset,
                          int64_t size) {
  SmallVector<Value> out;
  for (Value v : values)
    out.push_back(tensor::ExtractSliceOp::create(
        b, loc, v, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(size)}, ArrayRef<OpFoldResult>{b.getIndexAttr(1)}));
  return out;
}

bool reduceByLanes(IRRewriter &rewriter, linalg::ReduceOp reduce) {
  if (!reduce.hasPureTensorSemantics() || reduce.getInputs().size() < 2 ||
      reduce.getDimensions().size() != 1 ||
      !tessel::isPlainArithmetic(reduce.getCombiner().front()))
    return false;
  for (Value v : reduce.getInputs()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() != 1 || !type.hasStaticShape() ||
        !getElementTypeOrSelf(type).isIntOrFloat())
      return false;
  }
  int64_t n = cast<RankedTensorType>(reduce.getInputs()[0].getType()).getDimSize(0);
  int64_t lanes = laneCount(reduce), rows = n / lanes - 1;
  if (rows < 1)
    return false; // too short to be worth it
  Location loc = reduce.getLoc();
  rewriter.setInsertionPoint(reduce);
  ValueRange inputs = reduce.getInputs();
  // The first `lanes` elements start the accumulators ...
  SmallVector<Value> acc = slices(rewriter, loc, inputs, 0, lanes);
  // ... the next rows x lanes are reduced into them, column by column ...
  SmallVector<Value> body;
  for (Value v : slices(rewriter, loc, inputs, lanes, rows * lanes)) {
    auto type = cast<RankedTensorType>(v.getType());
    auto matrix = RankedTensorType::get({rows, lanes}, type.getElementType());
    body.push_back(tensor::ExpandShapeOp::create(rewriter, loc, matrix, v,
                                                 ArrayRef<ReassociationIndices>{{0, 1}}));
  }
  ValueRange laneResults = cloneReduce(rewriter, reduce, body, acc, {0})->getResults();
  // ... then the lanes, and what is left after the rows, into the original initial values.
  ValueRange results = cloneReduce(rewriter, reduce, laneResults, reduce.getInits(), {0})
                           ->getResults();
  int64_t done = (rows + 1) * lanes;
  if (done < n)
    results = cloneReduce(rewriter, reduce, slices(rewriter, loc, inputs, done, n - done),
                          results, {0})
                  ->getResults();
  rewriter.replaceOp(reduce, results);
  return true;
}

} // namespace

static void reduceAllByLanes(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  SmallVector<linalg::ReduceOp> reduces;
  module.walk([&](linalg::ReduceOp op) { reduces.push_back(op); });
  for (linalg::ReduceOp op : reduces)
    ::reduceByLanes(rewriter, op);
}

namespace tessel {
#define GEN_PASS_DEF_CPUREDUCEBYLANES
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuReduceByLanesPass : tessel::impl::CpuReduceByLanesBase<CpuReduceByLanesPass> {
  using Base::Base;
  void runOnOperation() override {
    reduceAllByLanes(getOperation());
  }
};
} // namespace
