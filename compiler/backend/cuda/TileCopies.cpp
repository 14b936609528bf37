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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace tessel::cuda {

Value iterationOf(OpBuilder &b, Location loc, scf::ForOp loop) {
  Value iteration = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
      loop.getStep());
  if (!iteration.getType().isIndex())
    iteration = arith::IndexCastOp::create(b, loc, b.getIndexType(), iteration);
  return iteration;
}

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

/// The bytes of one element of `tile` (2 or 4: the tiles this file writes).
int64_t elementBytes(MemRefType tile) { return tile.getElementTypeBitWidth() / 8; }
/// The elements of `tile` in one 16-byte chunk.
int64_t chunkOf(MemRefType tile) { return 16 / elementBytes(tile); }

Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The most chunks a thread moves in one write: its loads are all issued before its stores,
/// so each is a vector of registers.
constexpr int64_t kMaxRounds = 16;

/// Whether the writes of `type` (a tile) may become chunks: a static 2-D tile of 16- or 32-bit
/// elements (tf32 operands) whose rows are whole chunks, at most kMaxRounds chunks a thread.
bool chunkable(MemRefType type, int64_t threads) {
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !(type.getElementTypeBitWidth() == 16 || type.getElementTypeBitWidth() == 32))
    return false;
  int64_t chunk = chunkOf(type);
  return type.getDimSize(1) % chunk == 0 &&
         type.getNumElements() / chunk <= kMaxRounds * threads;
}

/// One chunk of a thread: its row and column in the tile, and whether it exists (the last
/// round of a tile whose chunks are not a multiple of the threads).
struct Chunk {
  Value row, col, exists;
  Value dstRow, dst; ///< where it is stored: (row, col), or swizzled: swizzledPosition
};

/// The chunks of `tile` this thread owns (inside a per-thread region), unrolled.
SmallVector<Chunk> chunksOfThread(OpBuilder &b, Location loc, MemRefType tile, int64_t threads,
                                  bool swizzle = false) {
  int64_t chunk = chunkOf(tile);
  int64_t perRow = tile.getDimSize(1) / chunk, chunks = tile.getDimSize(0) * perRow;
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
        b, loc, arith::RemUIOp::create(b, loc, q, cst(b, loc, perRow)), cst(b, loc, chunk));
    std::tie(c.dstRow, c.dst) =
        swizzle ? swizzledPosition(b, loc, c.row, c.col, tile) : std::make_pair(c.row, c.col);
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

/// Chunk `c` of the tile `shared` as one cp.async under `cond` at `b`'s point: 16 bytes from
/// `src` at `indices`, of which `count` elements are read (the rest zero-filled; all 16 where
/// `count` is null).
void asyncChunk(OpBuilder &b, Location loc, Value cond, Value shared, const Chunk &c, Value src,
                ValueRange indices, Value count) {
  when(b, loc, cond, [&](OpBuilder &put) {
    nvgpu::DeviceAsyncCopyOp::create(
        put, loc, nvgpu::DeviceAsyncTokenType::get(put.getContext()), shared,
        ValueRange{c.dstRow, c.dst}, src, indices,
        put.getIndexAttr(chunkOf(cast<MemRefType>(shared.getType()))), count, put.getUnitAttr());
  });
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

/// The thread's chunks of `tile` set to `value` (inside a per-thread region); with `rows`, only
/// those of the rows [rows->first, rows->second).
void emitFillChunks(OpBuilder &in, Location loc, Value tile, Value value, int64_t threads,
                    bool swizzle = false,
                    std::optional<std::pair<Value, Value>> rows = std::nullopt) {
  auto type = cast<MemRefType>(tile.getType());
  auto vec = VectorType::get({chunkOf(type)}, type.getElementType());
  Value splat = vector::BroadcastOp::create(in, loc, vec, value);
  for (const Chunk &c : chunksOfThread(in, loc, type, threads, swizzle)) {
    Value exists = c.exists;
    if (rows) {
      Value from = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::uge, c.row, rows->first);
      Value to = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::ult, c.row, rows->second);
      exists = arith::AndIOp::create(in, loc, exists, arith::AndIOp::create(in, loc, from, to));
    }
    when(in, loc, exists, [&](OpBuilder &at) {
      vector::StoreOp::create(at, loc, splat, tile, ValueRange{c.dstRow, c.dst},
                              /*nontemporal=*/false, at.getI64IntegerAttr(16));
    });
  }
}

void chunkedFill(linalg::FillOp fill, Value tile, int64_t threads, bool swizzle = false) {
  OpBuilder b(fill);
  perThreadRegion(b, fill.getLoc(), {}, [&](OpBuilder &in) {
    // A fill of whole rows of the tile (a unit-stride view of all its columns): their chunks.
    std::optional<std::pair<Value, Value>> rows;
    if (auto view = fill.getOutputs()[0].getDefiningOp<memref::SubViewOp>()) {
      Value first = getValueOrCreateConstantIndexOp(in, fill.getLoc(), view.getMixedOffsets()[0]);
      Value size = getValueOrCreateConstantIndexOp(in, fill.getLoc(), view.getMixedSizes()[0]);
      rows = {first, arith::AddIOp::create(in, fill.getLoc(), first, size)};
    }
    emitFillChunks(in, fill.getLoc(), tile, fill.getInputs()[0], threads, swizzle, rows);
    return SmallVector<Value>{};
  });
  fill.erase();
}

/// The buffer `v` views through subviews, reinterpret casts, transposes and casts, which keep
/// its base pointer (and so its element offsets); null through another view.
Value baseOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::TransposeOp, memref::CastOp>(
            def))
      return isa<ViewLikeOpInterface>(def) ? Value() : v;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the copy source `src` (2-D, contiguous rows) moves as whole 16-byte chunks into a
/// tile of `tile`'s type at column `o1`: its start and row stride 16-byte aligned, `o1` a
/// multiple of a chunk.
Value chunksAligned(OpBuilder &in, Location loc, Value src, MemRefType tile, Value o1) {
  int64_t chunk = chunkOf(tile);
  auto meta = memref::ExtractStridedMetadataOp::create(in, loc, src);
  Value start = arith::AddIOp::create(
      in, loc, memref::ExtractAlignedPointerAsIndexOp::create(in, loc, src),
      arith::MulIOp::create(in, loc, meta.getOffset(), cst(in, loc, elementBytes(tile))));
  auto multipleOf = [&](Value v, int64_t n) {
    return arith::CmpIOp::create(in, loc, arith::CmpIPredicate::eq,
                                 arith::RemUIOp::create(in, loc, v, cst(in, loc, n)),
                                 cst(in, loc, 0));
  };
  return arith::AndIOp::create(
      in, loc, arith::AndIOp::create(in, loc, multipleOf(start, 16),
                                     multipleOf(meta.getStrides()[0], chunk)),
      multipleOf(o1, chunk));
}

