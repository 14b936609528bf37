//===- TileCopies.cpp - operand tiles written in 16-byte chunks per thread -*- C++ -*-===//
//
// See TileCopies.h. A thread's chunks are q = tid + k * threads for k below a constant count,
// so that LLVM unrolls the loop and the thread's loads are in flight together.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/TileCopies.h"
#include "compiler/backend/cuda/BlockMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace tessel::cuda {

scf::ExecuteRegionOp perThreadRegion(OpBuilder &b, Location loc, TypeRange types,
                                     llvm::function_ref<SmallVector<Value>(OpBuilder &)> body) {
  auto region = scf::ExecuteRegionOp::create(b, loc, types);
  region->setAttr(kPerThreadAttr, b.getUnitAttr());
  region.setNoInline(true);
  Block *block = &region.getRegion().emplaceBlock();
  OpBuilder inner = OpBuilder::atBlockBegin(block);
  SmallVector<Value> results = body(inner);
  scf::YieldOp::create(inner, loc, results);
  return region;
}

bool reachedByEveryThread(Operation *op) {
  for (Operation *up = op->getParentOp(); up && !isa<FunctionOpInterface>(up);
       up = up->getParentOp())
    if (!isa<scf::ForOp, scf::IfOp>(up))
      return false;
  return true;
}

namespace {

constexpr int64_t kChunk = 8; // 16-bit elements in 16 bytes

Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Runs `body(row, column)` for each chunk of `tile` this thread owns (inside a per-thread
/// region).
void forEachChunk(OpBuilder &b, Location loc, MemRefType tile, int64_t threads,
                  llvm::function_ref<void(OpBuilder &, Value, Value)> body) {
  int64_t perRow = tile.getDimSize(1) / kChunk, chunks = tile.getDimSize(0) * perRow;
  int64_t rounds = (chunks + threads - 1) / threads;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(b, loc, cst(b, loc, 0), cst(b, loc, rounds), cst(b, loc, 1));
  OpBuilder in = OpBuilder::atBlockBegin(loop.getBody());
  Value q = arith::AddIOp::create(
      in, loc, tid, arith::MulIOp::create(in, loc, loop.getInductionVar(), cst(in, loc, threads)));
  if (chunks % threads) {
    Value inside = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::ult, q,
                                         cst(in, loc, chunks));
    auto guard = scf::IfOp::create(in, loc, inside, /*withElseRegion=*/false);
    in.setInsertionPoint(guard.thenBlock()->getTerminator());
  }
  Value row = arith::DivUIOp::create(in, loc, q, cst(in, loc, perRow));
  Value col = arith::MulIOp::create(
      in, loc, arith::RemUIOp::create(in, loc, q, cst(in, loc, perRow)), cst(in, loc, kChunk));
  body(in, row, col);
}

/// Whether `v` is `tile` or a unit-stride subview of it; sets its offsets in the tile.
bool viewOfTile(Value v, Value tile, SmallVector<OpFoldResult> &offsets) {
  if (v == tile) {
    OpBuilder b(tile.getContext());
    offsets = {b.getIndexAttr(0), b.getIndexAttr(0)};
    return true;
  }
  auto view = v.getDefiningOp<memref::SubViewOp>();
  if (!view || view.getSource() != tile || view.getType().getRank() != 2 ||
      !llvm::all_of(view.getMixedStrides(), [](OpFoldResult s) { return isConstantIntValue(s, 1); }))
    return false;
  offsets = view.getMixedOffsets();
  return true;
}

/// A 2-D memref whose rows are contiguous (unit innermost stride).
bool contiguousRows(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  if (!type || type.getRank() != 2)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) && strides[1] == 1;
}

void chunkedFill(linalg::FillOp fill, Value tile, int64_t threads) {
  Location loc = fill.getLoc();
  auto type = cast<MemRefType>(tile.getType());
  OpBuilder b(fill);
  perThreadRegion(b, loc, {}, [&](OpBuilder &in) {
    auto vec = VectorType::get({kChunk}, type.getElementType());
    Value splat = vector::BroadcastOp::create(in, loc, vec, fill.getInputs()[0]);
    forEachChunk(in, loc, type, threads, [&](OpBuilder &at, Value r, Value c) {
      vector::StoreOp::create(at, loc, splat, tile, ValueRange{r, c}, /*nontemporal=*/false,
                              at.getI64IntegerAttr(16));
    });
    return SmallVector<Value>{};
  });
  fill.erase();
}

