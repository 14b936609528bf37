//===- MatrixDots.cpp - tile matmuls on matrix instructions, for any GPU -*- C++ -*-===//
//
// See MatrixDots.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/MatrixDots.h"
#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/TileCopies.h"
#include "compiler/conversion/triton_arith_to_linalg/TritonArithToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessel::cuda;

SmallVector<Type> DotPlan::accumulatorTypes() const {
  return SmallVector<Type>(piecesM() * piecesN(),
                           VectorType::get({shape.accElements}, Float32Type::get(c.getContext())));
}

void DotEmitter::forEachPiece(
    llvm::function_ref<void(int64_t, ArrayRef<std::pair<Value, Value>>)> visit) {
  int64_t at = 0;
  for (int64_t i = 0; i < p_.piecesM(); ++i)
    for (int64_t j = 0; j < p_.piecesN(); ++j)
      visit(at++, pieceElements(i, j));
}

SmallVector<Value> DotEmitter::loadAccumulators() {
  SmallVector<Type> types = p_.accumulatorTypes();
  SmallVector<Value> accs;
  auto pair = VectorType::get({2}, b_.getF32Type());
  forEachPiece([&](int64_t at, ArrayRef<std::pair<Value, Value>> elements) {
    SmallVector<Value> values;
    for (size_t e = 0; e < elements.size(); e += columnPairs() ? 2 : 1) {
      auto [r, c] = elements[e];
      if (!columnPairs()) {
        values.push_back(memref::LoadOp::create(b_, loc_, p_.c, ValueRange{r, c}));
        continue;
      }
      Value two = vector::LoadOp::create(b_, loc_, pair, p_.c, ValueRange{r, c},
                                         /*nontemporal=*/false, llvm::MaybeAlign(8));
      for (int64_t k : {0, 1})
        values.push_back(vector::ExtractOp::create(b_, loc_, two, k));
    }
    accs.push_back(vector::FromElementsOp::create(b_, loc_, cast<VectorType>(types[at]), values));
  });
  return accs;
}

SmallVector<std::pair<Value, Value>> DotEmitter::m16n8Elements(Value r, Value c) {
  auto add = [&](Value x, int64_t y) {
    return arith::AddIOp::create(b_, loc_, x, arith::ConstantIndexOp::create(b_, loc_, y))
        .getResult();
  };
  Value r8 = add(r, 8), c1 = add(c, 1);
  return {{r, c}, {r, c1}, {r8, c}, {r8, c1}};
}

Value DotEmitter::inSharedMemory(Value buffer) {
  auto memref = cast<MemRefType>(buffer.getType());
  auto space = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
  return memref::MemorySpaceCastOp::create(
      b_, loc_,
      MemRefType::get(memref.getShape(), memref.getElementType(), memref.getLayout(), space),
      buffer);
}

SmallVector<Value> DotEmitter::mapAccumulators(
    ValueRange accs, llvm::function_ref<Value(Value, Value, Value, int64_t)> f) {
  SmallVector<Value> out;
  forEachPiece([&](int64_t at, ArrayRef<std::pair<Value, Value>> elements) {
    SmallVector<Value> values;
    for (auto [e, rc] : llvm::enumerate(elements)) {
      int64_t slot = p_.shape.quadRows ? at / p_.piecesN() * 2 + int64_t(e) / 2 : -1;
      values.push_back(f(vector::ExtractOp::create(b_, loc_, accs[at], int64_t(e)), rc.first,
                         rc.second, slot));
    }
    auto type = VectorType::get(cast<VectorType>(accs[at].getType()).getShape(),
                                values.front().getType());
    out.push_back(vector::FromElementsOp::create(b_, loc_, type, values));
  });
  return out;
}

SmallVector<Value> DotEmitter::handedFragment(int64_t i, int64_t k) {
  SmallVector<Value> pairs;
  for (int64_t j : {2 * k / 16, 2 * k / 16 + 1})
    for (int64_t e : {0, 2}) {
      Value piece = p_.aRegisters[i * p_.aPiecesN + j];
      pairs.push_back(vector::FromElementsOp::create(
          b_, loc_, VectorType::get({2}, p_.input),
          ValueRange{vector::ExtractOp::create(b_, loc_, piece, e),
                     vector::ExtractOp::create(b_, loc_, piece, e + 1)}));
    }
  return pairs;
}

SmallVector<Value> DotEmitter::rowSlots() {
  assert(p_.shape.quadRows && "rows held by quads of lanes");
  SmallVector<Value> rows;
  for (int64_t i = 0; i < p_.piecesM(); ++i) {
    // m16n8Elements' order: elements 0, 1 in the lane's first row, 2, 3 eight rows on.
    SmallVector<std::pair<Value, Value>> elements = pieceElements(i, 0);
    rows.push_back(elements[0].first);
    rows.push_back(elements[2].first);
  }
  return rows;
}

SmallVector<Value> DotEmitter::reduceRows(ValueRange accs,
                                          llvm::function_ref<Value(Value, Value)> combine) {
  assert(p_.shape.quadRows && "rows held by quads of lanes");
  SmallVector<Value> totals;
  for (int64_t i = 0; i < p_.piecesM(); ++i)
    for (int64_t half : {0, 1}) {
      Value total;
      for (int64_t j = 0; j < p_.piecesN(); ++j)
        for (int64_t e : {2 * half, 2 * half + 1}) {
          Value v = vector::ExtractOp::create(b_, loc_, accs[i * p_.piecesN() + j], e);
          total = total ? combine(total, v) : v;
        }
      for (int32_t offset : {1, 2})
        total = combine(total, gpu::ShuffleOp::create(b_, loc_, total, offset, 32,
                                                      gpu::ShuffleMode::XOR)
                                   .getShuffleResult());
      totals.push_back(total);
    }
  return totals;
}

