//===- TileCopies.cpp - operand tiles written in 16-byte chunks per thread -*- C++ -*-===//
//
// See TileCopies.h. A thread's chunks are q = tid + k * threads, unrolled (at most
// kMaxRounds): a copy issues all of the thread's loads before its first store, so they are in
// flight together instead of each waiting for the one before.
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
#include "mlir/Dialect/UB/IR/UBOps.h"
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

constexpr int64_t kElementBytes = 2;
constexpr int64_t kChunk = 16 / kElementBytes; // elements in a 16-byte chunk

Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The most chunks a thread moves in one write: its loads are all issued before its stores,
/// so each is a vector of registers.
constexpr int64_t kMaxRounds = 16;

/// One chunk of a thread: its row and column in the tile, and whether it exists (the last
/// round of a tile whose chunks are not a multiple of the threads).
struct Chunk {
  Value row, col, exists;
};

/// The chunks of `tile` this thread owns (inside a per-thread region), unrolled.
SmallVector<Chunk> chunksOfThread(OpBuilder &b, Location loc, MemRefType tile, int64_t threads) {
  int64_t perRow = tile.getDimSize(1) / kChunk, chunks = tile.getDimSize(0) * perRow;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  SmallVector<Chunk> out;
  for (int64_t k = 0; k * threads < chunks; ++k) {
    Value q = arith::AddIOp::create(b, loc, tid, cst(b, loc, k * threads));
    Chunk c;
    c.exists = (k + 1) * threads <= chunks
                   ? Value(arith::ConstantIntOp::create(b, loc, 1, 1))
                   : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, q,
                                                 cst(b, loc, chunks)));
    c.row = arith::DivUIOp::create(b, loc, q, cst(b, loc, perRow));
    c.col = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, q, cst(b, loc, perRow)), cst(b, loc, kChunk));
    out.push_back(c);
  }
  return out;
}

/// `then` under `cond` at `b`'s point.
void when(OpBuilder &b, Location loc, Value cond, llvm::function_ref<void(OpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder in(ifOp.thenBlock()->getTerminator());
  then(in);
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
    for (const Chunk &c : chunksOfThread(in, loc, type, threads))
      when(in, loc, c.exists, [&](OpBuilder &at) {
        vector::StoreOp::create(at, loc, splat, tile, ValueRange{c.row, c.col},
                                /*nontemporal=*/false, at.getI64IntegerAttr(16));
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
        arith::MulIOp::create(in, loc, meta.getOffset(), cst(in, loc, kElementBytes)));
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
    // All of the thread's loads first (each chunk's 16 bytes, or nothing), then its stores:
    // the loads are in flight together.
    auto vec = VectorType::get({kChunk}, type.getElementType());
    Value zero = cst(in, loc, 0);
    struct Move {
      Chunk chunk;
      Value i, j, rowIn, whole, data;
    };
    SmallVector<Move> moves;
    for (const Chunk &c : chunksOfThread(in, loc, type, threads)) {
      Move m{c, arith::SubIOp::create(in, loc, c.row, o0), arith::SubIOp::create(in, loc, c.col, o1),
             {}, {}, {}};
      m.rowIn = both(in, c.exists, both(in, sge(in, m.i, zero), slt(in, m.i, h)));
      Value jEnd = arith::AddIOp::create(in, loc, m.j, cst(in, loc, kChunk));
      m.whole = both(in, both(in, m.rowIn, aligned),
                     both(in, sge(in, m.j, zero),
                          arith::CmpIOp::create(in, loc, arith::CmpIPredicate::sle, jEnd, w)));
      auto load = scf::IfOp::create(in, loc, TypeRange{vec}, m.whole, /*withElseRegion=*/true);
      OpBuilder then = load.getThenBodyBuilder();
      scf::YieldOp::create(then, loc,
                           ValueRange{vector::LoadOp::create(then, loc, vec, src,
                                                             ValueRange{m.i, m.j},
                                                             /*nontemporal=*/false,
                                                             then.getI64IntegerAttr(16))});
      OpBuilder otherwise = load.getElseBodyBuilder();
      scf::YieldOp::create(otherwise, loc,
                           ValueRange{ub::PoisonOp::create(otherwise, loc, vec).getResult()});
      m.data = load.getResult(0);
      moves.push_back(m);
    }
    for (const Move &m : moves) {
      auto ifWhole = scf::IfOp::create(in, loc, m.whole, /*withElseRegion=*/true);
      OpBuilder then = ifWhole.getThenBodyBuilder();
      vector::StoreOp::create(then, loc, m.data, tile, ValueRange{m.chunk.row, m.chunk.col},
                              /*nontemporal=*/false, then.getI64IntegerAttr(16));
      // A chunk on the copy's edge (or unaligned): element by element where it lies inside.
      OpBuilder other = ifWhole.getElseBodyBuilder();
      when(other, loc, m.rowIn, [&](OpBuilder &inRow) {
        auto elements = scf::ForOp::create(inRow, loc, cst(inRow, loc, 0),
                                           cst(inRow, loc, kChunk), cst(inRow, loc, 1));
        OpBuilder each(elements.getBody()->getTerminator());
        Value e = elements.getInductionVar();
        Value jj = arith::AddIOp::create(each, loc, m.j, e);
        when(each, loc, both(each, sge(each, jj, cst(each, loc, 0)), slt(each, jj, w)),
             [&](OpBuilder &put) {
               Value x = memref::LoadOp::create(put, loc, src, ValueRange{m.i, jj});
               memref::StoreOp::create(
                   put, loc, x, tile,
                   ValueRange{m.chunk.row, arith::AddIOp::create(put, loc, m.chunk.col, e)});
             });
      });
    }
    return SmallVector<Value>{};
  });
  copy.erase();
}

} // namespace

void writeTileInChunks(Value tile, int64_t threads) {
  auto type = dyn_cast<MemRefType>(tile.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      type.getElementTypeBitWidth() != 8 * kElementBytes || type.getDimSize(1) % kChunk ||
      type.getNumElements() / kChunk > kMaxRounds * threads)
    return;
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
  for (linalg::FillOp fill : fills)
    if (reachedByEveryThread(fill))
      chunkedFill(fill, tile, threads);
  for (auto &[copy, offsets] : copies)
    if (reachedByEveryThread(copy))
      chunkedCopy(copy, tile, offsets, threads);
}

} // namespace tessel::cuda
