//===- TileLoads.cpp - masked loads into tile buffers as vector loops -*- C++ -*-===//
//
// A masked tl.load of a 1-D block becomes, after bufferization, a tile buffer filled with the
// `other` value past the mask's end and a copy of the valid prefix from memory:
//
//   linalg.fill ins(%other) outs(%tile[k .. N])
//   memref.copy %block[0 .. k], %tile[0 .. k]
//
// The copy would be a call to memcpy (LLVM turns a copy loop back into one), whose start-up
// costs as much as the copy of a row that is already in the first-level cache (the `prefetch`
// knob puts it there), and the fill a second pass. Both become one loop of vector-wide masked
// loads (lanes past k read nothing and take `other`) and plain stores: no call, one pass, no
// scalar tail. A plain copy of a whole block into a tile (an unmasked load) becomes the same
// loop with every lane on.
//
// When the first thing that reads the tile is a reduction of all of it with one arith op (the
// row max of softmax), the loop moves to that reduction and computes it too, in vector
// accumulators: one pass over the row instead of two.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <numeric>

using namespace mlir;

namespace {

constexpr int64_t kVectorBytes = 64;

/// `view` as a rank-1 unit-stride subview of a static 1-D buffer at offset `offset`: the
/// buffer, or null.
Value subviewBase(Value view, OpFoldResult &offset, OpFoldResult &size) {
  auto subview = view.getDefiningOp<memref::SubViewOp>();
  if (!subview || subview.getSourceType().getRank() != 1 ||
      !subview.getSourceType().hasStaticShape() || subview.getType().getRank() != 1)
    return nullptr;
  if (getConstantIntValue(subview.getMixedStrides()[0]) != std::optional<int64_t>(1))
    return nullptr;
  offset = subview.getMixedOffsets()[0];
  size = subview.getMixedSizes()[0];
  return subview.getSource();
}

bool isZero(OpFoldResult v) { return getConstantIntValue(v) == std::optional<int64_t>(0); }

/// The tile buffer of a copy's target: a static 1-D identity-layout alloca/alloc.
bool isTileBuffer(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 1 && type.hasStaticShape() &&
         type.getLayout().isIdentity() &&
         isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(v.getDefiningOp());
}

/// The reduction of all of `tile` (1-D to a scalar buffer, one arith op with a neutral element
/// and a vector combining kind) that reads the tile first after `copy`, if the load can move
/// down to it: the ops in between touch neither the tile nor memory other than local buffers
/// they fill (the reduction's accumulator).
linalg::ReduceOp fusableReduction(Operation *copy, Value tile, Value block) {
  // The buffer under the block (through views): a fill of it in between would change what
  // the moved loads read.
  Value blockRoot = block;
  while (auto view = blockRoot.getDefiningOp<ViewLikeOpInterface>())
    blockRoot = view.getViewSource();
  for (Operation *op = copy->getNextNode(); op; op = op->getNextNode()) {
    if (auto reduce = dyn_cast<linalg::ReduceOp>(op)) {
      if (!reduce.hasPureBufferSemantics() || reduce.getInputs().size() != 1 ||
          reduce.getInputs()[0] != tile || reduce.getInits().size() != 1 ||
          cast<MemRefType>(reduce.getInits()[0].getType()).getRank() != 0)
        return nullptr;
      Block &body = reduce.getCombiner().front();
      if (body.getOperations().size() != 2)
        return nullptr;
      Operation &combine = body.front();
      if (combine.getNumOperands() != 2 || combine.getNumResults() != 1 ||
          !llvm::all_of(combine.getOperands(),
                        [&](Value v) { return isa<BlockArgument>(v) && v.getParentBlock() == &body; }) ||
          combine.getOperand(0) == combine.getOperand(1) ||
          body.getTerminator()->getOperand(0) != combine.getResult(0) ||
          !linalg::getCombinerOpKind(&combine) || !arith::getNeutralElement(&combine))
        return nullptr;
      return reduce;
    }
    if (llvm::is_contained(op->getOperands(), tile))
      return nullptr;
    auto fill = dyn_cast<linalg::FillOp>(op);
    if (fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] != blockRoot &&
        isa_and_nonnull<memref::AllocaOp, memref::AllocOp>(fill.getOutputs()[0].getDefiningOp()))
      continue;
    if (op->getNumRegions() == 0 &&
        (isMemoryEffectFree(op) || isa<memref::AllocaOp, memref::AllocOp>(op)))
      continue;
    return nullptr;
  }
  return nullptr;
}