void DotEmitter::storeRows(ValueRange values, Value buffer) {
  SmallVector<Value> rows = rowSlots();
  Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
  Value first = arith::CmpIOp::create(
      b_, loc_, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(b_, loc_, tid, arith::ConstantIndexOp::create(b_, loc_, 4)),
      arith::ConstantIndexOp::create(b_, loc_, 0));
  auto lead = scf::IfOp::create(b_, loc_, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPointToStart(lead.thenBlock());
  for (auto [value, row] : llvm::zip_equal(values, rows))
    memref::StoreOp::create(b_, loc_, value, buffer, row);
}

void DotEmitter::storeAccumulators(ValueRange accs) { storeTile(accs, p_.c); }

void DotEmitter::storeTile(ValueRange accs, Value tile) {
  Type element = cast<MemRefType>(tile.getType()).getElementType();
  auto pair = VectorType::get({2}, element);
  llvm::MaybeAlign pairAlignment(2 * element.getIntOrFloatBitWidth() / 8);
  forEachPiece([&](int64_t at, ArrayRef<std::pair<Value, Value>> elements) {
    auto value = [&](size_t k) {
      return vector::ExtractOp::create(b_, loc_, accs[at], int64_t(k)).getResult();
    };
    if (!columnPairs()) {
      for (auto [e, rc] : llvm::enumerate(elements))
        memref::StoreOp::create(b_, loc_, value(e), tile, ValueRange{rc.first, rc.second});
      return;
    }
    // m16n8Elements' order: (r, c), (r, c + 1), (r + 8, c), (r + 8, c + 1); two columns from
    // an even one, in rows of an even number of elements.
    for (size_t e = 0; e + 1 < elements.size(); e += 2)
      vector::StoreOp::create(b_, loc_,
                              vector::FromElementsOp::create(b_, loc_, pair,
                                                             ValueRange{value(e), value(e + 1)}),
                              tile, ValueRange{elements[e].first, elements[e].second},
                              /*nontemporal=*/false, pairAlignment);
  });
}

namespace {

/// The warp grid for an M x N accumulator: warp tiles of whole pieces with the fewest fragment
/// loads per k step (as square as possible; B's loads cover bColumnsPerLoad columns).
std::optional<std::pair<int64_t, int64_t>> warpGrid(int64_t m, int64_t n, int64_t warps,
                                                    const DotShape &shape) {
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t bestCost = 0;
  for (int64_t wm = 1; wm <= warps; wm *= 2) {
    int64_t wn = warps / wm;
    if (wm * wn != warps || m % (shape.pieceM * wm) || n % (shape.pieceN * wn))
      continue;
    int64_t tm = m / wm, tn = n / wn;
    int64_t cost = tm / shape.pieceM + llvm::divideCeil(tn, shape.bColumnsPerLoad);
    if (!best || cost < bestCost) {
      best = {wm, wn};
      bestCost = cost;
    }
  }
  return best;
}

/// A tile buffer the kernel allocates (tessel-cuda-map-programs places it in shared memory):
/// static shape, no layout, no memory space yet.
bool isTileBuffer(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 2 && type.hasStaticShape() &&
         type.getLayout().isIdentity() && !type.getMemorySpace() &&
         v.getDefiningOp<memref::AllocOp>();
}

/// Whether `op` (or an op inside it, but `skip`) reads or writes `buffer` (through views).
bool touches(Operation *op, Value buffer, Operation *skip = nullptr) {
  return op
      ->walk([&](Operation *inner) {
        if (inner == skip)
          return WalkResult::skip();
        for (Value operand : inner->getOperands())
          if (isa<MemRefType>(operand.getType()) && viewedBuffer(operand) == buffer)
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// The accumulators of `p` all `value` (f32), at `b`.
SmallVector<Value> constantAccumulators(OpBuilder &b, Location loc, const DotPlan &p,
                                        FloatAttr value) {
  SmallVector<Value> accs;
  for (Type t : p.accumulatorTypes()) {
    auto vector = cast<VectorType>(t);
    accs.push_back(arith::ConstantOp::create(
        b, loc, vector, DenseElementsAttr::get(vector, ArrayRef<Attribute>{value})));
  }
  return accs;
}

/// Erases constantInitBefore's op (and the constant global it copied, where nothing else uses
/// it): the accumulators start from its constant and cover all of C.
void eraseInit(Operation *fill) {
  Operation *source = fill->getNumOperands() ? fill->getOperand(0).getDefiningOp() : nullptr;
  fill->erase();
  if (isa_and_nonnull<memref::GetGlobalOp>(source) && source->use_empty())
    source->erase();
}

/// Whether anything in `loop` but `op` reads or writes `buffer` (through views).
bool othersTouch(scf::ForOp loop, Operation *op, Value buffer) {
  return llvm::any_of(loop.getBody()->without_terminator(),
                      [&](Operation &inner) { return touches(&inner, buffer, op); });
}

/// The op that sets all of C to one constant, where it is the last op before `at` (a loop or
/// the matmul itself, in its block) touching C: a linalg.fill of a constant, or a linalg.copy
/// of a constant global with one value (what bufferization makes of a splat constant tensor).
/// The accumulators can start from that constant, and the op goes.
Operation *constantInitBefore(Operation *at, Value c, FloatAttr &value) {
  for (Operation *op = at->getPrevNode(); op; op = op->getPrevNode()) {
    if (!touches(op, c))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      if (fill.hasPureBufferSemantics() && fill.getOutputs()[0] == c &&
          matchPattern(fill.getInputs()[0], m_Constant(&value)))
        return op;
    if (auto copy = dyn_cast<linalg::CopyOp>(op))
      if (copy.hasPureBufferSemantics() && copy.getOutputs()[0] == c)
        if (auto get = copy.getInputs()[0].getDefiningOp<memref::GetGlobalOp>()) {
          auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
              get, get.getNameAttr());
          auto init = global ? dyn_cast_or_null<DenseElementsAttr>(global.getConstantInitValue())
                             : nullptr;
          if (init && init.isSplat() && isa<FloatType>(init.getElementType())) {
            value = init.getSplatValue<FloatAttr>();
            return op;
          }
        }
    return nullptr;
  }
  return nullptr;
}

} // namespace

std::optional<DotPlan> tessel::cuda::planDot(linalg::MatmulOp op, int64_t warps,
                                             DotShapeFor shapeFor, int64_t warpM,
                                             bool &refused) {
  if (!op.hasPureBufferSemantics() || op.getInputs().size() != 2 || op.getOutputs().size() != 1)
    return std::nullopt;
  // The default indexing maps only (no transposed or broadcast variants).
  if (op.hasUserDefinedMaps())
    return std::nullopt;
  if (!reachedByEveryThread(op))
    return std::nullopt;
  DotPlan p;
  p.op = op;
  p.warps = warps;
  p.a = op.getInputs()[0];
  p.b = op.getInputs()[1];
  p.c = op.getOutputs()[0];
  if (!isTileBuffer(p.a) || !isTileBuffer(p.b) || !isTileBuffer(p.c))
    return std::nullopt;
  auto at = cast<MemRefType>(p.a.getType()), bt = cast<MemRefType>(p.b.getType()),
       ct = cast<MemRefType>(p.c.getType());
  p.input = at.getElementType();
  bool tf32 = p.input.isF32() && op->hasAttr(kTf32Attr);
  if (!(p.input.isF16() || p.input.isBF16() || tf32) || bt.getElementType() != p.input ||
      !ct.getElementType().isF32())
    return std::nullopt;
  std::optional<DotShape> shape = shapeFor(p.input);
  if (!shape)
    return std::nullopt;
  p.shape = *shape;
  p.m = at.getDimSize(0);
  p.k = at.getDimSize(1);
  p.n = bt.getDimSize(1);
  if (bt.getDimSize(0) != p.k || ct.getDimSize(0) != p.m || ct.getDimSize(1) != p.n ||
      p.k % shape->pieceK)
    return std::nullopt;
  // The knob's grid: warpM rows of warps over C, each warp's part whole pieces.
  std::optional<std::pair<int64_t, int64_t>> grid;
  if (warpM) {
    if (warps % warpM) {
      op.emitError() << "warp_m=" << warpM << " does not divide the block's " << warps
                     << " warps";
      refused = true;
      return std::nullopt;
    }
    int64_t warpN = warps / warpM;
    if (p.m % (shape->pieceM * warpM) || p.n % (shape->pieceN * warpN)) {
      op.emitError() << "warp_m=" << warpM << " does not split this " << p.m << " x " << p.n
                     << " matmul over " << warps << " warps: each warp's part must be whole "
                     << shape->pieceM << " x " << shape->pieceN << " pieces (" << warpM
                     << " rows of " << warpN << " warps)";
      refused = true;
      return std::nullopt;
    }
    grid = {warpM, warpN};
  }
  // Else all warps where C has pieces for them, else the most that have (the others repeat
  // their work: the same values stored twice).
  for (int64_t w = warps; w >= 1 && !grid; w /= 2)
    grid = warpGrid(p.m, p.n, w, *shape);
  if (!grid)
    return std::nullopt;
  p.warpM = warpM;
  p.activeWarps = grid->first * grid->second;
  std::tie(p.warpsM, p.warpsN) = *grid;
  p.tileM = p.m / p.warpsM;
  p.tileN = p.n / p.warpsN;
  return p;
}

bool tessel::cuda::transposeLoadsOfB(DotPlan &p) {
  auto type = cast<MemRefType>(p.b.getType());
  SmallVector<Operation *> writers;
  auto columnContiguous = [](Value v) {
    auto t = dyn_cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    return t && t.getRank() == 2 && succeeded(t.getStridesAndOffset(strides, offset)) &&
           strides[0] == 1 && strides[1] != 1;
  };
  auto isZero = [](Value v) { return matchPattern(v, m_AnyZeroFloat()); };
  auto writer = [&](Operation *op, Value target) {
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      return fill.hasPureBufferSemantics() && fill.getOutputs()[0] == target &&
             isZero(fill.getInputs()[0]);
    auto copy = dyn_cast<linalg::CopyOp>(op);
    return copy && copy.hasPureBufferSemantics() && copy.getOutputs()[0] == target &&
           columnContiguous(copy.getInputs()[0]);
  };
  bool anyCopy = false;
  for (Operation *user : p.b.getUsers()) {
    if (user == p.op.getOperation())
      continue;
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (view && llvm::all_of(view.getMixedStrides(),
                             [](OpFoldResult st) { return isConstantIntValue(st, 1); })) {
      for (Operation *viewUser : view->getUsers()) {
        if (!writer(viewUser, view))
          return false;
        anyCopy |= isa<linalg::CopyOp>(viewUser);
        writers.push_back(viewUser);
      }
      continue;
    }
    if (!writer(user, p.b))
      return false;
    anyCopy |= isa<linalg::CopyOp>(user);
    writers.push_back(user);
  }
  if (!anyCopy)
    return false;
  OpBuilder at(p.b.getDefiningOp());
  Location loc = p.b.getLoc();
  Value bn = memref::AllocOp::create(
      at, loc, MemRefType::get({type.getDimSize(1), type.getDimSize(0)}, type.getElementType()));
  for (Operation *w : writers) {
    OpBuilder b(w);
    Value target = isa<linalg::FillOp>(w) ? cast<linalg::FillOp>(w).getOutputs()[0]
                                          : cast<linalg::CopyOp>(w).getOutputs()[0];
    Value dst = bn;
    if (auto view = target.getDefiningOp<memref::SubViewOp>()) {
      SmallVector<OpFoldResult> offsets = view.getMixedOffsets(), sizes = view.getMixedSizes();
      dst = memref::SubViewOp::create(b, loc, bn, {offsets[1], offsets[0]}, {sizes[1], sizes[0]},
                                      {b.getIndexAttr(1), b.getIndexAttr(1)});
    }
    if (auto fill = dyn_cast<linalg::FillOp>(w)) {
      linalg::FillOp::create(b, loc, fill.getInputs()[0], dst);
    } else {
      auto swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, b.getContext());
      Value src = memref::TransposeOp::create(b, loc, cast<linalg::CopyOp>(w).getInputs()[0],
                                              AffineMapAttr::get(swap));
      linalg::CopyOp::create(b, loc, src, dst);
    }
    w->erase();
    if (auto view = target.getDefiningOp<memref::SubViewOp>(); view && view->use_empty())
      view->erase();
  }
  p.op->replaceUsesOfWith(p.b, bn);
  Operation *old = p.b.getDefiningOp();
  p.b = bn;
  p.bTransposed = true;
  if (old->use_empty())
    old->erase();
  return true;
}

namespace {

/// A tile (a memref.alloc, M x N) as the first N columns of an M x (N + 8) buffer: a store of
/// two columns by a warp writes 8 rows of 4 threads each, and with the rows 8 elements longer
/// those rows start 4 (16-bit elements) or 8 (f32) banks apart (rows a multiple of 128 bytes
/// long put them all in the same banks). Returns the view the tile's users now read.
Value padRows(Value tile) {
  auto alloc = tile.getDefiningOp<memref::AllocOp>();
  MemRefType type = alloc.getType();
  SmallVector<int64_t> shape(type.getShape()), wider(type.getShape());
  wider.back() += 8;
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  auto padded = memref::AllocOp::create(b, loc, MemRefType::get(wider, type.getElementType()),
                                        alloc.getAlignmentAttr());
  padded->setDiscardableAttrs(alloc->getDiscardableAttrDictionary());
  SmallVector<int64_t> zeros(shape.size(), 0), ones(shape.size(), 1);
  Value view = memref::SubViewOp::create(b, loc, padded, zeros, shape, ones);
  // The users read the view; subviews of the tile become subviews of it (their layouts
  // follow its row stride), and so on down.
  std::function<void(Value, Value)> reroute = [&](Value from, Value to) {
    for (OpOperand &use : llvm::make_early_inc_range(from.getUses())) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user)) {
        use.set(padded);
      } else if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
        OpBuilder at(sub);
        auto again = memref::SubViewOp::create(at, sub.getLoc(), to, sub.getMixedOffsets(),
                                               sub.getMixedSizes(), sub.getMixedStrides());
        reroute(sub.getResult(), again.getResult());
        sub.erase();
      } else {
        use.set(to);
      }
    }
  };
  reroute(alloc.getResult(), view);
  alloc.erase();
  return view;
}