/// The thread's chunks of the copy of `src` into `tile` at `offsets` (inside a per-thread
/// region): whole aligned chunks as 16-byte moves, all loads before the stores (`batched`; else
/// each chunk stored after its load, fewer registers); the others element by element.
void emitCopyChunks(OpBuilder &in, Location loc, Value src, Value tile,
                    ArrayRef<OpFoldResult> offsets, int64_t threads, bool swizzle = false,
                    bool batched = true) {
  auto type = cast<MemRefType>(tile.getType());
  Value o0 = getValueOrCreateConstantIndexOp(in, loc, offsets[0]);
  Value o1 = getValueOrCreateConstantIndexOp(in, loc, offsets[1]);
  Value h = memref::DimOp::create(in, loc, src, 0);
  Value w = memref::DimOp::create(in, loc, src, 1);
  // 16-byte moves need the chunk's source address 16-byte aligned.
  Value aligned = chunksAligned(in, loc, src, type, o1);
  int64_t chunk = chunkOf(type);
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
  auto vec = VectorType::get({chunk}, type.getElementType());
  Value zero = cst(in, loc, 0);
  struct Move {
    Chunk chunk;
    Value i, j, rowIn, whole, data;
  };
  auto store = [&](const Move &m) {
    auto ifWhole = scf::IfOp::create(in, loc, m.whole, /*withElseRegion=*/true);
    OpBuilder then = ifWhole.getThenBodyBuilder();
    vector::StoreOp::create(then, loc, m.data, tile, ValueRange{m.chunk.dstRow, m.chunk.dst},
                            /*nontemporal=*/false, then.getI64IntegerAttr(16));
    // A chunk on the copy's edge (or unaligned): element by element where it lies inside.
    OpBuilder other = ifWhole.getElseBodyBuilder();
    when(other, loc, m.rowIn, [&](OpBuilder &inRow) {
      auto elements = scf::ForOp::create(inRow, loc, cst(inRow, loc, 0),
                                         cst(inRow, loc, chunk), cst(inRow, loc, 1));
      OpBuilder each(elements.getBody()->getTerminator());
      Value e = elements.getInductionVar();
      Value jj = arith::AddIOp::create(each, loc, m.j, e);
      when(each, loc, both(each, sge(each, jj, cst(each, loc, 0)), slt(each, jj, w)),
           [&](OpBuilder &put) {
             Value x = memref::LoadOp::create(put, loc, src, ValueRange{m.i, jj});
             memref::StoreOp::create(
                 put, loc, x, tile,
                 ValueRange{m.chunk.dstRow, arith::AddIOp::create(put, loc, m.chunk.dst, e)});
           });
    });
  };
  SmallVector<Move> moves;
  for (const Chunk &c : chunksOfThread(in, loc, type, threads, swizzle)) {
    Move m{c, arith::SubIOp::create(in, loc, c.row, o0), arith::SubIOp::create(in, loc, c.col, o1),
           {}, {}, {}};
    m.rowIn = both(in, c.exists, both(in, sge(in, m.i, zero), slt(in, m.i, h)));
    Value jEnd = arith::AddIOp::create(in, loc, m.j, cst(in, loc, chunk));
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
    if (batched)
      moves.push_back(m);
    else
      store(m);
  }
  for (const Move &m : moves)
    store(m);
}

void chunkedCopy(linalg::CopyOp copy, Value tile, ArrayRef<OpFoldResult> offsets,
                 int64_t threads, bool swizzle = false) {
  OpBuilder b(copy);
  perThreadRegion(b, copy.getLoc(), {}, [&](OpBuilder &in) {
    emitCopyChunks(in, copy.getLoc(), copy.getInputs()[0], tile, offsets, threads, swizzle);
    return SmallVector<Value>{};
  });
  copy.erase();
}

/// `user` as the gather structured-to-memref adds to a wrap-around tile's copies (one
/// linalg.generic over the whole `tile`, alone in an scf.if marked tessel.wrap_gather that
/// holds where the rows or columns wrap more than once), or null.
linalg::GenericOp wrapGatherOf(Operation *user, Value tile) {
  auto gather = dyn_cast<linalg::GenericOp>(user);
  if (!gather || gather.getNumDpsInputs() != 0 || gather.getNumDpsInits() != 1 ||
      gather.getDpsInits()[0] != tile || !gather.hasPureBufferSemantics())
    return {};
  auto ifOp = dyn_cast<scf::IfOp>(gather->getParentOp());
  if (!ifOp || !ifOp->hasAttr("tessel.wrap_gather") || ifOp.getNumResults() != 0 ||
      !ifOp.getElseRegion().empty())
    return {};
  return gather;
}

/// The thread's chunks of `tile` (inside a per-thread region) rewritten by `gather` where
/// `cond` holds: element by element, the gather's body at the element's (row, column), its
/// output the element as it is.
void emitGatherChunks(OpBuilder &in, Location loc, linalg::GenericOp gather, Value cond,
                      Value tile, int64_t threads, bool swizzle) {
  auto type = cast<MemRefType>(tile.getType());
  Block *body = gather.getBlock();
  for (const Chunk &c : chunksOfThread(in, loc, type, threads, swizzle)) {
    when(in, loc, arith::AndIOp::create(in, loc, cond, c.exists), [&](OpBuilder &at) {
      auto elements = scf::ForOp::create(at, loc, cst(at, loc, 0), cst(at, loc, chunkOf(type)),
                                         cst(at, loc, 1));
      OpBuilder each(elements.getBody()->getTerminator());
      Value e = elements.getInductionVar();
      Value col = arith::AddIOp::create(each, loc, c.col, e);
      Value dst = arith::AddIOp::create(each, loc, c.dst, e);
      IRMapping map;
      map.map(body->getArgument(0),
              memref::LoadOp::create(each, loc, tile, ValueRange{c.dstRow, dst}).getResult());
      for (Operation &op : body->without_terminator()) {
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          map.map(index.getResult(), index.getDim() == 0 ? c.row : col);
          continue;
        }
        each.clone(op, map);
      }
      memref::StoreOp::create(each, loc, map.lookupOrDefault(body->getTerminator()->getOperand(0)),
                              tile, ValueRange{c.dstRow, dst});
    });
  }
}

} // namespace

bool swizzles(MemRefType tile) {
  int64_t chunk = chunkOf(tile), cols = tile.getDimSize(1), perRow = cols / chunk;
  return cols % chunk == 0 && perRow >= 2 && llvm::isPowerOf2_64(perRow);
}

std::pair<Value, Value> swizzledPosition(OpBuilder &b, Location loc, Value row, Value col,
                                         MemRefType tile) {
  // Eight 16-byte chunks span the 32 banks: the chunks of rows that share banks (rows 128
  // bytes apart or closer) are XOR-permuted by the row, so the 8 rows ldmatrix reads at one
  // logical column fall in 8 different groups of banks. These are the 32-, 64- and 128-byte
  // swizzles of the tensor cores' shared-memory layouts (wgmma), with the tile at a 1024-byte
  // boundary; wider rows are stored as column blocks of 128 bytes one after another, each a
  // tile of 128-byte rows in the 128-byte swizzle.
  int64_t width = chunkOf(tile), rows = tile.getDimSize(0), cols = tile.getDimSize(1);
  int64_t perRow = cols / width;
  auto c = [&](int64_t v) { return cst(b, loc, v); };
  Value chunk = arith::DivUIOp::create(b, loc, col, c(width));
  if (perRow <= 8) {
    Value group =
        perRow == 8
            ? arith::RemUIOp::create(b, loc, row, c(8)).getResult()
            : arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, row, c(8 / perRow)),
                                     c(perRow))
                  .getResult();
    return {row, arith::MulIOp::create(b, loc, arith::XOrIOp::create(b, loc, chunk, group),
                                       c(width))};
  }
  Value block = arith::DivUIOp::create(b, loc, chunk, c(8));
  Value within = arith::XOrIOp::create(b, loc, arith::RemUIOp::create(b, loc, chunk, c(8)),
                                       arith::RemUIOp::create(b, loc, row, c(8)));
  // The element offset of the chunk in the buffer, then as its (row, column).
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, block, c(rows * 8 * width)),
                            arith::MulIOp::create(b, loc, row, c(8 * width))),
      arith::MulIOp::create(b, loc, within, c(width)));
  return {arith::DivUIOp::create(b, loc, linear, c(cols)),
          arith::RemUIOp::create(b, loc, linear, c(cols))};
}

