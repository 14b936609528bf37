//===- Fusion.cpp - fewer passes over a tile before bufferization -*- C++ -*-===//
//
// Two rewrites on the tensor IR, after elementwise fusion, that save whole passes over a tile
// (each pass re-reads and re-writes the tile; for a row kernel such as softmax they cost as
// much as the arithmetic):
//
// - An elementwise producer and a reduction of its result become one linalg.generic with two
//   results: the producer's tensor and the reduction. Softmax's exp and its row sum are one
//   loop instead of two. Where the reduction is the producer's only user, the fused op has
//   the reduction's result alone (no tile of the elementwise values is written).
// - An elementwise result that is only stored (materialized into a memref, perhaps a masked
//   slice of it) is computed straight into the store's destination instead of into a tile
//   buffer that is then copied out.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {

/// A linalg.generic with only parallel loops, one result written to an identity-mapped init
/// that the payload does not read, on tensors: an elementwise op.
bool isElementwiseGeneric(linalg::GenericOp op) {
  if (!op || !op.hasPureTensorSemantics() || !op.isAllParallelLoops() ||
      op.getNumDpsInits() != 1 || op.getNumResults() != 1)
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() || op.payloadUsesValueFromOperand(init))
    return false;
  return llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isProjectedPermutation(); });
}

/// Fuses `reduce` (one input, one init) with the elementwise generic producing its input;
/// returns whether it did.
bool fuseProducerIntoReduction(IRRewriter &rewriter, linalg::ReduceOp reduce) {
  if (reduce.getInputs().size() != 1 || reduce.getInits().size() != 1 ||
      !reduce.hasPureTensorSemantics())
    return false;
  auto producer = reduce.getInputs()[0].getDefiningOp<linalg::GenericOp>();
  if (!isElementwiseGeneric(producer) || producer->getBlock() != reduce->getBlock())
    return false;
  // The combiner must be plain arithmetic on the two block arguments.
  Block &combiner = reduce.getCombiner().front();
  if (!tessel::isPlainArithmetic(combiner))
    return false;

  unsigned rank = producer.getNumLoops();
  MLIRContext *ctx = rewriter.getContext();
  llvm::SmallDenseSet<int64_t> reduced(reduce.getDimensions().begin(),
                                       reduce.getDimensions().end());
  SmallVector<utils::IteratorType> iterators;
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < rank; ++d) {
    iterators.push_back(reduced.contains(d) ? utils::IteratorType::reduction
                                            : utils::IteratorType::parallel);
    if (!reduced.contains(d))
      kept.push_back(getAffineDimExpr(d, ctx));
  }
  // The elementwise result is kept only where something else reads it (`tl.sum(x * x)` alone
  // needs no tile of squares).
  bool keepElementwise = !producer->hasOneUse();
  SmallVector<AffineMap> maps;
  for (OpOperand *input : producer.getDpsInputOperands())
    maps.push_back(producer.getMatchingIndexingMap(input));
  if (keepElementwise)
    maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  maps.push_back(AffineMap::get(rank, 0, kept, ctx));
  // Every loop must be named by some operand's map (linalg needs the maps to be invertible): a
  // producer that reads no input over the reduced dimensions (a broadcast folded into
  // linalg.index) leaves them to the reduction's own input, so the two stay apart.
  if (!inversePermutation(concatAffineMaps(maps, ctx)))
    return false;

  Value init = producer.getDpsInitOperand(0)->get(), acc = reduce.getInits()[0];
  SmallVector<Type> resultTypes;
  SmallVector<Value> inits;
  if (keepElementwise) {
    resultTypes.push_back(producer.getResult(0).getType());
    inits.push_back(init);
  }
  resultTypes.push_back(acc.getType());
  inits.push_back(acc);
  // After the reduction: every value the producer reads and the accumulator's init dominate
  // it, and the producer's users that come before the reduction still see a value defined
  // before them once the fused op replaces the producer there.
  for (Operation *user : producer->getUsers()) {
    Operation *ancestor = reduce->getBlock()->findAncestorOpInBlock(*user);
    if (!ancestor || (ancestor != reduce.getOperation() && ancestor->isBeforeInBlock(reduce)))
      return false;
  }
  rewriter.setInsertionPoint(reduce);
  auto fused = linalg::GenericOp::create(
      rewriter, reduce.getLoc(), resultTypes, producer.getDpsInputs(), inits, maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        IRMapping map;
        Block &body = *producer.getBody();
        // Producer block arguments: its inputs (then its init, which it does not read).
        for (unsigned i = 0, e = producer.getNumDpsInputs(); i < e; ++i)
          map.map(body.getArgument(i), args[i]);
        for (Operation &op : body.without_terminator())
          b.clone(op, map);
        Value element =
            map.lookupOrDefault(cast<linalg::YieldOp>(body.getTerminator()).getOperand(0));
        // The combiner's arguments: the element, then the accumulator.
        IRMapping combine;
        combine.map(combiner.getArgument(0), element);
        combine.map(combiner.getArgument(1), args.back());
        for (Operation &op : combiner.without_terminator())
          b.clone(op, combine);
        Value combined = combine.lookupOrDefault(combiner.getTerminator()->getOperand(0));
        if (keepElementwise)
          linalg::YieldOp::create(b, loc, ValueRange{element, combined});
        else
          linalg::YieldOp::create(b, loc, ValueRange{combined});
      });
  if (keepElementwise)
    rewriter.replaceAllUsesExcept(producer.getResult(0), fused.getResult(0), reduce);
  rewriter.replaceOp(reduce, fused.getResults().back());
  rewriter.eraseOp(producer);
  return true;
}