/// C carried by a loop in buffers, rescaled elementwise before each matmul (attention's
/// `acc = acc * alpha[:, None]; acc = tl.dot(p, v, acc)`): the loop's iter_arg `index` holds
/// the previous C, which only `scale` reads; `scale` writes all of C (the matmul's, a buffer of
/// the loop body) from it and operands it reads at its elements' rows or columns; the matmul is
/// the next to touch C, which the loop then yields at `index` and nothing else touches after.
struct Rescaled {
  unsigned index;
  linalg::GenericOp scale;
};

/// Whether `g` computes each element of `c` (its one output, all of it) from `self`'s element
/// at the same place and other buffers' (not views of C) elements at its row, its column or
/// constants: all loops parallel, a body of pure ops. The registers holding C's elements can
/// run it.
bool elementwiseOnC(linalg::GenericOp g, Value c, Value self) {
  if (!g.hasPureBufferSemantics() || g.getNumDpsInits() != 1 || g.getDpsInits()[0] != c ||
      g.getNumParallelLoops() != g.getNumLoops() || g.getNumLoops() != 2 ||
      !g.getIndexingMapsArray().back().isIdentity())
    return false;
  for (OpOperand *input : g.getDpsInputOperands()) {
    AffineMap map = g.getMatchingIndexingMap(input);
    if (input->get() == self ? !map.isIdentity()
                             : !llvm::all_of(map.getResults(), [](AffineExpr e) {
                                 return isa<AffineDimExpr, AffineConstantExpr>(e);
                               }))
      return false;
    if (input->get() != self && (!isa<MemRefType>(input->get().getType()) ||
                                 viewedBuffer(input->get()) == viewedBuffer(c)))
      return false;
  }
  return llvm::all_of(g.getRegion().front().without_terminator(),
                      [](Operation &op) { return isPure(&op) && !op.getNumRegions(); });
}

/// The one op reading C (`c`, but deallocations) in `block` (after its matmul's loop, where
/// the callers look), where it is elementwise on C (elementwiseOnC) into a fresh tile of C's
/// shape (a memref.alloc, row-major, 16- or 32-bit floats, which it is the first to touch and
/// no matmul reads): the conversion of a K loop's C to 16 bits, attention's
/// `(acc / l_i[:, None]).to(bf16)`. The registers holding C can run it and store its tile,
/// where C's f32 bytes would go through memory and a pass over them.
linalg::GenericOp elementwiseReader(Value c, Block *block) {
  linalg::GenericOp reader;
  for (Operation *user : c.getUsers()) {
    if (isa<memref::DeallocOp>(user))
      continue;
    auto g = dyn_cast<linalg::GenericOp>(user);
    if (!g || reader || g->getBlock() != block || g.getNumDpsInits() != 1)
      return nullptr;
    reader = g;
  }
  if (!reader)
    return nullptr;
  Value tile = reader.getDpsInits()[0];
  auto type = cast<MemRefType>(tile.getType());
  if (!tile.getDefiningOp<memref::AllocOp>() || !type.getLayout().isIdentity() ||
      type.getShape() != cast<MemRefType>(c.getType()).getShape() ||
      !isa<FloatType>(type.getElementType()) ||
      (type.getElementTypeBitWidth() != 16 && type.getElementTypeBitWidth() != 32) ||
      tile == c || !elementwiseOnC(reader, tile, c) ||
      !reader.getRegionOutputArgs()[0].use_empty())
    return nullptr;
  // Not where a later matmul reads the tile (its plan holds the tile, which padRows replaces).
  for (Operation *user : tile.getUsers()) {
    Operation *at = block->findAncestorOpInBlock(*user);
    if (user != reader && (!at || at->isBeforeInBlock(reader) || isa<linalg::MatmulOp>(user)))
      return nullptr;
  }
  return reader;
}

/// Where `p`'s C is so: the accumulators can stay in registers across the loop, each rescaled
/// in place by `scale`'s body.
std::optional<Rescaled> rescaledAccumulator(scf::ForOp loop, DotPlan p) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  std::optional<unsigned> index;
  for (OpOperand &operand : yield->getOpOperands())
    if (operand.get() == p.c) {
      if (index)
        return std::nullopt;
      index = operand.getOperandNumber();
    }
  if (!index || p.c.getParentBlock() != loop.getBody())
    return std::nullopt;
  BlockArgument previous = loop.getRegionIterArg(*index);
  if (!previous.hasOneUse())
    return std::nullopt;
  auto scale = dyn_cast<linalg::GenericOp>(*previous.getUsers().begin());
  if (!scale || scale->getBlock() != loop.getBody() || !scale->isBeforeInBlock(p.op) ||
      !elementwiseOnC(scale, p.c, previous) || !scale.getRegionOutputArgs()[0].use_empty())
    return std::nullopt;
  // Nothing touches C between the scale and the matmul, nor after the matmul but the yield;
  // nothing touches the scale's other operands between it and the matmul (the registers read
  // them there).
  for (Operation *op = scale->getNextNode(); op != p.op.getOperation(); op = op->getNextNode()) {
    if (touches(op, p.c))
      return std::nullopt;
    for (OpOperand *input : scale.getDpsInputOperands())
      if (input->get() != previous && touches(op, viewedBuffer(input->get())))
        return std::nullopt;
  }
  for (Operation *op = p.op->getNextNode(); op != yield.getOperation(); op = op->getNextNode())
    if (touches(op, p.c))
      return std::nullopt;
  return Rescaled{*index, scale};
}

/// Whether `loop` (around `p`'s matmul, or null) carries the accumulators in registers as they
/// are: C allocated outside it and touched there only by the matmul (a K loop). (C is a
/// memref.alloc itself: planDot's isTileBuffer.)
bool carriedByLoop(scf::ForOp loop, const DotPlan &p) {
  return loop && loop.isDefinedOutsideOfLoop(p.c) && !othersTouch(loop, p.op, p.c);
}

/// How `p`'s C is carried by `loop` (around its matmul, or null) where not as it is
/// (carriedByLoop): through the loop's buffers, rescaled before each matmul.
std::optional<Rescaled> rescaledIn(scf::ForOp loop, const DotPlan &p) {
  if (!loop || carriedByLoop(loop, p))
    return std::nullopt;
  return rescaledAccumulator(loop, p);
}

/// `g`'s body (all loops parallel, pure ops) for the element at `indices` (one a loop), at
/// `b`: an operand `inRegisters` gives a value for reads it, scalars are themselves, the other
/// buffers are loaded at the element's indices through their maps (dimensions and constants).
Value elementwiseBody(OpBuilder &b, Location loc, linalg::GenericOp g, ArrayRef<Value> indices,
                      llvm::function_ref<Value(OpOperand *)> inRegisters) {
  Block &body = g.getRegion().front();
  IRMapping map;
  for (OpOperand &operand : g->getOpOperands()) {
    BlockArgument arg = g.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    if (Value v = inRegisters(&operand)) {
      map.map(arg, v);
      continue;
    }
    if (!isa<MemRefType>(operand.get().getType())) {
      map.map(arg, operand.get());
      continue;
    }
    SmallVector<Value> at;
    for (AffineExpr e : g.getMatchingIndexingMap(&operand).getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        at.push_back(indices[dim.getPosition()]);
      else
        at.push_back(arith::ConstantIndexOp::create(b, loc, cast<AffineConstantExpr>(e).getValue()));
    }
    map.map(arg, memref::LoadOp::create(b, loc, operand.get(), at));
  }
  for (Operation &op : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      map.map(index.getResult(), indices[index.getDim()]);
      continue;
    }
    b.clone(op, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}

Value readAtRow(linalg::GenericOp g, OpOperand *operand);

/// `g`'s body (elementwiseOnC) for C's element (r, c) whose value in `self` (and in C) is
/// `acc`, at `b`: an input read at the element's row (readAtRow) whose row vector `rows` holds
/// in registers is its value at the element's row slot `slot`; the others are loaded at the
/// element's indices.
Value elementwiseOnAccumulator(OpBuilder &b, Location loc, linalg::GenericOp g, Value self,
                               Value acc, Value r, Value c, int64_t slot = -1,
                               llvm::function_ref<ArrayRef<Value>(Value)> rows = nullptr) {
  return elementwiseBody(b, loc, g, {r, c}, [&](OpOperand *operand) -> Value {
    if (g.isDpsInit(operand) || operand->get() == self)
      return acc;
    Value row = rows && slot >= 0 ? readAtRow(g, operand) : nullptr;
    ArrayRef<Value> held = row ? rows(row) : ArrayRef<Value>();
    return held.empty() ? nullptr : held[slot];
  });
}

/// A per-thread region at `b` returning `types`: `body` run with an emitter of `plan`, located
/// at the region's start.
scf::ExecuteRegionOp withEmitter(
    OpBuilder &b, Location loc, TypeRange types, const DotPlan &plan, DotEmitterFactory make,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, DotEmitter &)> body) {
  return perThreadRegion(b, loc, types, [&](OpBuilder &in) {
    std::unique_ptr<DotEmitter> e = make(in, loc, plan);
    e->locate();
    return body(in, *e);
  });
}