void writeTileInChunks(Value tile, int64_t threads,
                       llvm::function_ref<bool(Operation *)> isReader) {
  auto type = dyn_cast<MemRefType>(tile.getType());
  if (!chunkable(type, threads))
    return;
  SmallVector<linalg::FillOp> fills;
  SmallVector<std::pair<linalg::CopyOp, SmallVector<OpFoldResult>>> copies;
  linalg::GenericOp gather;
  auto collect = [&](Operation *user) {
    if (linalg::GenericOp g = wrapGatherOf(user, tile))
      gather = g;
    if (auto fill = dyn_cast<linalg::FillOp>(user);
        fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] == tile)
      fills.push_back(fill);
    if (auto copy = dyn_cast<linalg::CopyOp>(user); copy && copy.hasPureBufferSemantics()) {
      SmallVector<OpFoldResult> offsets;
      if (viewOfTile(copy.getOutputs()[0], tile, offsets) && contiguousRows(copy.getInputs()[0]))
        copies.push_back({copy, offsets});
    }
  };
  // Fills of whole rows (a unit-stride view of every column), rewritten only to store the
  // tile swizzled.
  SmallVector<linalg::FillOp> rowFills;
  for (Operation *user : tile.getUsers()) {
    collect(user);
    if (auto view = dyn_cast<memref::SubViewOp>(user)) {
      for (Operation *viewUser : user->getResult(0).getUsers()) {
        collect(viewUser);
        auto fill = dyn_cast<linalg::FillOp>(viewUser);
        if (fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] == view &&
            isConstantIntValue(view.getMixedOffsets()[1], 0) &&
            isConstantIntValue(view.getMixedSizes()[1], type.getDimSize(1)) &&
            llvm::all_of(view.getMixedStrides(),
                         [](OpFoldResult st) { return isConstantIntValue(st, 1); }))
          rowFills.push_back(fill);
      }
    }
  }
  // Stored swizzled (as writeTileAsync stores) where the fills and copies, all rewritten, are
  // its only writers and `isReader` accepts every other user: the matmuls that read it.
  auto rewritten = [&](Operation *op) {
    return reachedByEveryThread(op) &&
           (llvm::is_contained(fills, op) || llvm::is_contained(rowFills, op) ||
            op == gather.getOperation() ||
            llvm::any_of(copies, [&](auto &c) { return c.first.getOperation() == op; }));
  };
  bool swizzle = isReader && swizzles(type);
  for (Operation *user : tile.getUsers()) {
    if (!swizzle)
      break;
    if (isa<memref::SubViewOp>(user)) {
      for (Operation *viewUser : user->getResult(0).getUsers())
        swizzle &= rewritten(viewUser);
      continue;
    }
    swizzle &= rewritten(user) || isReader(user);
  }
  if (swizzle) {
    tile.getDefiningOp()->setAttr(kSwizzledAttr, UnitAttr::get(tile.getContext()));
    for (linalg::FillOp fill : rowFills) {
      Operation *view = fill.getOutputs()[0].getDefiningOp();
      chunkedFill(fill, tile, threads, swizzle);
      if (view->use_empty())
        view->erase();
    }
  }
  for (linalg::FillOp fill : fills)
    if (reachedByEveryThread(fill))
      chunkedFill(fill, tile, threads, swizzle);
  for (auto &[copy, offsets] : copies)
    if (reachedByEveryThread(copy))
      chunkedCopy(copy, tile, offsets, threads, swizzle);
  // After the copies, on the same chunks of each thread: no other thread writes them between.
  if (gather && reachedByEveryThread(gather)) {
    auto ifTwice = cast<scf::IfOp>(gather->getParentOp());
    OpBuilder b(ifTwice);
    perThreadRegion(b, ifTwice.getLoc(), {}, [&](OpBuilder &in) {
      emitGatherChunks(in, ifTwice.getLoc(), gather, ifTwice.getCondition(), tile, threads,
                       swizzle);
      return SmallVector<Value>{};
    });
    ifTwice.erase();
  }
}

namespace {

/// Whether copies at offsets `at` with extents `len` along `dim` of `tile`, each spanning the
/// tile along the other dimension (`span`), partition it: together as long as the tile, no two
/// overlapping (each in the tile, as its subview), and all with the same row stride.
Value wholePartition(OpBuilder &b, Location loc, int dim, MemRefType tile, ArrayRef<Value> at,
                     ArrayRef<Value> len, ArrayRef<Value> span, ArrayRef<Value> rowStride) {
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y).getResult();
  };
  auto both = [&](Value x, Value y) { return arith::AndIOp::create(b, loc, x, y).getResult(); };
  auto either = [&](Value x, Value y) { return arith::OrIOp::create(b, loc, x, y).getResult(); };
  using P = arith::CmpIPredicate;
  Value total = cst(b, loc, 0);
  Value ok = arith::ConstantIntOp::create(b, loc, 1, 1);
  for (size_t j = 0; j < at.size(); ++j) {
    total = arith::AddIOp::create(b, loc, total, len[j]);
    ok = both(ok, cmp(P::eq, span[j], cst(b, loc, tile.getDimSize(1 - dim))));
    ok = both(ok, cmp(P::eq, rowStride[j], rowStride.front()));
    for (size_t i = 0; i < j; ++i) {
      Value endI = arith::AddIOp::create(b, loc, at[i], len[i]);
      Value endJ = arith::AddIOp::create(b, loc, at[j], len[j]);
      ok = both(ok, either(cmp(P::sle, endI, at[j]), cmp(P::sle, endJ, at[i])));
    }
  }
  return both(ok, cmp(P::eq, total, cst(b, loc, tile.getDimSize(dim))));
}

