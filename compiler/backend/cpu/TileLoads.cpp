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
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/CpuBackend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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

/// Rewrites one copy (and the fill of the rest of its tile, if any) as a vector loop.
void rewriteCopy(Operation *copy, Value source, Value target) {
  OpFoldResult targetOffset, count, sourceOffset, sourceCount;
  Value tile, block;
  if (isTileBuffer(target)) { // the whole tile from a block of its size
    tile = target, block = source;
    count = OpBuilder(copy).getIndexAttr(cast<MemRefType>(tile.getType()).getDimSize(0));
    auto blockType = dyn_cast<MemRefType>(block.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!blockType || blockType.getRank() != 1 || !blockType.hasStaticShape() ||
        failed(blockType.getStridesAndOffset(strides, offset)) || strides[0] != 1)
      return;
  } else {
    tile = subviewBase(target, targetOffset, count);
    block = subviewBase(source, sourceOffset, sourceCount);
    if (!tile || !block || !isTileBuffer(tile) || !isZero(targetOffset) ||
        !isZero(sourceOffset))
      return;
  }
  auto tileType = cast<MemRefType>(tile.getType());
  auto blockType = cast<MemRefType>(block.getType());
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
          f->isBeforeInBlock(copy))
        fill = f;
  }
  if (fill)
    for (Operation *op = fill->getNextNode(); op != copy; op = op->getNextNode())
      if (!isa<memref::SubViewOp>(op) && llvm::is_contained(op->getOperands(), tile))
        return;
  if (!fill && !(getConstantIntValue(count) == std::optional<int64_t>(n)))
    return; // a partial copy with the rest left as it was: not this pattern

  OpBuilder b(copy);
  Location loc = copy->getLoc();
  auto vectorType = VectorType::get({lanes}, element);
  Value passThru = fill ? fill.getInputs()[0] : arith::ConstantOp::create(
                                                    b, loc, b.getZeroAttr(element));
  passThru = vector::BroadcastOp::create(b, loc, vectorType, passThru);
  Value valid = getValueOrCreateConstantIndexOp(b, loc, count);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value end = arith::ConstantIndexOp::create(b, loc, n);
  Value step = arith::ConstantIndexOp::create(b, loc, lanes);
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  scf::ForOp::create(b, loc, zero, end, step, ValueRange{},
                     [&](OpBuilder &lb, Location l, Value i, ValueRange) {
                       // Lanes [0, valid - i) are in the block (create_mask clamps).
                       Value left = arith::SubIOp::create(lb, l, valid, i);
                       Value mask = vector::CreateMaskOp::create(lb, l, maskType, left);
                       Value v = vector::MaskedLoadOp::create(lb, l, vectorType, block,
                                                              ValueRange{i}, mask, passThru);
                       vector::StoreOp::create(lb, l, v, tile, ValueRange{i});
                       scf::YieldOp::create(lb, l);
                     });
  copy->erase();
  if (fill)
    fill->erase();
}

} // namespace

void tessel::loadTilesByVectors(ModuleOp module) {
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