/// Erases `tile` (a memref.alloc) where nothing but deallocations uses it.
void eraseUnused(Value tile) {
  auto alloc = tile ? tile.getDefiningOp<memref::AllocOp>() : nullptr;
  if (!alloc ||
      !llvm::all_of(alloc->getUsers(), [](Operation *u) { return isa<memref::DeallocOp>(u); }))
    return;
  for (Operation *u : llvm::make_early_inc_range(alloc->getUsers()))
    u->erase();
  alloc->erase();
}

/// `reader` (elementwiseReader of `p.c`) run where it was on `accs`, C's accumulators under
/// `p`: its tile (rows padded, padRows) stored from the registers, the op gone, and C with it
/// where nothing else uses it.
void runReader(linalg::GenericOp reader, const DotPlan &p, ValueRange accs,
               DotEmitterFactory make) {
  Value tile = padRows(reader.getDpsInits()[0]);
  Location loc = reader.getLoc();
  OpBuilder at(reader);
  withEmitter(at, loc, {}, p, make, [&](OpBuilder &in, DotEmitter &e) {
    e.storeTile(e.mapAccumulators(accs,
                                  [&](Value acc, Value r, Value c, int64_t) {
                                    return elementwiseOnAccumulator(in, loc, reader, p.c, acc,
                                                                    r, c);
                                  }),
                tile);
    return SmallVector<Value>{};
  });
  reader->erase();
  eraseUnused(p.c);
}

/// The first row of piece `i` (16 rows) of warp `warp`'s part of C under `p` (the emitters'
/// locate()).
int64_t pieceRow(const DotPlan &p, int64_t warp, int64_t i) {
  if (p.warpgroups)
    return (warp / 4 / p.warpsN) * 64 * p.piecesM() + 16 * (warp % 4) + 64 * i;
  return (warp % p.activeWarps / p.warpsN) * p.tileM + 16 * i;
}

/// Whether `consumer` (16-bit operands) can take its A from the registers of a tile in
/// `producer`'s accumulator layout: the producer's warps each span all of its columns (its K),
/// and each warp's pieces lie at the rows of the consumer's. Where `warpgroups` re-plans it on
/// wgmma (A as registers) with the rows so, the consumer is regridded to that; else, where a
/// column of warps makes them so (and the knob leaves the grid to the plan), to one column of
/// mma.sync's warps.
bool takesAFrom(DotPlan &consumer, const DotPlan &producer,
                llvm::function_ref<void(DotPlan &, bool)> warpgroups) {
  if (!consumer.shape.quadRows || consumer.input.isF32() || producer.warpsN != 1 ||
      producer.activeWarps != producer.warps || consumer.m != producer.m ||
      consumer.k != producer.n)
    return false;
  auto sameRows = [&](const DotPlan &q) {
    if (q.piecesM() != producer.piecesM())
      return false;
    for (int64_t w = 0; w < q.warps; ++w)
      for (int64_t i = 0; i < q.piecesM(); ++i)
        if (pieceRow(q, w, i) != pieceRow(producer, w, i))
          return false;
    return true;
  };
  // Already regridded by an earlier question.
  if (consumer.warpgroups)
    return consumer.aInRegisters && sameRows(consumer);
  if (warpgroups) {
    DotPlan w = consumer;
    warpgroups(w, /*aInRegisters=*/true);
    if (w.warpgroups && sameRows(w)) {
      consumer = w;
      return true;
    }
  }
  // One column of warps, unless the knob chose the grid.
  DotPlan q = consumer;
  if (q.warpsN != 1) {
    if (q.warpM || q.m % (16 * q.warps))
      return false;
    q.warpsM = q.activeWarps = q.warps;
    q.warpsN = 1;
    q.tileM = q.m / q.warps;
    q.tileN = q.n;
  }
  if (!sameRows(q))
    return false;
  consumer = q;
  return true;
}

/// Attention's scores after Q.K^T: the ops after a matmul whose C it stores at each step that
/// read C, or what is computed from it, element for element or row by row can run on the
/// accumulators in the registers (the row maximum and sum, the exponentials, the conversion to
/// 16 bits, the running maximum and sum), where each row of C lies in one quad of one warp's
/// lanes. Two kinds of values stay in registers: tiles of C's shape in the accumulators'
/// layout, and row vectors (1-D buffers of C's rows: one value a row slot, DotEmitter::rowSlots).
/// A step is one op: a row reduction of a tile (linalg.reduce over its columns: a row vector,
/// combined with the constant a fill just set its init to, else with what the init holds), an
/// elementwise op on a tile (elementwiseOnC; row vectors read at the element's row) writing all
/// of a tile of C's shape, or an elementwise op on row vectors writing a row vector. A value is
/// stored (`store`) where something else reads it from memory; a 16-bit tile goes to a later
/// matmul as its A in registers where that matmul can take it (`matmuls`).
struct RegisterStep {
  enum Kind { Reduce, Tile, Rows } kind;
  Operation *op;
  Value to;                 ///< what the step makes (a tile or a 1-D buffer)
  bool live = true;         ///< `to` stays in registers (else it is only stored)
  bool store = false;
  Operation *fill = nullptr; ///< Reduce: the constant fill of its init it folds in
  SmallVector<Value> fromRegisters; ///< the values it reads from the registers
  SmallVector<Operation *> matmuls;
  /// (matmul, reader): a later matmul's rescale that reads the row vector `to` from registers.
  SmallVector<std::pair<Operation *, Operation *>> rescales;
};
struct RegisterChain {
  bool storeC = false;
  SmallVector<RegisterStep> steps;
  /// Row vectors the loop carries in registers: its iter_arg `index` (a 1-D buffer of C's
  /// rows that only steps read) and the row vector a step makes that the loop yields there.
  SmallVector<std::pair<unsigned, Value>> carried;
  /// The iter_args offered as carried that cannot be.
  llvm::SmallDenseSet<unsigned> refused;
};

/// The tile `r` reduces row by row (its one input, 2-D, over dimension 1, into a 1-D init) with
/// one associative, commutative arith op; null otherwise.
Value rowReduced(linalg::ReduceOp r) {
  if (!r.hasPureBufferSemantics() || r.getInputs().size() != 1 || r.getInits().size() != 1 ||
      r.getDimensions() != ArrayRef<int64_t>{1})
    return nullptr;
  auto in = dyn_cast<MemRefType>(r.getInputs()[0].getType());
  auto out = dyn_cast<MemRefType>(r.getInits()[0].getType());
  Block &body = r.getCombiner().front();
  if (!in || !out || in.getRank() != 2 || out.getRank() != 1 ||
      body.getOperations().size() != 2 || !allReduceKind(&body.front()) ||
      body.getTerminator()->getOperand(0) != body.front().getResult(0))
    return nullptr;
  return r.getInputs()[0];
}

/// Whether `op` writes all of `tile` without reading it (a fill, a copy, an elementwise op
/// that does not read its output): whatever the registers held of it is dead.
bool overwrites(Operation *op, Value tile) {
  auto l = dyn_cast<linalg::LinalgOp>(op);
  if (!l || !l.hasPureBufferSemantics() || l.getNumDpsInits() != 1 ||
      l.getDpsInits()[0] != tile ||
      llvm::any_of(l.getDpsInputs(), [&](Value in) {
        return isa<MemRefType>(in.getType()) && viewedBuffer(in) == tile;
      }))
    return false;
  if (isa<linalg::FillOp, linalg::CopyOp>(op))
    return true;
  auto g = dyn_cast<linalg::GenericOp>(op);
  return g && g.getNumParallelLoops() == g.getNumLoops() &&
         g.getIndexingMapsArray().back().isIdentity() && g.getRegionOutputArgs()[0].use_empty();
}

/// A 1-D buffer the kernel allocates with one element a row of C (`rows`): a row vector can
/// stand for it.
bool isRowBuffer(Value v, int64_t rows) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 1 && type.getShape() == ArrayRef<int64_t>{rows} &&
         type.getLayout().isIdentity() && !type.getMemorySpace() &&
         v.getDefiningOp<memref::AllocOp>();
}

/// The 1-D buffer `operand` of a 2-D elementwise op reads at the element's row (map (d0) on
/// the buffer, or (d0, 0) on a memref.expand_shape of it to rows x 1), or null.
Value readAtRow(linalg::GenericOp g, OpOperand *operand) {
  Value v = operand->get();
  AffineMap map = g.getMatchingIndexingMap(operand);
  if (map.getNumResults() == 0 || map.getResult(0) != getAffineDimExpr(0, g.getContext()))
    return nullptr;
  if (auto expand = v.getDefiningOp<memref::ExpandShapeOp>()) {
    auto type = expand.getResultType();
    if (type.getRank() != 2 || type.getDimSize(1) != 1 || map.getNumResults() != 2 ||
        map.getResult(1) != getAffineConstantExpr(0, g.getContext()))
      return nullptr;
    return expand.getSrc();
  }
  return map.getNumResults() == 1 ? v : nullptr;
}