/// A kernel argument a copy source views as TMA reads it: subviews (unit strides) of a
/// memref.reinterpret_cast of the argument with strides [pitch, 1] (or [1, pitch] under a
/// transpose), the pitch a constant or an integer argument (through index casts).
struct TmaSource {
  BlockArgument pointer;
  BlockArgument pitchArgument; ///< null: `pitch`
  int64_t pitch = 0;
};
std::optional<TmaSource> tmaSource(Value src, TmaLoads &tma) {
  Block *entry = &tma.kernel.getBody().front();
  // The signature's arguments: those before the tensor maps (once there are some) or before
  // the six program arguments.
  unsigned signature = tma.mask ? cast<BlockArgument>(tma.mask).getArgNumber() -
                                      unsigned(tma.arguments.size())
                                : tma.kernel.getNumArguments() - 6;
  auto ofSignature = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == entry && arg.getArgNumber() < signature ? arg
                                                                             : BlockArgument();
  };
  // Through unit-stride subviews, alignment assumptions and at most one transpose of the two
  // dimensions (a B operand read transposed, as attention's K: its N x K tile is a box of K's
  // rows).
  Value v = src;
  bool transposed = false;
  while (true) {
    if (auto view = v.getDefiningOp<memref::SubViewOp>()) {
      if (!llvm::all_of(view.getMixedStrides(),
                        [](OpFoldResult st) { return isConstantIntValue(st, 1); }))
        return std::nullopt;
      v = view.getSource();
      continue;
    }
    if (auto aligned = v.getDefiningOp<memref::AssumeAlignmentOp>()) {
      v = aligned.getMemref(); // a pointer argument's divisibility (`*bf16:16`)
      continue;
    }
    if (auto transpose = v.getDefiningOp<memref::TransposeOp>()) {
      AffineMap perm = transpose.getPermutation();
      if (transposed || perm.getNumDims() != 2 || perm.getDimPosition(0) != 1 ||
          perm.getDimPosition(1) != 0)
        return std::nullopt;
      transposed = true;
      v = transpose.getIn();
      continue;
    }
    break;
  }
  auto reinterpret = v.getDefiningOp<memref::ReinterpretCastOp>();
  if (!reinterpret)
    return std::nullopt;
  SmallVector<OpFoldResult> strides = reinterpret.getMixedStrides();
  if (transposed && strides.size() == 2)
    std::swap(strides[0], strides[1]);
  TmaSource s;
  s.pointer = ofSignature(reinterpret.getSource());
  if (!s.pointer || strides.size() != 2 || !isConstantIntValue(strides[1], 1))
    return std::nullopt;
  if (std::optional<int64_t> c = getConstantIntValue(strides[0])) {
    if (*c <= 0)
      return std::nullopt;
    s.pitch = *c;
    return s;
  }
  Value pitch = cast<Value>(strides[0]);
  while (Operation *def = pitch.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(def))
      return std::nullopt;
    pitch = def->getOperand(0);
  }
  s.pitchArgument = ofSignature(pitch);
  if (!s.pitchArgument || !(s.pitchArgument.getType().isSignlessInteger(32) ||
                            s.pitchArgument.getType().isSignlessInteger(64)))
    return std::nullopt;
  return s;
}

/// The index among `tma`'s tensor maps (the bit of the mask) of the one for `entry`
/// (kTensorMapsAttr's form without its argument), its argument added (with the mask before the
/// first) where there is none yet.
size_t tensorMapIndex(TmaLoads &tma, DictionaryAttr entry, Location loc) {
  for (auto [i, map] : llvm::enumerate(tma.maps))
    if (map == entry)
      return i;
  func::FuncOp k = tma.kernel;
  MLIRContext *ctx = k.getContext();
  if (!tma.mask) {
    unsigned at = k.getNumArguments() - 6;
    (void)k.insertArgument(at, IntegerType::get(ctx, 32), DictionaryAttr::get(ctx), loc);
    tma.mask = k.getArgument(at);
  }
  unsigned at = cast<BlockArgument>(tma.mask).getArgNumber();
  (void)k.insertArgument(at, LLVM::LLVMPointerType::get(ctx), DictionaryAttr::get(ctx), loc);
  tma.maps.push_back(entry);
  tma.arguments.push_back(k.getArgument(at));
  return tma.maps.size() - 1;
}


/// Division by a tile source's pitch p, which does not change in the kernel, as a multiply
/// (Granlund and Montgomery, "Division by invariant integers using multiplication", 1994,
/// figure 4.1, N = 32): with l = ceil(log2 p), m = floor(2^32 (2^l - p) / p) + 1,
/// floor(n / p) = (t + ((n - t) >> min(l, 1))) >> max(l - 1, 0) where t = (m n) >> 32, for
/// 0 <= n < 2^32 and 1 <= p < 2^32. The multiplier and shifts are computed once, at the
/// kernel's entry (f64 or integer division there would share pipes with the tensor cores or
/// take dozens of instructions in every iteration).
struct PitchDivision {
  Value pitch; ///< index, clamped to [1, kMaxPitch]
  Value multiplier, shift1, shift2;
};

/// The largest pitch and element offset PitchDivision divides exactly.
constexpr int64_t kMaxPitch = (int64_t(1) << 31) - 1;
constexpr int64_t kMaxOffset = (int64_t(1) << 32) - 1;

PitchDivision pitchAtEntry(TmaLoads &tma, const TmaSource &source, Location loc) {
  OpBuilder b = OpBuilder::atBlockBegin(&tma.kernel.getBody().front());
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i64, v).getResult(); };
  auto asIndex = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v).getResult();
  };
  Value p;
  if (source.pitchArgument) {
    p = source.pitchArgument;
    if (!p.getType().isInteger(64))
      p = arith::ExtSIOp::create(b, loc, i64, p);
    p = arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, p, c64(kMaxPitch)), c64(1));
  } else {
    p = c64(std::clamp<int64_t>(source.pitch, 1, kMaxPitch));
  }
  Value below = arith::TruncIOp::create(b, loc, b.getI32Type(),
                                        arith::SubIOp::create(b, loc, p, c64(1)));
  Value zeros = LLVM::CountLeadingZerosOp::create(b, loc, below, /*is_zero_poison=*/false);
  Value l = arith::SubIOp::create(b, loc, c64(32), arith::ExtUIOp::create(b, loc, i64, zeros));
  Value excess = arith::SubIOp::create(b, loc, arith::ShLIOp::create(b, loc, c64(1), l), p);
  Value m = arith::AddIOp::create(
      b, loc,
      arith::DivUIOp::create(b, loc, arith::ShLIOp::create(b, loc, excess, c64(32)), p), c64(1));
  Value shift1 = arith::MinUIOp::create(b, loc, l, c64(1));
  Value shift2 = arith::SubIOp::create(b, loc, arith::MaxUIOp::create(b, loc, l, c64(1)), c64(1));
  return {asIndex(p), asIndex(m), asIndex(shift1), asIndex(shift2)};
}

/// The row and column of element offset `start` in rows of `d.pitch` elements: exact for a
/// start in [0, kMaxOffset], some pair of indices otherwise (the caller checks the start).
std::pair<Value, Value> rowAndColumn(OpBuilder &b, Location loc, Value start,
                                     const PitchDivision &d) {
  Value t = arith::ShRUIOp::create(b, loc, arith::MulIOp::create(b, loc, d.multiplier, start),
                                   cst(b, loc, 32));
  Value half = arith::ShRUIOp::create(b, loc, arith::SubIOp::create(b, loc, start, t), d.shift1);
  Value row =
      arith::ShRUIOp::create(b, loc, arith::AddIOp::create(b, loc, t, half), d.shift2);
  Value col =
      arith::SubIOp::create(b, loc, start, arith::MulIOp::create(b, loc, row, d.pitch));
  return {row, col};
}

/// The most slots a TMA tile's mbarriers serve (num_stages up to 8, and one more).
constexpr int64_t kMaxTmaSlots = 9;