void chunkedCopy(linalg::CopyOp copy, Value tile, ArrayRef<OpFoldResult> offsets,
                 int64_t threads) {
  Location loc = copy.getLoc();
  auto type = cast<MemRefType>(tile.getType());
  Value src = copy.getInputs()[0];
  OpBuilder b(copy);
  perThreadRegion(b, loc, {}, [&](OpBuilder &in) {
    Value o0 = getValueOrCreateConstantIndexOp(in, loc, offsets[0]);
    Value o1 = getValueOrCreateConstantIndexOp(in, loc, offsets[1]);
    Value h = memref::DimOp::create(in, loc, src, 0);
    Value w = memref::DimOp::create(in, loc, src, 1);
    // 16-byte moves need the chunk's source address 16-byte aligned: the view's start, its
    // row stride and its column offset in the tile (chunks start at multiples of 8).
    auto meta = memref::ExtractStridedMetadataOp::create(in, loc, src);
    Value start = arith::AddIOp::create(
        in, loc, memref::ExtractAlignedPointerAsIndexOp::create(in, loc, src),
        arith::MulIOp::create(in, loc, meta.getOffset(), cst(in, loc, 2)));
    auto multipleOf = [&](Value v, int64_t n) {
      return arith::CmpIOp::create(in, loc, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(in, loc, v, cst(in, loc, n)),
                                   cst(in, loc, 0));
    };
    Value aligned = arith::AndIOp::create(
        in, loc, arith::AndIOp::create(in, loc, multipleOf(start, 16),
                                       multipleOf(meta.getStrides()[0], kChunk)),
        multipleOf(o1, kChunk));
    auto sge = [&](OpBuilder &at, Value x, Value y) {
      return arith::CmpIOp::create(at, loc, arith::CmpIPredicate::sge, x, y);
    };
    auto slt = [&](OpBuilder &at, Value x, Value y) {
      return arith::CmpIOp::create(at, loc, arith::CmpIPredicate::slt, x, y);
    };
    auto both = [&](OpBuilder &at, Value x, Value y) {
      return arith::AndIOp::create(at, loc, x, y);
    };
    forEachChunk(in, loc, type, threads, [&](OpBuilder &at, Value r, Value c) {
      Value zero = cst(at, loc, 0);
      Value i = arith::SubIOp::create(at, loc, r, o0);
      Value j = arith::SubIOp::create(at, loc, c, o1);
      Value rowIn = both(at, sge(at, i, zero), slt(at, i, h));
      Value jEnd = arith::AddIOp::create(at, loc, j, cst(at, loc, kChunk));
      Value whole = both(at, both(at, rowIn, aligned),
                         both(at, sge(at, j, zero),
                              arith::CmpIOp::create(at, loc, arith::CmpIPredicate::sle, jEnd,
                                                    w)));
      auto ifWhole = scf::IfOp::create(at, loc, whole, /*withElseRegion=*/true);
      OpBuilder then = ifWhole.getThenBodyBuilder();
      auto vec = VectorType::get({kChunk}, type.getElementType());
      Value v = vector::LoadOp::create(then, loc, vec, src, ValueRange{i, j},
                                       /*nontemporal=*/false, then.getI64IntegerAttr(16));
      vector::StoreOp::create(then, loc, v, tile, ValueRange{r, c}, /*nontemporal=*/false,
                              then.getI64IntegerAttr(16));
      // A chunk on the copy's edge (or unaligned): element by element where it lies inside.
      OpBuilder other = ifWhole.getElseBodyBuilder();
      auto ifRow = scf::IfOp::create(other, loc, rowIn, /*withElseRegion=*/false);
      OpBuilder inRow(ifRow.thenBlock()->getTerminator());
      auto elements = scf::ForOp::create(inRow, loc, cst(inRow, loc, 0),
                                         cst(inRow, loc, kChunk), cst(inRow, loc, 1));
      OpBuilder each(elements.getBody()->getTerminator());
      Value e = elements.getInductionVar();
      Value jj = arith::AddIOp::create(each, loc, j, e);
      auto ifIn = scf::IfOp::create(each, loc, both(each, sge(each, jj, cst(each, loc, 0)),
                                                     slt(each, jj, w)),
                                    /*withElseRegion=*/false);
      OpBuilder put(ifIn.thenBlock()->getTerminator());
      Value x = memref::LoadOp::create(put, loc, src, ValueRange{i, jj});
      memref::StoreOp::create(put, loc, x, tile,
                              ValueRange{r, arith::AddIOp::create(put, loc, c, e)});
    });
    return SmallVector<Value>{};
  });
  copy.erase();
}

} // namespace

int64_t writeTileInChunks(Value tile, int64_t threads) {
  auto type = dyn_cast<MemRefType>(tile.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      type.getElementTypeBitWidth() != 16 || type.getDimSize(1) % kChunk)
    return 0;
  SmallVector<linalg::FillOp> fills;
  SmallVector<std::pair<linalg::CopyOp, SmallVector<OpFoldResult>>> copies;
  auto collect = [&](Operation *user) {
    if (auto fill = dyn_cast<linalg::FillOp>(user);
        fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] == tile)
      fills.push_back(fill);
    if (auto copy = dyn_cast<linalg::CopyOp>(user); copy && copy.hasPureBufferSemantics()) {
      SmallVector<OpFoldResult> offsets;
      if (viewOfTile(copy.getOutputs()[0], tile, offsets) && contiguousRows(copy.getInputs()[0]))
        copies.push_back({copy, offsets});
    }
  };
  for (Operation *user : tile.getUsers()) {
    collect(user);
    if (isa<memref::SubViewOp>(user))
      for (Operation *viewUser : user->getResult(0).getUsers())
        collect(viewUser);
  }
  int64_t rewritten = 0;
  for (linalg::FillOp fill : fills)
    if (reachedByEveryThread(fill)) {
      chunkedFill(fill, tile, threads);
      ++rewritten;
    }
  for (auto &[copy, offsets] : copies)
    if (reachedByEveryThread(copy)) {
      chunkedCopy(copy, tile, offsets, threads);
      ++rewritten;
    }
  return rewritten;
}

} // namespace tessel::cuda