/// Whether `g` computes a row vector elementwise from row vectors and 1-D buffers of C's rows:
/// one loop, every map the identity, a body of pure ops.
bool rowwise(linalg::GenericOp g, int64_t rows) {
  if (!g.hasPureBufferSemantics() || g.getNumLoops() != 1 || g.getNumParallelLoops() != 1 ||
      g.getNumDpsInits() != 1 ||
      !llvm::all_of(g.getIndexingMapsArray(), [](AffineMap m) { return m.isIdentity(); }))
    return false;
  for (Value operand : g->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (type && type.getShape() != ArrayRef<int64_t>{rows})
      return false;
  }
  return llvm::all_of(g.getRegion().front().without_terminator(),
                      [](Operation &op) { return isPure(&op) && !op.getNumRegions(); });
}

/// Whether every use of `value`'s buffer (through views) but `ignore`'s that could read what
/// `producer` makes is in `producer`'s block after it: a buffer allocated in that block holds
/// nothing from an earlier iteration, so its uses before the producer do not count (a block
/// argument does: it holds what the previous iteration left). `atProducer`: whether the
/// producer's own uses count as after it.
bool usedOnlyFrom(Value value, Operation *producer, Operation *ignore, bool atProducer = true) {
  Block *block = producer->getBlock();
  bool fresh = value.getDefiningOp<memref::AllocOp>() && value.getParentBlock() == block;
  std::function<bool(Value)> ok = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      if (user == ignore || isa<memref::DeallocOp>(user))
        return true;
      if (isa<ViewLikeOpInterface>(user))
        return llvm::all_of(user->getResults(), ok);
      Operation *at = block->findAncestorOpInBlock(*user);
      return at && (fresh || (atProducer && at == producer) || producer->isBeforeInBlock(at));
    });
  };
  return ok(value);
}

/// The constant fill of `init` right before `op` (the last op before it in its block that
/// touches init's buffer), or null.
Operation *constantFillBefore(Operation *op, Value init) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (!touches(prev, viewedBuffer(init)))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(prev);
    return fill && fill.hasPureBufferSemantics() && fill.getOutputs()[0] == init &&
                   matchPattern(fill.getInputs()[0], m_Constant()) &&
                   fill.getInputs()[0].getType() ==
                       cast<MemRefType>(init.getType()).getElementType()
               ? prev
               : nullptr;
  }
  return nullptr;
}

/// The steps after `last` (the matmul, or the elementwise op run on its accumulators) that
/// can run on `p`'s accumulators and what they make (`fill`, C's init, goes): where each row
/// of C is one quad's (quadRows layouts, one warp across C's columns, each warp its own rows).
/// `offered`: iter_args of the loop around (1-D buffers of C's rows) it may carry as row
/// vectors, where only steps read them and the loop yields a row vector a step makes there.
std::optional<RegisterChain> registerChain(const DotPlan &p, Operation *last, Operation *fill,
                                           const RegisterHandOff *handOff,
                                           const llvm::SmallDenseSet<unsigned> &offered) {
  if (!p.shape.quadRows || p.warpsN != 1 || p.activeWarps != p.warps)
    return std::nullopt;
  RegisterChain chain;
  auto loop = dyn_cast<scf::ForOp>(last->getParentOp());
  // The tiles and row vectors the registers hold and the step that made each (-1: the matmul,
  // -2 - k: the loop's iter_arg k).
  llvm::MapVector<Value, int64_t> live;
  live[p.c] = -1;
  for (unsigned k : offered)
    live[loop.getRegionIterArg(k)] = -2 - int64_t(k);
  auto store = [&](Value v) {
    int64_t at = live.lookup(v);
    if (at < -1)
      chain.refused.insert(unsigned(-2 - at));
    else
      (at < 0 ? chain.storeC : chain.steps[at].store) = true;
  };
  auto isLive = [&](Value v) {
    return isa<MemRefType>(v.getType()) && live.count(viewedBuffer(v));
  };
  auto made = [&](RegisterStep step) {
    chain.steps.push_back(step);
    if (!step.live)
      return;
    live[step.to] = chain.steps.size() - 1;
    if (!usedOnlyFrom(step.to, step.op, step.fill))
      store(step.to);
  };
  auto isTile = [](Value v) { return cast<MemRefType>(v.getType()).getRank() == 2; };
  if (!usedOnlyFrom(p.c, p.op, fill))
    store(p.c);
  for (Operation *op = last->getNextNode(); op && !live.empty(); op = op->getNextNode()) {
    // Views access nothing.
    if (isa<ViewLikeOpInterface>(op) && isMemoryEffectFree(op))
      continue;
    if (auto r = dyn_cast<linalg::ReduceOp>(op)) {
      Value from = rowReduced(r), init = r.getInits()[0];
      // (f32 tiles: what the shuffles move.)
      if (from && live.count(from) && isTile(from) && !isLive(init) &&
          cast<MemRefType>(from.getType()).getElementType().isF32() &&
          cast<MemRefType>(init.getType()).getDimSize(0) == p.m) {
        RegisterStep step{RegisterStep::Reduce, op, init};
        step.fromRegisters.push_back(from);
        // An init of the kernel's own a row vector can stand for (from the fill's constant);
        // any other 1-D buffer is combined with and stored into, row by row.
        if (isRowBuffer(init, p.m))
          step.fill = constantFillBefore(op, init);
        else
          step.live = false, step.store = true;
        made(step);
        continue;
      }
    }
    if (auto g = dyn_cast<linalg::GenericOp>(op); g && g.getNumDpsInits() == 1) {
      Value to = g.getDpsInits()[0];
      // On a tile: one tile of the registers read as itself, row vectors at the rows, other
      // buffers from memory; writing all of a tile of C's shape (or the tile itself).
      SmallVector<Value> tiles, rows;
      bool others = true;
      for (OpOperand *in : g.getDpsInputOperands()) {
        if (!isLive(in->get()))
          continue;
        if (live.count(in->get()) && isTile(in->get()))
          tiles.push_back(in->get());
        else if (Value row = readAtRow(g, in); row && live.count(row) && !isTile(row))
          rows.push_back(row);
        else
          others = false;
      }
      Type element = cast<MemRefType>(to.getType()).getElementType();
      bool stores = isa<FloatType>(element) && (element.getIntOrFloatBitWidth() == 16 ||
                                               element.getIntOrFloatBitWidth() == 32);
      if (tiles.size() == 1 && others && stores && g.getNumLoops() == 2 &&
          elementwiseOnC(g, to, tiles[0]) &&
          (to == tiles[0] ||
           (isTileBuffer(to) && g.getRegionOutputArgs()[0].use_empty() && !isLive(to)))) {
        RegisterStep step{RegisterStep::Tile, op, to};
        step.fromRegisters = tiles;
        step.fromRegisters.append(rows);
        made(step);
        continue;
      }
      // On row vectors: at least one of them read, the others 1-D buffers of C's rows; into a
      // row vector (one of them, or a 1-D buffer of the kernel's own).
      bool allExact = true;
      rows.clear();
      for (Value in : g.getDpsInputs())
        if (isLive(in)) {
          rows.push_back(in);
          allExact &= live.count(in) && !isTile(in);
        }
      // (In place only on a value a step made: a carried iter_arg's buffer passes through.)
      bool inPlace = live.count(to) && live.lookup(to) >= 0 && !isTile(to);
      if (!rows.empty() && allExact && rowwise(g, p.m) &&
          (inPlace || (isRowBuffer(to, p.m) && !isLive(to) &&
                       g.getRegionOutputArgs()[0].use_empty()))) {
        RegisterStep step{RegisterStep::Rows, op, to};
        step.fromRegisters = rows;
        if (inPlace)
          step.fromRegisters.push_back(to);
        made(step);
        continue;
      }
    }
    // A later matmul whose A (16 bits) a step made and that can read it from the registers.
    if (auto mm = dyn_cast<linalg::MatmulOp>(op); mm && handOff) {
      Value a = mm.getInputs()[0];
      if (live.count(a) && live.lookup(a) >= 0 &&
          llvm::count_if(op->getOperands(), isLive) == 1 && handOff->takes(op, a, p)) {
        chain.steps[live.lookup(a)].matmuls.push_back(op);
        continue;
      }
    }
    // The loop yields a row vector a step made where its iter_arg was offered: carried.
    llvm::SmallPtrSet<Value, 4> carriedHere;
    if (isa<scf::YieldOp>(op) && loop && op->getParentOp() == loop.getOperation())
      for (unsigned k : offered)
        if (Value v = op->getOperand(k); live.count(v) && live.lookup(v) >= 0 &&
                                          !isTile(v) && llvm::count(op->getOperands(), v) == 1) {
          chain.carried.push_back({k, v});
          carriedHere.insert(v);
        }
    // A later matmul's rescale of its carried C (attention's `acc * alpha[:, None]`) reads the
    // row vectors it reads at its rows from the registers where that matmul can.
    if (auto g = dyn_cast<linalg::GenericOp>(op); g && handOff && handOff->rescaling) {
      Operation *matmul = nullptr;
      for (OpOperand *in : g.getDpsInputOperands()) {
        Value row = readAtRow(g, in);
        if (!row || !live.count(row) || live.lookup(row) < 0 || isTile(row) ||
            viewedBuffer(g.getDpsInits()[0]) == row)
          continue;
        if (!matmul && !(matmul = handOff->rescaling(op, p)))
          break;
        chain.steps[live.lookup(row)].rescales.push_back({matmul, op});
        carriedHere.insert(row);
      }
    }
    // Anything else that touches a value of the registers: dead where it writes all of it,
    // else read from memory (stored where it was made).
    for (Value v : llvm::to_vector(llvm::make_first_range(live))) {
      if (carriedHere.contains(v) || !touches(op, v))
        continue;
      if (!overwrites(op, v))
        store(v);
      live.erase(v);
    }
  }
  for (unsigned k : offered)
    if (!llvm::is_contained(llvm::make_first_range(chain.carried), k))
      chain.refused.insert(k);
  if (chain.steps.empty())
    return std::nullopt;
  return chain;
}