/// Makes `region` (the copies of `tile` from `parts`: sources and the tile offsets they go
/// to) load the tile by TMA where one part covers it whole and the runtime made its tensor map,
/// as writeTileAsync says; returns the tile's mbarriers and its slot-count constant.
std::pair<Value, Value>
loadByTma(TmaLoads &tma, const TmaSource &source, Value tile, scf::ExecuteRegionOp region,
          ArrayRef<std::pair<Value, SmallVector<OpFoldResult>>> parts, scf::ForOp loop,
          int64_t threads) {
  MLIRContext *ctx = tile.getContext();
  Location loc = region.getLoc();
  auto type = cast<MemRefType>(tile.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1), bytes = elementBytes(type);
  // A box a 128-byte column block (swizzledPosition's layout), or the whole row where shorter
  // (its swizzle that row's bytes).
  int64_t boxCols = std::min<int64_t>(cols, 128 / bytes), blocks = cols / boxCols;
  int64_t swizzleBytes = boxCols * bytes;
  auto swizzleKind = swizzleBytes == 128  ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
                     : swizzleBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
                                          : nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
  Builder attrs(ctx);
  SmallVector<NamedAttribute> fields{
      attrs.getNamedAttr("pointer", attrs.getI64IntegerAttr(source.pointer.getArgNumber())),
      attrs.getNamedAttr("element_bytes", attrs.getI64IntegerAttr(bytes)),
      attrs.getNamedAttr("box", attrs.getI64ArrayAttr({rows, boxCols})),
      attrs.getNamedAttr("swizzle", attrs.getI64IntegerAttr(swizzleBytes))};
  if (source.pitchArgument)
    fields.push_back(attrs.getNamedAttr(
        "pitch_argument", attrs.getI64IntegerAttr(source.pitchArgument.getArgNumber())));
  else
    fields.push_back(attrs.getNamedAttr("pitch", attrs.getI64IntegerAttr(source.pitch)));
  size_t bit = tensorMapIndex(tma, DictionaryAttr::get(ctx, fields), loc);
  Value map = tma.arguments[bit];

  // The tile's mbarriers, each expecting one arrival a phase, and its slot count, by the tile.
  Operation *alloc = tile.getDefiningOp();
  alloc->setAttr(kTileAlignmentAttr, IntegerAttr::get(IntegerType::get(ctx, 64), 1024));
  OpBuilder b(alloc->getBlock(), std::next(alloc->getIterator()));
  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value group = nvgpu::MBarrierCreateOp::create(
      b, loc, nvgpu::MBarrierGroupType::get(ctx, workgroup, kMaxTmaSlots));
  for (int64_t i = 0; i < kMaxTmaSlots; ++i)
    nvgpu::MBarrierInitOp::create(b, loc, group, cst(b, loc, 1), cst(b, loc, i), Value());
  auto slots = arith::ConstantIndexOp::create(b, loc, 1);
  slots->setAttr(kTmaSlotsAttr, b.getUnitAttr());
  int64_t warps = std::max<int64_t>(threads / 32, 1);
  // Warp specialized: a slot's second mbarrier, one phase a use of the slot, completed when
  // every consumer warp has released it (after the K step whose wgmma group read it).
  Value released;
  if (tma.specialized) {
    released = nvgpu::MBarrierCreateOp::create(
        b, loc, nvgpu::MBarrierGroupType::get(ctx, workgroup, kMaxTmaSlots));
    for (int64_t i = 0; i < kMaxTmaSlots; ++i)
      nvgpu::MBarrierInitOp::create(b, loc, released, cst(b, loc, warps), cst(b, loc, i),
                                    Value());
  }

  // Whether TMA loads this iteration's tile, and from where: a part covering it whole, at a
  // column that leaves the box inside the pitch.
  Block &body = region.getRegion().front();
  Operation *firstOld = &body.front();
  OpBuilder at = OpBuilder::atBlockBegin(&body);
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(at, loc, p, x, y).getResult();
  };
  auto both = [&](Value x, Value y) { return arith::AndIOp::create(at, loc, x, y).getResult(); };
  using P = arith::CmpIPredicate;
  PitchDivision division = pitchAtEntry(tma, source, loc);
  Value pitch = division.pitch;
  Value made = cmp(P::ne,
                   arith::AndIOp::create(
                       at, loc, tma.mask,
                       arith::ConstantIntOp::create(at, loc, at.getI32Type(), int64_t(1) << bit)),
                   arith::ConstantIntOp::create(at, loc, at.getI32Type(), 0));
  Value any = arith::ConstantIntOp::create(at, loc, 0, 1);
  Value row = cst(at, loc, 0), col = row;
  for (auto &[src, offsets] : parts) {
    auto meta = memref::ExtractStridedMetadataOp::create(at, loc, src);
    Value stride = meta.getStrides()[0], start = meta.getOffset();
    auto [r, c] = rowAndColumn(at, loc, start, division);
    Value ok = both(cmp(P::eq, meta.getSizes()[0], cst(at, loc, rows)),
                    cmp(P::eq, meta.getSizes()[1], cst(at, loc, cols)));
    for (OpFoldResult o : offsets)
      ok = both(ok, cmp(P::eq, getValueOrCreateConstantIndexOp(at, loc, o), cst(at, loc, 0)));
    ok = both(ok, cmp(P::eq, stride, pitch));
    ok = both(ok, cmp(P::sge, start, cst(at, loc, 0)));
    ok = both(ok, cmp(P::sle, start, cst(at, loc, kMaxOffset)));
    ok = both(ok, cmp(P::sle, arith::AddIOp::create(at, loc, c, cst(at, loc, cols)), pitch));
    ok = both(ok, cmp(P::slt, arith::AddIOp::create(at, loc, r, cst(at, loc, rows)),
                      cst(at, loc, (int64_t(1) << 31) - 1)));
    row = arith::SelectOp::create(at, loc, ok, r, row);
    col = arith::SelectOp::create(at, loc, ok, c, col);
    any = arith::OrIOp::create(at, loc, any, ok);
  }
  Value useTma = both(made, any);
  Value iteration = iterationOf(at, loc, loop);
  Value slot = arith::RemUIOp::create(at, loc, iteration, slots);
  Value tid = gpu::ThreadIdOp::create(at, loc, gpu::Dimension::x);
  Value first = cmp(P::eq, tid, cst(at, loc, 0));
  // What only the producer warp's first lane runs (thread `threads`), in a region the
  // consumers' copy of the kernel drops.
  Value producer = tma.specialized ? cmp(P::eq, tid, cst(at, loc, threads)) : Value();
  auto onProducer = [&](OpBuilder &b, llvm::function_ref<void(OpBuilder &)> body) {
    auto region = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
    region->setAttr(kWarpProducerAttr, b.getI64IntegerAttr(int64_t(bit)));
    region.setNoInline(true);
    OpBuilder in = OpBuilder::atBlockBegin(&region.getRegion().emplaceBlock());
    when(in, loc, producer, body);
    scf::YieldOp::create(in, loc);
  };
  if (tma.specialized) {
    // Before it overwrites the slot, the producer waits until every consumer warp has released
    // the slot's previous use (tessel-cuda-pipeline-tile-loads has each warp arrive on the
    // slot's second mbarrier once the wgmma group reading it is done): phase u - 1 for use u,
    // which a fresh mbarrier counts as complete for u = 0.
    Value use = arith::DivUIOp::create(at, loc, iteration, slots);
    Value parity = cmp(P::eq, arith::RemUIOp::create(at, loc, use, cst(at, loc, 2)),
                       cst(at, loc, 0));
    onProducer(at, [&](OpBuilder &in) {
      nvgpu::MBarrierTryWaitParityOp::create(in, loc, released, parity,
                                             cst(in, loc, 10000000), slot);
    });
  }
  auto ifTma = scf::IfOp::create(at, loc, useTma, /*withElseRegion=*/true);
  {
    // The boxes (a 128-byte column block each, into its place in the slot), each issued by
    // lane 0 of the next warp in turn over the kernel's boxes, so that no warp issues them
    // all and the rest wait for it at the next barrier; the first box's issuer arrives with
    // the bytes to expect before it. (The others' bytes may complete before that: the phase
    // waits for the arrival, the byte count may go below zero meanwhile.)
    OpBuilder then = ifTma.getThenBodyBuilder();
    auto boxType = MemRefType::get({rows, boxCols}, type.getElementType(),
                                   MemRefLayoutAttrInterface(), workgroup);
    auto descriptor = nvgpu::TensorMapDescriptorType::get(
        ctx, boxType, swizzleKind, nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
        nvgpu::TensorMapOOBKind::OOB_ZERO, nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    Value desc =
        UnrealizedConversionCastOp::create(then, loc, TypeRange{descriptor}, ValueRange{map})
            .getResult(0);
    auto issue = [&](OpBuilder &in, int64_t blk) {
      if (blk == 0)
        nvgpu::MBarrierArriveExpectTxOp::create(
            in, loc, group, cst(in, loc, rows * cols * bytes), slot, Value());
      auto meta = memref::ExtractStridedMetadataOp::create(in, loc, tile);
      Value offset =
          arith::AddIOp::create(in, loc, meta.getOffset(), cst(in, loc, blk * rows * boxCols));
      auto viewType = MemRefType::get(
          {rows, boxCols}, type.getElementType(),
          StridedLayoutAttr::get(ctx, ShapedType::kDynamic, {boxCols, 1}));
      Value view = memref::ReinterpretCastOp::create(
          in, loc, viewType, meta.getBaseBuffer(), OpFoldResult(offset),
          ArrayRef<OpFoldResult>{in.getIndexAttr(rows), in.getIndexAttr(boxCols)},
          ArrayRef<OpFoldResult>{in.getIndexAttr(boxCols), in.getIndexAttr(1)});
      Value dst = memref::MemorySpaceCastOp::create(
          in, loc,
          MemRefType::get({rows, boxCols}, type.getElementType(), viewType.getLayout(),
                          workgroup),
          view);
      Value x = arith::AddIOp::create(in, loc, col, cst(in, loc, blk * boxCols));
      nvgpu::TmaAsyncLoadOp::create(in, loc, dst, group, desc, ValueRange{x, row}, slot,
                                    Value(), Value());
    };
    if (tma.specialized) {
      onProducer(then, [&](OpBuilder &in) {
        for (int64_t blk = 0; blk < blocks; ++blk)
          issue(in, blk);
      });
    } else {
      for (int64_t blk = 0; blk < blocks; ++blk) {
        int64_t issuer = 32 * (tma.boxes++ % warps);
        Value mine = arith::CmpIOp::create(then, loc, P::eq, tid, cst(then, loc, issuer));
        when(then, loc, mine, [&](OpBuilder &in) { issue(in, blk); });
      }
    }
  }
  {
    // Otherwise the copies, and thread 0's arrival without bytes (the wait for the copies
    // and the barrier before the readers order their data).
    Block *other = ifTma.elseBlock();
    SmallVector<Operation *> old;
    for (Operation *op = firstOld; op != body.getTerminator(); op = op->getNextNode())
      old.push_back(op);
    for (Operation *op : old)
      op->moveBefore(other->getTerminator());
    OpBuilder in(other->getTerminator());
    auto arrive = [&](OpBuilder &put) { nvgpu::MBarrierArriveOp::create(put, loc, group, slot); };
    // Warp specialized, the producer arrives: the consumers' next wait on the slot then
    // follows the producer's wait for its release, as with TMA (else the consumers could
    // complete the release's phases faster than the producer waits for them).
    if (tma.specialized)
      onProducer(in, arrive);
    else
      when(in, loc, first, arrive);
    // TMA is the fast path (tessel-cuda-pipeline-tile-loads runs the iterations where every
    // tile takes it in a loop without the copies), not the copies' own.
    other->walk([](scf::IfOp inner) { inner->removeAttr(kCopyFastPathAttr); });
  }
  ifTma->setAttr(kCopyFastPathAttr, UnitAttr::get(ctx));
  return {group, slots};
}

} // namespace