/// `materialize_in_destination (extract_slice? (elementwise ...)) in %memref`, the generic
/// used only there: the generic (on slices of its inputs) writes the memref itself, at the
/// store's place in the program, instead of a tile buffer copied into it.
bool storeIntoDestination(IRRewriter &rewriter, bufferization::MaterializeInDestinationOp store) {
  Value dest = store.getDest();
  if (!isa<MemRefType>(dest.getType()) || !store.getWritable())
    return false;
  Value source = store.getSource();
  auto slice = source.getDefiningOp<tensor::ExtractSliceOp>();
  if (slice) {
    if (!slice->hasOneUse())
      return false;
    source = slice.getSource();
  }
  auto producer = source.getDefiningOp<linalg::GenericOp>();
  if (!isElementwiseGeneric(producer) || !producer->hasOneUse())
    return false;
  // A rank-reducing slice would need the dropped dimensions in the maps; leave it.
  if (slice && slice.getType().getRank() != slice.getSourceType().getRank())
    return false;

  rewriter.setInsertionPoint(store);
  Location loc = store.getLoc();
  auto destType = cast<MemRefType>(dest.getType());
  auto destTensorType = RankedTensorType::get(destType.getShape(), destType.getElementType());
  if (destTensorType != cast<RankedTensorType>(store.getSource().getType()))
    return false;
  // The destination as a tensor the generic writes in place; nothing else reads it.
  Value out = bufferization::ToTensorOp::create(rewriter, loc, destTensorType, dest,
                                                /*restrict=*/true, /*writable=*/true);
  SmallVector<Value> inputs;
  for (OpOperand *input : producer.getDpsInputOperands()) {
    Value value = input->get();
    if (slice && isa<RankedTensorType>(value.getType())) {
      // The slice of the iteration space, through the input's (projected permutation) map.
      AffineMap map = producer.getMatchingIndexingMap(input);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (AffineExpr expr : map.getResults()) {
        unsigned d = cast<AffineDimExpr>(expr).getPosition();
        offsets.push_back(slice.getMixedOffsets()[d]);
        sizes.push_back(slice.getMixedSizes()[d]);
        strides.push_back(slice.getMixedStrides()[d]);
      }
      value = tensor::ExtractSliceOp::create(rewriter, loc, value, offsets, sizes, strides);
    }
    inputs.push_back(value);
  }
  auto direct = linalg::GenericOp::create(
      rewriter, loc, TypeRange{destTensorType}, inputs, ValueRange{out},
      producer.getIndexingMapsArray(), producer.getIteratorTypesArray());
  rewriter.cloneRegionBefore(producer.getRegion(), direct.getRegion(), direct.getRegion().end());
  rewriter.modifyOpInPlace(store,
                           [&] { store.getSourceMutable().assign(direct.getResult(0)); });
  if (slice)
    rewriter.eraseOp(slice);
  rewriter.eraseOp(producer);
  return true;
}

} // namespace

static void fuseTilePasses(ModuleOp module) {
  IRRewriter rewriter(module.getContext());
  SmallVector<linalg::ReduceOp> reduces;
  module.walk([&](linalg::ReduceOp op) { reduces.push_back(op); });
  for (linalg::ReduceOp op : reduces)
    fuseProducerIntoReduction(rewriter, op);
  SmallVector<bufferization::MaterializeInDestinationOp> stores;
  module.walk([&](bufferization::MaterializeInDestinationOp op) { stores.push_back(op); });
  for (bufferization::MaterializeInDestinationOp op : stores)
    storeIntoDestination(rewriter, op);
}

namespace tessel {
#define GEN_PASS_DEF_CPUFUSETILEPASSES
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuFuseTilePassesPass : tessel::impl::CpuFuseTilePassesBase<CpuFuseTilePassesPass> {
  using Base::Base;
  void runOnOperation() override {
    fuseTilePasses(getOperation());
  }
};
} // namespace