/// The iter_args of the loop around `last` that a chain may carry as row vectors: 1-D buffers
/// of `rows` rows (identity layout) used only after `last` in the body (the chain's walk sees
/// every use).
llvm::SmallDenseSet<unsigned> rowIterArgs(Operation *last, int64_t rows) {
  llvm::SmallDenseSet<unsigned> offered;
  auto loop = dyn_cast<scf::ForOp>(last->getParentOp());
  for (unsigned k = 0; loop && k < loop.getNumRegionIterArgs(); ++k) {
    Value arg = loop.getRegionIterArg(k);
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (type && type.getShape() == ArrayRef<int64_t>{rows} && type.getLayout().isIdentity() &&
        !type.getMemorySpace() && usedOnlyFrom(arg, last, nullptr, /*atProducer=*/false))
      offered.insert(k);
  }
  return offered;
}

/// The loop carries `chain.carried`'s row vectors as values (one a row slot) in iter_args it
/// gains: their start from the buffer it started with (a constant where a fill or a splat
/// copy sets all of it just before the loop, else loaded at the slots' rows). Returns the new
/// loop; `values` holds each carried iter_arg's registers, and the chain reads them.
scf::ForOp carryRowVectors(const DotPlan &p, scf::ForOp loop, RegisterChain &chain,
                           DotEmitterFactory make,
                           llvm::DenseMap<Value, SmallVector<Value>> &values) {
  Location loc = loop.getLoc();
  OpBuilder before(loop);
  int64_t slots = 2 * p.piecesM();
  SmallVector<Value> initial;
  for (auto [k, made] : chain.carried) {
    Value init = loop.getInitArgs()[k];
    auto type = cast<MemRefType>(init.getType());
    FloatAttr constant;
    if (constantInitBefore(loop, init, constant) && constant.getType() == type.getElementType()) {
      Value c = arith::ConstantOp::create(before, loc, constant);
      initial.append(slots, c);
      continue;
    }
    auto region = withEmitter(before, loc, SmallVector<Type>(slots, type.getElementType()), p,
                              make, [&](OpBuilder &in, DotEmitter &e) {
                                SmallVector<Value> out;
                                for (Value row : e.rowSlots())
                                  out.push_back(memref::LoadOp::create(in, loc, init, row));
                                return out;
                              });
    initial.append(region.getResults().begin(), region.getResults().end());
  }
  SmallVector<Value> oldArgs(loop.getRegionIterArgs());
  IRRewriter rewriter(loop.getContext());
  // Yields themselves for now: the steps that make the values are not emitted yet.
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  assert(succeeded(grown) && "scf.for gains iter_args");
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  // The body's old block arguments are the new loop's now (every one the steps name).
  for (auto [k, old] : llvm::enumerate(oldArgs)) {
    Value arg = newLoop.getRegionIterArg(k);
    for (RegisterStep &step : chain.steps) {
      llvm::replace(step.fromRegisters, old, arg);
      if (step.to == old)
        step.to = arg;
    }
    for (auto &[index, made] : chain.carried)
      if (made == old)
        made = arg;
  }
  unsigned first = newLoop.getNumRegionIterArgs() - initial.size();
  for (auto [n, carried] : llvm::enumerate(chain.carried)) {
    auto args = newLoop.getRegionIterArgs().slice(first + n * slots, slots);
    values[newLoop.getRegionIterArg(carried.first)].assign(args.begin(), args.end());
  }
  return newLoop;
}

/// After the steps: the loop yields the carried row vectors' values (the buffers' iter_args
/// pass through, which canonicalization drops), and each buffer the loop returned is a buffer
/// of its own after it, into which the quads' first lanes store the last values.
void finishCarried(const DotPlan &p, scf::ForOp loop, const RegisterChain &chain,
                   llvm::DenseMap<Value, SmallVector<Value>> &values, DotEmitterFactory make) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  int64_t slots = 2 * p.piecesM();
  unsigned first = loop.getNumRegionIterArgs() - chain.carried.size() * slots;
  OpBuilder after(loop->getBlock(), std::next(loop->getIterator()));
  Location loc = loop.getLoc();
  for (auto [n, carried] : llvm::enumerate(chain.carried)) {
    auto [k, made] = carried;
    for (int64_t s = 0; s < slots; ++s)
      yield->setOperand(first + n * slots + s, values[made][s]);
    yield->setOperand(k, loop.getRegionIterArg(k));
    eraseUnused(made);
    Value own = memref::AllocOp::create(after, loc, cast<MemRefType>(loop.getResult(k).getType()));
    loop.getResult(k).replaceAllUsesWith(own);
    ValueRange last = loop.getResults().slice(first + n * slots, slots);
    withEmitter(after, loc, {}, p, make, [&](OpBuilder &, DotEmitter &e) {
      e.storeRows(last, own);
      return SmallVector<Value>{};
    });
  }
}

/// `chain`'s steps on `accs` (C's accumulators), each a per-thread region where its op was.
/// `values` holds C's accumulators and the carried iter_args' registers; each value's
/// registers go in as its step makes them.
void runOnRegisters(const DotPlan &p, const RegisterChain &chain,
                    llvm::DenseMap<Value, SmallVector<Value>> &values, DotEmitterFactory make,
                    const RegisterHandOff *handOff) {
  for (const RegisterStep &step : chain.steps) {
    // What the step reads from the registers (anything else from memory).
    auto held = [&](Value v) -> ArrayRef<Value> {
      if (!llvm::is_contained(step.fromRegisters, v))
        return {};
      return values[v];
    };
    OpBuilder at(step.op);
    Location loc = step.op->getLoc();
    SmallVector<Type> types;
    SmallVector<Value> made;
    if (step.kind == RegisterStep::Reduce) {
      auto r = cast<linalg::ReduceOp>(step.op);
      Operation *combiner = &r.getCombiner().front().front();
      Value from = r.getInputs()[0];
      Value initial = step.fill ? cast<linalg::FillOp>(step.fill).getInputs()[0] : nullptr;
      if (step.live)
        types.assign(2 * p.piecesM(), cast<MemRefType>(step.to.getType()).getElementType());
      auto region = withEmitter(at, loc, types, p, make, [&](OpBuilder &in, DotEmitter &e) {
        auto combine = [&](Value x, Value y) {
          IRMapping map;
          map.map(combiner->getOperand(0), x);
          map.map(combiner->getOperand(1), y);
          return in.clone(*combiner, map)->getResult(0);
        };
        SmallVector<Value> totals = e.reduceRows(held(from), combine), rows = e.rowSlots();
        for (auto [total, row] : llvm::zip_equal(totals, rows))
          total = combine(total, initial ? initial
                                         : memref::LoadOp::create(in, loc, step.to, row));
        // Every lane of a quad reads the init before its first lane stores over it.
        if (!initial && step.store)
          NVVM::SyncWarpOp::create(in, loc, arith::ConstantIntOp::create(in, loc, -1, 32));
        if (step.store)
          e.storeRows(totals, step.to);
        return step.live ? totals : SmallVector<Value>{};
      });
      made.assign(region.getResults().begin(), region.getResults().end());
    } else if (step.kind == RegisterStep::Tile) {
      auto g = cast<linalg::GenericOp>(step.op);
      Value self = step.fromRegisters.front();
      Type element = cast<MemRefType>(step.to.getType()).getElementType();
      for (Value v : held(self))
        types.push_back(VectorType::get(cast<VectorType>(v.getType()).getShape(), element));
      auto region = withEmitter(at, loc, types, p, make, [&](OpBuilder &in, DotEmitter &e) {
        SmallVector<Value> out =
            e.mapAccumulators(held(self), [&](Value acc, Value r, Value c, int64_t slot) {
              return elementwiseOnAccumulator(in, loc, g, self, acc, r, c, slot, held);
            });
        if (step.store)
          e.storeTile(out, step.to);
        return out;
      });
      made.assign(region.getResults().begin(), region.getResults().end());
    } else {
      // A row vector: the body once a slot, live operands from the registers, the others
      // loaded at the slot's row.
      auto g = cast<linalg::GenericOp>(step.op);
      types.assign(2 * p.piecesM(), cast<MemRefType>(step.to.getType()).getElementType());
      auto region = withEmitter(at, loc, types, p, make, [&](OpBuilder &in, DotEmitter &e) {
        SmallVector<Value> rows = e.rowSlots(), out;
        for (auto [slot, row] : llvm::enumerate(rows))
          out.push_back(elementwiseBody(in, loc, g, row, [&](OpOperand *operand) -> Value {
            ArrayRef<Value> v = held(operand->get());
            return v.empty() ? nullptr : v[slot];
          }));
        if (step.store)
          e.storeRows(out, step.to);
        return out;
      });
      made.assign(region.getResults().begin(), region.getResults().end());
    }
    if (step.live)
      values[step.to] = made;
    for (Operation *matmul : step.matmuls)
      handOff->give(matmul, made, p.piecesN());
    for (auto [matmul, reader] : step.rescales)
      handOff->giveRows(matmul, reader, step.to, made);
    step.op->erase();
    if (step.fill)
      step.fill->erase();
  }
  // Tiles nothing reads any more (each once: in-place steps share theirs).
  llvm::SetVector<Value> made;
  for (const RegisterStep &step : chain.steps)
    made.insert(step.to);
  made.insert(p.c);
  for (Value v : made)
    eraseUnused(v);
}

} // namespace