/// Rewrites one copy (and the fill of the rest of its tile, if any) as a vector loop.
void rewriteCopy(Operation *copy, Value source, Value target) {
  OpFoldResult targetOffset, count, sourceOffset, sourceCount;
  Value tile, block;
  if (isTileBuffer(target)) { // the whole tile from a block of its size
    tile = target, block = source;
    count = OpBuilder(copy).getIndexAttr(cast<MemRefType>(tile.getType()).getDimSize(0));
  } else {
    tile = subviewBase(target, targetOffset, count);
    block = subviewBase(source, sourceOffset, sourceCount);
    if (!tile || !block || !isTileBuffer(tile) || !isZero(targetOffset) ||
        !isZero(sourceOffset))
      return;
  }
  // Vector loads read consecutive elements: the block must be contiguous (a strided load,
  // p + offs * stride, is a 1-D block with a stride other than 1).
  auto tileType = cast<MemRefType>(tile.getType());
  auto blockType = dyn_cast<MemRefType>(block.getType());
  SmallVector<int64_t> blockStrides;
  int64_t blockOffset;
  if (!blockType || blockType.getRank() != 1 || !blockType.hasStaticShape() ||
      failed(blockType.getStridesAndOffset(blockStrides, blockOffset)) ||
      blockStrides[0] != 1)
    return;
  Type element = tileType.getElementType();
  int64_t n = tileType.getDimSize(0);
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0 ||
      blockType.getElementType() != element || blockType.getDimSize(0) != n)
    return;
  int64_t lanes = std::gcd(n, kVectorBytes / (element.getIntOrFloatBitWidth() / 8));
  if (lanes < 2)
    return;

  // The fill of the rest: the same buffer from `count` to its end, before the copy with
  // nothing else touching the buffer in between.
  linalg::FillOp fill;
  for (Operation *user : tile.getUsers()) {
    auto rest = dyn_cast<memref::SubViewOp>(user);
    if (!rest || rest->getBlock() != copy->getBlock() || !rest->isBeforeInBlock(copy))
      continue;
    OpFoldResult restOffset, restSize;
    if (subviewBase(rest.getResult(), restOffset, restSize) != tile || restOffset != count)
      continue;
    for (Operation *restUser : rest->getUsers())
      if (auto f = dyn_cast<linalg::FillOp>(restUser);
          f && f.hasPureBufferSemantics() && f->getBlock() == copy->getBlock() &&
          f->isBeforeInBlock(copy) && f.getInputs()[0].getType() == element &&
          (!fill || fill->isBeforeInBlock(f)))
        fill = f; // the last fill before the copy
  }
  // Between the fill and the copy only views and pure ops: nothing else writes the tile (or
  // a view of it) or anything else.
  if (fill)
    for (Operation *op = fill->getNextNode(); op != copy; op = op->getNextNode())
      if (!isa<memref::SubViewOp>(op) && (op->getNumRegions() != 0 || !isMemoryEffectFree(op)))
        return;
  if (!fill && !(getConstantIntValue(count) == std::optional<int64_t>(n)))
    return; // a partial copy with the rest left as it was: not this pattern

  linalg::ReduceOp reduce = fusableReduction(copy, tile, block);
  OpBuilder b(reduce ? reduce.getOperation() : copy);
  Location loc = copy->getLoc();
  auto vectorType = VectorType::get({lanes}, element);
  Value passThru = fill ? fill.getInputs()[0] : arith::ConstantOp::create(
                                                    b, loc, b.getZeroAttr(element));
  passThru = vector::BroadcastOp::create(b, loc, vectorType, passThru);
  Value valid = getValueOrCreateConstantIndexOp(b, loc, count);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value end = arith::ConstantIndexOp::create(b, loc, n);
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  // The reduction, if any: lanes start from the combiner's neutral element; the accumulator's
  // initial value joins once at the end.
  Operation *combine = reduce ? &reduce.getCombiner().front().front() : nullptr;
  std::optional<vector::CombiningKind> kind;
  arith::FastMathFlagsAttr fastmath;
  SmallVector<Value> accumulators;
  int64_t chains = 1;
  if (combine) {
    kind = linalg::getCombinerOpKind(combine);
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(combine))
      fastmath = fm.getFastMathFlagsAttr();
    Value neutral = arith::ConstantOp::create(b, loc, *arith::getNeutralElement(combine));
    // Independent accumulators (up to 4 vectors per step) so that the combining op's latency
    // does not serialize the loop.
    while (chains < 4 && n % (lanes * chains * 2) == 0)
      chains *= 2;
    accumulators.assign(chains, vector::BroadcastOp::create(b, loc, vectorType, neutral));
  }
  Value step = arith::ConstantIndexOp::create(b, loc, lanes * chains);
  auto loop = scf::ForOp::create(
      b, loc, zero, end, step, accumulators,
      [&](OpBuilder &lb, Location l, Value i0, ValueRange acc) {
        SmallVector<Value> next;
        for (int64_t c = 0; c < chains; ++c) {
          Value i = c == 0 ? i0
                           : arith::AddIOp::create(
                                 lb, l, i0, arith::ConstantIndexOp::create(lb, l, c * lanes))
                                 .getResult();
          // Lanes [0, valid - i) are in the block (create_mask clamps).
          Value left = arith::SubIOp::create(lb, l, valid, i);
          Value mask = vector::CreateMaskOp::create(lb, l, maskType, left);
          Value v = vector::MaskedLoadOp::create(lb, l, vectorType, block, ValueRange{i}, mask,
                                                 passThru);
          vector::StoreOp::create(lb, l, v, tile, ValueRange{i});
          if (combine)
            next.push_back(vector::makeArithReduction(lb, l, *kind, v, acc[c], fastmath));
        }
        scf::YieldOp::create(lb, l, next);
      });
  if (combine) {
    Value joined = loop.getResult(0);
    for (int64_t c = 1; c < chains; ++c)
      joined = vector::makeArithReduction(b, loc, *kind, loop.getResult(c), joined, fastmath);
    Value lanesReduced = vector::ReductionOp::create(b, loc, *kind, joined);
    Value init = reduce.getInits()[0];
    Value start = memref::LoadOp::create(b, loc, init, ValueRange{});
    Value result = vector::makeArithReduction(b, loc, *kind, lanesReduced, start, fastmath);
    memref::StoreOp::create(b, loc, result, init, ValueRange{});
    reduce->erase();
  }
  copy->erase();
  if (fill)
    fill->erase();
}

} // namespace

static void loadTilesByVectors(ModuleOp module) {
  SmallVector<Operation *> copies;
  module.walk([&](Operation *op) {
    if (isa<memref::CopyOp>(op) ||
        (isa<linalg::CopyOp>(op) && cast<linalg::CopyOp>(op).hasPureBufferSemantics()))
      copies.push_back(op);
  });
  for (Operation *copy : copies) {
    if (auto c = dyn_cast<memref::CopyOp>(copy))
      rewriteCopy(copy, c.getSource(), c.getTarget());
    else if (auto c = dyn_cast<linalg::CopyOp>(copy))
      rewriteCopy(copy, c.getInputs()[0], c.getOutputs()[0]);
  }
}

namespace tessel {
#define GEN_PASS_DEF_CPULOADTILESBYVECTORS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuLoadTilesByVectorsPass : tessel::impl::CpuLoadTilesByVectorsBase<CpuLoadTilesByVectorsPass> {
  using Base::Base;
  void runOnOperation() override {
    loadTilesByVectors(getOperation());
  }
};
} // namespace