bool writeTileAsync(Value tile, int64_t threads, llvm::function_ref<bool(Operation *)> isReader,
                    TmaLoads *tma) {
  auto type = dyn_cast<MemRefType>(tile.getType());
  if (!chunkable(type, threads))
    return false;
  // Zero fills of the tile or of parts of it (a masked load's `other`): the async copies fill
  // what they do not read with zeros.
  SmallVector<linalg::FillOp> fills;
  auto asZeroFill = [&](Operation *user, Value view) {
    auto f = dyn_cast<linalg::FillOp>(user);
    if (!f || !f.hasPureBufferSemantics() || f.getOutputs()[0] != view ||
        !(matchPattern(f.getInputs()[0], m_AnyZeroFloat()) ||
          matchPattern(f.getInputs()[0], m_Zero())))
      return false;
    fills.push_back(f);
    return true;
  };
  struct Copy {
    linalg::CopyOp op;
    SmallVector<OpFoldResult> offsets;
  };
  SmallVector<Copy> copies;
  SmallVector<Operation *> readers;
  auto asCopy = [&](Operation *user) {
    auto copy = dyn_cast<linalg::CopyOp>(user);
    SmallVector<OpFoldResult> offsets;
    if (!copy || !copy.hasPureBufferSemantics() ||
        !viewOfTile(copy.getOutputs()[0], tile, offsets) || !contiguousRows(copy.getInputs()[0]))
      return false;
    copies.push_back({copy, offsets});
    return true;
  };
  // A wrap-around tile's gather where it wraps more than once (structured-to-memref).
  linalg::GenericOp gather;
  for (Operation *user : tile.getUsers()) {
    if (isa<memref::SubViewOp>(user)) {
      auto view = cast<memref::SubViewOp>(user);
      if (!llvm::all_of(view.getMixedStrides(),
                        [](OpFoldResult st) { return isConstantIntValue(st, 1); }))
        return false;
      for (Operation *viewUser : user->getResult(0).getUsers())
        if (!asCopy(viewUser) && !asZeroFill(viewUser, user->getResult(0)))
          return false;
      continue;
    }
    if (asZeroFill(user, tile) || asCopy(user))
      continue;
    if (linalg::GenericOp g = wrapGatherOf(user, tile); g && !gather) {
      gather = g;
      continue;
    }
    if (!isReader(user))
      return false;
    readers.push_back(user);
  }
  if (copies.empty())
    return false;
  // Writers in one block, the body of a loop the tile lives outside of; the fill first, the
  // readers after the last writer, in the same loop.
  Block *block = copies.front().op->getBlock();
  auto loop = dyn_cast<scf::ForOp>(block->getParentOp());
  if (!loop || !loop.isDefinedOutsideOfLoop(tile) || !reachedByEveryThread(copies.front().op))
    return false;
  Operation *last = copies.front().op.getOperation();
  for (linalg::FillOp f : fills)
    if (f->getBlock() != block)
      return false;
  for (Copy &c : copies) {
    if (c.op->getBlock() != block ||
        llvm::any_of(fills, [&](linalg::FillOp f) { return c.op->isBeforeInBlock(f); }))
      return false;
    if (last->isBeforeInBlock(c.op))
      last = c.op;
  }
  // The gather after the copies, in their block: the region takes its place.
  scf::IfOp gatherIf = gather ? cast<scf::IfOp>(gather->getParentOp()) : scf::IfOp();
  if (gatherIf) {
    if (gatherIf->getBlock() != block || gatherIf->isBeforeInBlock(last))
      return false;
    last = gatherIf;
  }
  for (Operation *reader : readers) {
    Operation *at = block->findAncestorOpInBlock(*reader);
    if (!at || at->isBeforeInBlock(last))
      return false;
  }

  Location loc = last->getLoc();
  // Only these regions write the tile and only the matmuls read it: its chunks may be stored
  // swizzled, which the matmul's ldmatrix reads follow (kSwizzledAttr on the buffer).
  bool swizzle = swizzles(type);
  // TMA: every copy reads one argument at one pitch; the tile, swizzled, allocated in the
  // kernel's entry block (its mbarriers are made there, once).
  std::optional<TmaSource> source;
  if (tma && swizzle && type.getDimSize(0) <= 256 &&
      tile.getDefiningOp()->getBlock() == &tma->kernel.getBody().front()) {
    for (Copy &c : copies) {
      std::optional<TmaSource> s = tmaSource(c.op.getInputs()[0], *tma);
      if (!s || (source && (s->pointer != source->pointer ||
                            s->pitchArgument != source->pitchArgument || s->pitch != source->pitch))) {
        source.reset();
        break;
      }
      source = s;
    }
  }
  if (swizzle)
    tile.getDefiningOp()->setAttr(kSwizzledAttr, UnitAttr::get(tile.getContext()));
  OpBuilder b(last);
  auto region = perThreadRegion(b, loc, {}, [&](OpBuilder &in) {
    SmallVector<Value> o0, o1, h, w;
    Value aligned = arith::ConstantIntOp::create(in, loc, 1, 1);
    for (Copy &c : copies) {
      Value src = c.op.getInputs()[0];
      o0.push_back(getValueOrCreateConstantIndexOp(in, loc, c.offsets[0]));
      o1.push_back(getValueOrCreateConstantIndexOp(in, loc, c.offsets[1]));
      h.push_back(memref::DimOp::create(in, loc, src, 0));
      w.push_back(memref::DimOp::create(in, loc, src, 1));
      aligned =
          arith::AndIOp::create(in, loc, aligned, chunksAligned(in, loc, src, type, o1.back()));
    }
    // Where the tile wraps more than once, the synchronous path below (with the gather).
    Value twice = gatherIf ? gatherIf.getCondition() : Value();
    if (twice)
      aligned = arith::AndIOp::create(
          in, loc, aligned,
          arith::XOrIOp::create(in, loc, twice, arith::ConstantIntOp::create(in, loc, 1, 1)));
    auto ifAligned = scf::IfOp::create(in, loc, aligned, /*withElseRegion=*/true);
    ifAligned->setAttr(kCopyFastPathAttr, in.getUnitAttr());
    {
      // Every chunk as one cp.async of 16 bytes: the part its copy reads (the rest of the
      // destination zero-filled), or only zeros outside every copy.
      OpBuilder at = ifAligned.getThenBodyBuilder();
      auto space = gpu::AddressSpaceAttr::get(at.getContext(), gpu::AddressSpace::Workgroup);
      Value shared = memref::MemorySpaceCastOp::create(
          at, loc, MemRefType::get(type.getShape(), type.getElementType(), type.getLayout(), space),
          tile);
      auto vec = VectorType::get({chunkOf(type)}, type.getElementType());
      Value zeros = arith::ConstantOp::create(at, loc, vec, at.getZeroAttr(vec));
      Value falseValue = arith::ConstantIntOp::create(at, loc, 0, 1);
      Value zero = cst(at, loc, 0), chunk = cst(at, loc, chunkOf(type));
      // Where every copy reads the same buffer (the two parts of a tile whose rows or columns
      // wrap around, `% M`), each chunk is one cp.async from that buffer at the element its
      // copy starts at, copying what that copy covers and zero-filling the rest (or all of it
      // where no copy covers the chunk): one address a chunk however many copies there are.
      Value source = baseOf(copies.front().op.getInputs()[0]);
      bool oneSource = source && llvm::all_of(copies, [&](Copy &c) {
        return baseOf(c.op.getInputs()[0]) == source;
      });
      SmallVector<Value> start, rowStride;
      Value flat;
      if (oneSource) {
        Value baseBuffer;
        for (Copy &c : copies) {
          auto meta = memref::ExtractStridedMetadataOp::create(at, loc, c.op.getInputs()[0]);
          start.push_back(meta.getOffset());
          rowStride.push_back(meta.getStrides()[0]);
          if (!baseBuffer)
            baseBuffer = meta.getBaseBuffer();
        }
        // The buffer from its first element (its extent is not known here; only what the
        // copies cover is read).
        constexpr int64_t kExtent = std::numeric_limits<int32_t>::max();
        auto base = cast<MemRefType>(baseBuffer.getType());
        flat = memref::ReinterpretCastOp::create(
            at, loc,
            MemRefType::get({kExtent}, base.getElementType(), MemRefLayoutAttrInterface(),
                            base.getMemorySpace()),
            baseBuffer, at.getIndexAttr(0), ArrayRef<OpFoldResult>{at.getIndexAttr(kExtent)},
            ArrayRef<OpFoldResult>{at.getIndexAttr(1)});
      }
      // Where the copies of one buffer partition the tile along `splitDim` and span it
      // along the other dimension (every iteration of a K loop but the last, whose K
      // columns or rows are masked), each chunk lies in one copy: one unconditional 16-byte
      // cp.async from `owner's start + row * stride + col`, an address whose per-chunk part
      // does not change from one iteration to the next. The general path below otherwise.
      std::optional<int> splitDim;
      if (oneSource) {
        for (int dim : {0, 1})
          if (!splitDim && llvm::all_of(copies, [&](Copy &c) {
                return isConstantIntValue(c.offsets[1 - dim], 0);
              }))
            splitDim = dim;
      }
      if (splitDim) {
        auto ifWhole = scf::IfOp::create(
            at, loc,
            wholePartition(at, loc, *splitDim, type, *splitDim == 0 ? o0 : o1,
                           *splitDim == 0 ? h : w, *splitDim == 0 ? w : h, rowStride),
            /*withElseRegion=*/true);
        ifWhole->setAttr(kCopyFastPathAttr, at.getUnitAttr());
        OpBuilder whole = ifWhole.getThenBodyBuilder();
        SmallVector<Value> owner;
        for (size_t j = 0; j < copies.size(); ++j)
          owner.push_back(arith::SubIOp::create(
              whole, loc, start[j],
              arith::AddIOp::create(whole, loc,
                                    arith::MulIOp::create(whole, loc, o0[j], rowStride[j]),
                                    o1[j])));
        for (const Chunk &c : chunksOfThread(whole, loc, type, threads, swizzle)) {
          Value pos = *splitDim == 0 ? c.row : c.col;
          Value from = owner.front();
          for (size_t j = 1; j < copies.size(); ++j) {
            Value o = *splitDim == 0 ? o0[j] : o1[j], n = *splitDim == 0 ? h[j] : w[j];
            Value in = arith::AndIOp::create(
                whole, loc,
                arith::CmpIOp::create(whole, loc, arith::CmpIPredicate::sge, pos, o),
                arith::CmpIOp::create(whole, loc, arith::CmpIPredicate::slt, pos,
                                      arith::AddIOp::create(whole, loc, o, n)));
            from = arith::SelectOp::create(whole, loc, in, owner[j], from);
          }
          Value element = arith::AddIOp::create(
              whole, loc, from,
              arith::AddIOp::create(
                  whole, loc, arith::MulIOp::create(whole, loc, c.row, rowStride.front()),
                  c.col));
          asyncChunk(whole, loc, c.exists, shared, c, flat, ValueRange{element}, Value());
        }
        at.setInsertionPoint(ifWhole.elseBlock()->getTerminator());
      }
      for (const Chunk &c : chunksOfThread(at, loc, type, threads, swizzle)) {
        // A later copy wins where copies overlap (as the copies in order would leave it).
        Value taken = falseValue;
        Value element = start.empty() ? Value() : start.front(), count = zero;
        for (int64_t j = int64_t(copies.size()) - 1; j >= 0; --j) {
          Value i = arith::SubIOp::create(at, loc, c.row, o0[j]);
          Value jj = arith::SubIOp::create(at, loc, c.col, o1[j]);
          auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
            return arith::CmpIOp::create(at, loc, p, x, y).getResult();
          };
          Value own = c.exists;
          for (Value cond : {cmp(arith::CmpIPredicate::sge, i, zero),
                             cmp(arith::CmpIPredicate::slt, i, h[j]),
                             cmp(arith::CmpIPredicate::sge, jj, zero),
                             cmp(arith::CmpIPredicate::slt, jj, w[j])})
            own = arith::AndIOp::create(at, loc, own, cond);
          Value mine = arith::AndIOp::create(
              at, loc, own,
              arith::XOrIOp::create(at, loc, taken, arith::ConstantIntOp::create(at, loc, 1, 1)));
          taken = arith::OrIOp::create(at, loc, taken, own);
          Value valid = arith::MinSIOp::create(
              at, loc, arith::SubIOp::create(at, loc, w[j], jj), chunk);
          if (oneSource) {
            Value first = arith::AddIOp::create(
                at, loc, start[j],
                arith::AddIOp::create(at, loc, arith::MulIOp::create(at, loc, i, rowStride[j]),
                                      jj));
            element = arith::SelectOp::create(at, loc, mine, first, element);
            count = arith::SelectOp::create(at, loc, mine, valid, count);
            continue;
          }
          Value src = copies[j].op.getInputs()[0];
          asyncChunk(at, loc, mine, shared, c, src, ValueRange{i, jj}, valid);
        }
        if (oneSource) {
          Value issue = fills.empty() ? taken : c.exists;
          asyncChunk(at, loc, issue, shared, c, flat, ValueRange{element}, count);
          continue;
        }
        if (!fills.empty()) {
          Value none = arith::AndIOp::create(
              at, loc, c.exists,
              arith::XOrIOp::create(at, loc, taken, arith::ConstantIntOp::create(at, loc, 1, 1)));
          when(at, loc, none, [&](OpBuilder &put) {
            vector::StoreOp::create(put, loc, zeros, tile, ValueRange{c.dstRow, c.dst},
                                    /*nontemporal=*/false, put.getI64IntegerAttr(16));
          });
        }
      }
    }
    {
      // Unaligned (a source or row stride not 16-byte aligned; in the loop with the matmul's
      // accumulators): the fill and the copies as synchronous chunks, in order, one chunk's
      // registers at a time.
      OpBuilder other = ifAligned.getElseBodyBuilder();
      if (!fills.empty())
        emitFillChunks(other, loc, tile, fills.front().getInputs()[0], threads, swizzle);
      for (Copy &c : copies)
        emitCopyChunks(other, loc, c.op.getInputs()[0], tile, c.offsets, threads, swizzle,
                       /*batched=*/false);
      if (twice)
        emitGatherChunks(other, loc, gather, twice, tile, threads, swizzle);
    }
    return SmallVector<Value>{};
  });
  region->setAttr(kAsyncCopyAttr, b.getUnitAttr());
  Value tmaGroup, tmaSlots;
  if (source) {
    SmallVector<std::pair<Value, SmallVector<OpFoldResult>>> parts;
    for (Copy &c : copies)
      parts.push_back({c.op.getInputs()[0], c.offsets});
    std::tie(tmaGroup, tmaSlots) = loadByTma(*tma, *source, tile, region, parts, loop, threads);
  }
  // The group the copies join, then (before the first reader) the wait for it:
  // tessel-cuda-pipeline-tile-loads may pipeline the loop and wait for an older group.
  OpBuilder afterRegion(region->getBlock(), std::next(region->getIterator()));
  auto commit = perThreadRegion(afterRegion, loc, {}, [&](OpBuilder &in) {
    NVVM::CpAsyncCommitGroupOp::create(in, loc);
    return SmallVector<Value>{};
  });
  commit->setAttr(kAsyncCommitAttr, b.getUnitAttr());
  Operation *firstReader = nullptr;
  for (Operation *reader : readers) {
    Operation *at = block->findAncestorOpInBlock(*reader);
    if (!firstReader || at->isBeforeInBlock(firstReader))
      firstReader = at;
  }
  Operation *prev = firstReader ? firstReader->getPrevNode() : nullptr;
  while (prev && prev->hasAttr(kTmaWaitAttr))
    prev = prev->getPrevNode();
  if (firstReader && !(prev && prev->hasAttr(kAsyncWaitAttr))) {
    OpBuilder beforeReader(firstReader);
    waitForAsyncCopies(beforeReader, loc, 0);
  }
  if (firstReader && tmaGroup) {
    // The TMA loads of the reader's iteration have landed (a phase of its slot's mbarrier).
    OpBuilder beforeReader(firstReader);
    auto wait = perThreadRegion(beforeReader, loc, {}, [&](OpBuilder &in) {
      // Its slot's mbarrier completes one phase an iteration that uses the slot.
      Value iteration = iterationOf(in, loc, loop);
      Value slot = arith::RemUIOp::create(in, loc, iteration, tmaSlots);
      Value phase = arith::RemUIOp::create(
          in, loc, arith::DivUIOp::create(in, loc, iteration, tmaSlots), cst(in, loc, 2));
      Value parity =
          arith::CmpIOp::create(in, loc, arith::CmpIPredicate::ne, phase, cst(in, loc, 0));
      nvgpu::MBarrierTryWaitParityOp::create(in, loc, tmaGroup, parity, cst(in, loc, 10000000),
                                             slot);
      return SmallVector<Value>{};
    });
    wait->setAttr(kTmaWaitAttr, b.getUnitAttr());
  }
  auto eraseWithView = [](Operation *op, Value target) {
    Operation *view = target.getDefiningOp<memref::SubViewOp>();
    op->erase();
    if (view && view->use_empty())
      view->erase();
  };
  for (linalg::FillOp f : fills)
    eraseWithView(f, f.getOutputs()[0]);
  for (Copy &c : copies)
    eraseWithView(c.op, c.op.getOutputs()[0]);
  if (gatherIf)
    gatherIf.erase();
  return true;
}

scf::ExecuteRegionOp waitForAsyncCopies(OpBuilder &b, Location loc, int32_t pendingGroups) {
  auto wait = perThreadRegion(b, loc, {}, [&](OpBuilder &in) {
    NVVM::CpAsyncWaitGroupOp::create(in, loc, pendingGroups);
    return SmallVector<Value>{};
  });
  wait->setAttr(kAsyncWaitAttr, b.getUnitAttr());
  return wait;
}

} // namespace tessel::cuda