Value tessel::cuda::rewriteDot(const DotPlan &plan, DotEmitterFactory make,
                               const RegisterHandOff *handOff) {
  DotPlan p = plan;
  Location loc = p.op.getLoc();
  auto loop = dyn_cast<scf::ForOp>(p.op->getParentOp());
  bool carried = carriedByLoop(loop, p);
  // Or carried through the loop's buffers and rescaled before each matmul (a warpgroup's
  // group is then waited for at each step, before the next rescale reads the accumulators).
  std::optional<Rescaled> rescaled = rescaledIn(loop, p);
  // Row vectors handed over for a rescale that is not run here after all: stored where it
  // reads them (the rows are this plan's slots).
  if (!p.rowRegisters.empty() && (!rescaled || rescaled->scale != p.rowsReader)) {
    OpBuilder at(p.rowsReader);
    withEmitter(at, loc, {}, p, make, [&](OpBuilder &, DotEmitter &e) {
      for (auto &[buffer, values] : p.rowRegisters)
        e.storeRows(values, buffer);
      return SmallVector<Value>{};
    });
    p.rowRegisters.clear();
  }
  if (!carried && !rescaled) {
    // From C's constant where a fill sets it just before (Q.K^T's scores): no fill, no loads.
    FloatAttr fillValue;
    Operation *fill = constantInitBefore(p.op, p.c, fillValue);
    if (fill && !fillValue.getType().isF32())
      fill = nullptr;
    // An elementwise op on C right after the matmul (attention's scale and mask of the scores)
    // runs on the accumulators before they are stored.
    auto next = dyn_cast_or_null<linalg::GenericOp>(p.op->getNextNode());
    if (next && !elementwiseOnC(next, p.c, p.c))
      next = nullptr;
    // What follows reads the scores row by row or element for element: from the registers.
    // Row vectors the loop carries stay in registers across it where only steps read them.
    Operation *last = next ? next.getOperation() : p.op.getOperation();
    llvm::SmallDenseSet<unsigned> offered = rowIterArgs(last, p.m);
    std::optional<RegisterChain> chain = registerChain(p, last, fill, handOff, offered);
    while (chain && !chain->refused.empty()) {
      for (unsigned k : chain->refused)
        offered.erase(k);
      chain = registerChain(p, last, fill, handOff, offered);
    }
    OpBuilder b(p.op);
    auto region = withEmitter(
        b, loc, chain ? TypeRange(p.accumulatorTypes()) : TypeRange{}, p, make,
        [&](OpBuilder &in, DotEmitter &e) {
          SmallVector<Value> accs = e.multiply(fill ? constantAccumulators(in, loc, p, fillValue)
                                                    : e.loadAccumulators());
          if (next)
            accs = e.mapAccumulators(accs, [&](Value acc, Value r, Value c, int64_t) {
              return elementwiseOnAccumulator(in, loc, next, p.c, acc, r, c);
            });
          if (!chain || chain->storeC)
            e.storeAccumulators(accs);
          return chain ? accs : SmallVector<Value>{};
        });
    p.op->erase();
    if (next)
      next->erase();
    if (fill)
      eraseInit(fill);
    if (chain) {
      llvm::DenseMap<Value, SmallVector<Value>> values;
      values[p.c].assign(region.getResults().begin(), region.getResults().end());
      scf::ForOp grown =
          chain->carried.empty() ? nullptr : carryRowVectors(p, loop, *chain, make, values);
      runOnRegisters(p, *chain, values, make, handOff);
      if (grown)
        finishCarried(p, grown, *chain, values, make);
      return chain->storeC ? p.c : nullptr;
    }
    return p.c;
  }
  OpBuilder before(loop);
  SmallVector<Type> types = p.accumulatorTypes();
  // The accumulators start from C as it is before the loop (rescaled: from the buffer the loop
  // starts with): a constant where a fill sets all of it (the fill then has no reader left: the
  // loop's matmul was its only one, and the accumulators are stored over all of C after the
  // loop), else C's elements.
  DotPlan first = p;
  if (rescaled)
    first.c = loop.getInitArgs()[rescaled->index];
  FloatAttr fillValue;
  Operation *fill = constantInitBefore(loop, first.c, fillValue);
  Operation *init = nullptr;
  SmallVector<Value> initial;
  // Rescaled after a loop that left its accumulators in that buffer under the same layout, with
  // nothing touching it in between (attention's second key loop after the first): from those
  // registers, and the store goes.
  Operation *forwardedStore = nullptr;
  if (fill && fillValue.getType().isF32()) {
    initial = constantAccumulators(before, loc, p, fillValue);
  } else if (auto [held, store] = rescaled && handOff && handOff->storedIn
                                      ? handOff->storedIn(first.c, p)
                                      : std::pair<SmallVector<Value>, Operation *>{};
             store && store->getBlock() == loop->getBlock() && store->isBeforeInBlock(loop) &&
             llvm::none_of(llvm::make_range(std::next(store->getIterator()), loop->getIterator()),
                           [&](Operation &op) { return touches(&op, first.c); })) {
    fill = nullptr;
    initial = held;
    forwardedStore = store;
  } else {
    fill = nullptr;
    auto region = withEmitter(before, loc, types, first, make,
                              [](OpBuilder &, DotEmitter &e) { return e.loadAccumulators(); });
    init = region;
    initial.assign(region.getResults().begin(), region.getResults().end());
  }
  IRRewriter rewriter(loop.getContext());
  Operation *matmul = p.op;
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> accs) {
        b.setInsertionPoint(matmul);
        auto step = withEmitter(b, loc, types, p, make, [&](OpBuilder &in, DotEmitter &e) {
          SmallVector<Value> carried(accs.begin(), accs.end());
          if (rescaled) {
            // A warpgroup's previous step may still be in flight (its wait relaxed by
            // tessel-cuda-pipeline-tile-loads): waited for before the rescale reads it (where
            // another matmul's wait already did, at no cost).
            if (p.warpgroups)
              e.settle();
            Value previous = loop.getRegionIterArg(rescaled->index);
            // Row vectors handed over in registers (rowRegisters).
            auto handed = [&](Value row) -> ArrayRef<Value> {
              for (auto &[buffer, values] : p.rowRegisters)
                if (buffer == row)
                  return values;
              return {};
            };
            carried = e.mapAccumulators(carried, [&](Value acc, Value r, Value c, int64_t slot) {
              return elementwiseOnAccumulator(in, loc, rescaled->scale, previous, acc, r, c,
                                              slot, handed);
            });
          }
          return e.multiply(carried);
        });
        if (p.warpgroups)
          step->setAttr(kWarpgroupStepAttr, b.getI64IntegerAttr(p.warpsM * p.warpsN));
        return SmallVector<Value>(step.getResults());
      });
  if (failed(grown)) {
    // The matmul stays for the scalar lowering.
    if (init)
      init->erase();
    else if (!forwardedStore)
      for (Value v : initial)
        v.getDefiningOp()->erase();
    return nullptr;
  }
  matmul->erase();
  if (rescaled)
    rescaled->scale->erase();
  if (fill && !rescaled)
    eraseInit(fill);
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  OpBuilder after(newLoop->getBlock(), std::next(newLoop->getIterator()));
  ValueRange finals = newLoop.getResults().take_back(types.size());
  ValueRange results = newLoop.getResults();
  Operation *guarded = nullptr;
  if (p.warpgroups) {
    // The loop's last wgmma group is waited for on the way out of the loop only: the loop
    // under a guard that it runs, the wait after it inside the guard. Where the wait follows
    // a merge with the path around the loop (whose accumulators are their initial values),
    // ptxas serializes every wgmma of the kernel (C7515).
    OpBuilder b(newLoop);
    Value runs = arith::CmpIOp::create(
        b, loc, newLoop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
        newLoop.getLowerBound(), newLoop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, newLoop.getResultTypes(), runs,
                                   /*addThenBlock=*/true, /*addElseBlock=*/true);
    newLoop->replaceAllUsesWith(guard.getResults());
    OpBuilder inThen = OpBuilder::atBlockEnd(guard.thenBlock());
    newLoop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
    perThreadRegion(inThen, loc, {}, [&](OpBuilder &in) {
      make(in, loc, p)->settle();
      return SmallVector<Value>{};
    });
    scf::YieldOp::create(inThen, loc, newLoop.getResults());
    OpBuilder inElse = OpBuilder::atBlockEnd(guard.elseBlock());
    scf::YieldOp::create(inElse, loc, newLoop.getInitArgs());
    results = guard.getResults();
    guarded = guard;
    finals = results.take_back(types.size());
    after.setInsertionPointAfter(guard);
  }
  // Rescaled: the loop no longer needs C's buffers (it passes the one it starts with through,
  // which canonicalization drops) and the accumulators go into a buffer of their own after it,
  // which the loop's result was: C is the loop body's own again.
  if (rescaled) {
    auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
    yield->setOperand(rescaled->index, newLoop.getRegionIterArg(rescaled->index));
    // The buffer the loop starts with then has no reader: its constant fill goes.
    if (fill && llvm::all_of(first.c.getUsers(), [&](Operation *user) {
          return user == fill || user == newLoop.getOperation() ||
                 (guarded && guarded->isAncestor(user));
        }))
      eraseInit(fill);
    // Forwarded: the loop passes a buffer nothing reads through (its iter_arg is no longer
    // read), so the stored one has no reader left but the store.
    if (forwardedStore) {
      OpBuilder at(guarded ? guarded : newLoop.getOperation());
      Value unread = memref::AllocOp::create(at, loc, cast<MemRefType>(first.c.getType()));
      newLoop.getInitArgsMutable()[rescaled->index].assign(unread);
      if (guarded)
        cast<scf::IfOp>(guarded).elseYield()->setOperand(rescaled->index, unread);
      if (llvm::all_of(first.c.getUsers(), [&](Operation *user) {
            return forwardedStore->isAncestor(user) || isa<memref::DeallocOp>(user);
          })) {
        forwardedStore->erase();
        eraseUnused(first.c);
      }
    }
    DotPlan last = p;
    last.c = memref::AllocOp::create(after, loc, cast<MemRefType>(p.c.getType()));
    results[rescaled->index].replaceAllUsesWith(last.c);
    // Read by one elementwise op into a tile of their own (attention's division by the row
    // sums and conversion): that op on the registers.
    if (linalg::GenericOp reader = elementwiseReader(last.c, after.getBlock())) {
      runReader(reader, last, finals, make);
      return nullptr;
    }
    auto store = withEmitter(after, loc, {}, last, make, [&](OpBuilder &, DotEmitter &e) {
      e.storeAccumulators(finals);
      return SmallVector<Value>{};
    });
    if (handOff && handOff->stored)
      handOff->stored(last.c, SmallVector<Value>(finals), p, store.getOperation());
    return nullptr;
  }
  // Where C only goes on through one elementwise op into a tile of its own (converted to 16
  // bits), that op runs on the registers and stores its tile, two columns at a time (not C's
  // f32 bytes and a pass over them).
  if (linalg::GenericOp reader = elementwiseReader(p.c, after.getBlock())) {
    runReader(reader, p, finals, make);
    return nullptr;
  }
  withEmitter(after, loc, {}, p, make, [&](OpBuilder &, DotEmitter &e) {
    e.storeAccumulators(finals);
    return SmallVector<Value>{};
  });
  return nullptr;
}

namespace {

/// Whether `tile` (a C the matmuls store a step at a time) can have its rows padded: an alloc
/// of f32 rows a multiple of 128 bytes long (a warp's two-column accesses of 4 rows would hit
/// the same banks), read and written only by linalg ops and loads and stores through views
/// with unit strides (the padded rows follow from the view's layout).
bool paddable(Value tile) {
  auto alloc = tile.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc.getType().getRank() != 2 || !alloc.getType().hasStaticShape() ||
      !alloc.getType().getLayout().isIdentity() || !alloc.getType().getElementType().isF32() ||
      alloc.getType().getDimSize(1) * 4 % 128)
    return false;
  std::function<bool(Value)> indexedOnly = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      if (auto sub = dyn_cast<memref::SubViewOp>(user))
        return llvm::all_of(sub.getMixedStrides(),
                            [](OpFoldResult st) { return isConstantIntValue(st, 1); }) &&
               indexedOnly(sub.getResult());
      return isa<linalg::LinalgOp, memref::LoadOp, memref::StoreOp, vector::LoadOp,
                 vector::StoreOp, memref::DeallocOp>(user);
    });
  };
  return indexedOnly(tile);
}

} // namespace

LogicalResult tessel::cuda::rewriteDots(
    func::FuncOp func, int64_t warps, int64_t warpM, DotShapeFor shapeFor,
    llvm::function_ref<void(Value tile, llvm::function_ref<bool(Operation *)> isDot)> stage,
    DotEmitterFactory make, llvm::function_ref<void(DotPlan &, bool)> regrid) {
  // Kernels only: a device function runs on one thread.
  if (!func.isPublic() || func.isExternal())
    return success();
  SmallVector<DotPlan, 2> plans;
  bool refused = false;
  func.walk([&](linalg::MatmulOp op) {
    if (std::optional<DotPlan> p = planDot(op, warps, shapeFor, warpM, refused))
      plans.push_back(*p);
  });
  if (refused)
    return failure();
  // B loaded transposed (column-contiguous): an N x K tile.
  for (DotPlan &p : plans)
    if (llvm::count_if(plans, [&](DotPlan &q) { return q.b == p.b || q.a == p.b; }) == 1)
      transposeLoadsOfB(p);
  // The operands' tiles staged (each once), then the matmuls.
  llvm::SmallDenseSet<Value, 8> staged;
  llvm::SmallPtrSet<Operation *, 8> matmuls;
  for (DotPlan &p : plans)
    matmuls.insert(p.op);
  auto isDot = [&](Operation *op) { return matmuls.contains(op); };
  for (DotPlan &p : plans)
    for (Value tile : {p.a, p.b})
      if (staged.insert(tile).second)
        stage(tile, isDot);
  SmallVector<DotPlan, 2> planned(plans);
  // A matmul whose A an earlier one's register steps make (attention's P) reads it from the
  // registers where its plan can (on wgmma where `regrid` re-plans it so).
  llvm::DenseMap<Operation *, std::pair<SmallVector<Value>, int64_t>> handed;
  size_t current = 0;
  auto takes = [&](Operation *matmul, Value tile, const DotPlan &producer) {
    for (size_t later = current + 1; later < plans.size(); ++later)
      if (plans[later].op == matmul)
        return plans[later].a == tile && takesAFrom(plans[later], producer, regrid);
    return false;
  };
  auto give = [&](Operation *matmul, ArrayRef<Value> values, int64_t piecesN) {
    handed[matmul] = {SmallVector<Value>(values), piecesN};
  };
  // A later matmul whose carried C `op` rescales (as rewriteDot will find it) reads row vectors
  // from the registers where its rows are the producer's.
  auto rescaling = [&](Operation *op, const DotPlan &producer) -> Operation * {
    for (size_t later = current + 1; later < plans.size(); ++later) {
      DotPlan &q = plans[later];
      std::optional<Rescaled> r = rescaledIn(dyn_cast<scf::ForOp>(q.op->getParentOp()), q);
      if (r && r->scale.getOperation() == op)
        return takesAFrom(q, producer, nullptr) ? q.op.getOperation() : nullptr;
    }
    return nullptr;
  };
  llvm::DenseMap<Operation *, std::pair<Operation *, SmallVector<std::pair<Value, SmallVector<Value>>, 2>>>
      handedRows;
  auto giveRows = [&](Operation *matmul, Operation *reader, Value buffer, ArrayRef<Value> values) {
    handedRows[matmul].first = reader;
    handedRows[matmul].second.push_back({buffer, SmallVector<Value>(values)});
  };
  // Accumulators a rescaled loop stored into a buffer, for a later loop starting from it under
  // the same layout (the same warps' pieces of the same C shape).
  llvm::DenseMap<Value, std::tuple<SmallVector<Value>, DotPlan, Operation *>> storedAccumulators;
  auto sameLayout = [](const DotPlan &x, const DotPlan &y) {
    return x.m == y.m && x.n == y.n && x.warps == y.warps && x.activeWarps == y.activeWarps &&
           x.warpsM == y.warpsM && x.warpsN == y.warpsN && x.tileM == y.tileM &&
           x.tileN == y.tileN && x.warpgroups == y.warpgroups &&
           x.shape.pieceM == y.shape.pieceM && x.shape.pieceN == y.shape.pieceN &&
           x.shape.accElements == y.shape.accElements && x.shape.quadRows == y.shape.quadRows;
  };
  auto stored = [&](Value buffer, ArrayRef<Value> values, const DotPlan &plan, Operation *store) {
    // Not where a later matmul inside the op that made the values (the loop, or its guard) is
    // still to be rewritten: that rewrite may replace the loop and its results.
    Operation *producer = values.empty() ? nullptr : values.front().getDefiningOp();
    if (!producer || llvm::any_of(llvm::drop_begin(plans, current + 1), [&](const DotPlan &q) {
          return producer->isAncestor(q.op);
        }))
      return;
    storedAccumulators[buffer] = {SmallVector<Value>(values), plan, store};
  };
  auto storedIn = [&](Value buffer,
                      const DotPlan &plan) -> std::pair<SmallVector<Value>, Operation *> {
    auto it = storedAccumulators.find(buffer);
    if (it == storedAccumulators.end() || !sameLayout(std::get<1>(it->second), plan))
      return {};
    auto found = std::make_pair(std::get<0>(it->second), std::get<2>(it->second));
    storedAccumulators.erase(it);
    return found;
  };
  RegisterHandOff handOff{takes, give, rescaling, giveRows, stored, storedIn};
  SmallVector<Value> stepped;
  for (; current < plans.size(); ++current) {
    DotPlan &p = plans[current];
    auto registers = handed.find(p.op);
    auto rows = handedRows.find(p.op);
    if (registers != handed.end())
      std::tie(p.aRegisters, p.aPiecesN) = registers->second;
    if (rows != handedRows.end())
      std::tie(p.rowsReader, p.rowRegisters) = rows->second;
    // A plan a hand-off changed (takesAFrom) that got nothing handed over is planned afresh.
    if (registers == handed.end() && rows == handedRows.end()) {
      p = planned[current];
      if (regrid)
        regrid(p, /*aInRegisters=*/false);
    }
    if (Value c = rewriteDot(p, make, &handOff))
      stepped.push_back(c);
    if (!p.aRegisters.empty())
      eraseUnused(p.a);
  }
  // C tiles the matmuls store a step at a time (attention's scores) get padded rows once every
  // matmul is rewritten (a rescaled accumulator's loop no longer carries them), where all of
  // their users follow a view's layout.
  for (Value c : stepped)
    if (paddable(c))
      padRows(c);
  return success();
}
