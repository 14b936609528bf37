//===- WholeTileLoops.cpp - loops over part of a tile as guarded loops over all of it -*- C++ -*-===//
//
// See Passes.td (CudaWholeTileLoops). A masked load leaves the structured lowering as two
// loops over parts of its tile buffer (the `other` value into the masked-off part, the loaded
// elements into the rest), and a masked store as a loop over the unmasked part: each loop
// iterates a subview, so iteration i touches element offset + i. tessel-cuda-map-programs
// gives each thread the same elements of a tile in every loop over it (element e to thread
// e mod threads), which keeps a tile in the thread's registers; that holds only for loops over
// the whole tile. So such a loop becomes a loop over the whole tile with the part as a guard:
//   parallel (i) = (0) to (n) { ... sub[i] ... }   where sub = subview %tile[o] [n] [1]
// becomes
//   parallel (j) = (0) to (N) { if (o <= j < o + n) { ... %tile[j] ... (i = j - o) } }
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/Passes.h"
#include "compiler/backend/cuda/BlockMapping.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDAWHOLETILELOOPS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {

/// A tile buffer (a memref.alloc, or a loop carrying one) has a static shape and no layout;
/// views of a kernel's arguments have a strided layout. A static view of a tile buffer
/// (its first columns: a tile whose rows are padded) is a tile too.
bool isTile(Value v) {
  auto type = cast<MemRefType>(v.getType());
  if (!type.hasStaticShape())
    return false;
  if (type.getLayout().isIdentity())
    return true;
  auto view = v.getDefiningOp<memref::SubViewOp>();
  return view && view.getType().hasStaticShape() && view.getStaticOffsets() ==
         ArrayRef<int64_t>(SmallVector<int64_t>(type.getRank(), 0)) &&
         view.getSource().getDefiningOp<memref::AllocOp>() &&
         view.getSourceType().getLayout().isIdentity();
}

/// The subview of a static tile buffer (unit strides) that `loop` iterates:
/// every access of it in the loop is at exactly the loop's induction variables, the loop runs
/// from 0 in steps of 1 up to the subview's sizes, and no other subview of a tile is accessed.
memref::SubViewOp iteratedTileView(scf::ParallelOp loop) {
  if (loop.getNumResults() != 0)
    return {};
  for (auto [lb, step] : llvm::zip(loop.getLowerBound(), loop.getStep()))
    if (!isConstantIntValue(lb, 0) || !isConstantIntValue(step, 1))
      return {};
  memref::SubViewOp found;
  bool ok = true;
  loop.getBody()->walk([&](Operation *op) {
    auto access = tessel::cuda::memrefAccess(op);
    if (!access)
      return;
    auto [memref, indices] = *access;
    auto view = memref.getDefiningOp<memref::SubViewOp>();
    if (!view || !isTile(view.getSource()))
      return;
    if ((found && found != view) || !llvm::equal(indices, loop.getInductionVars()))
      ok = false;
    found = view;
  });
  if (!ok || !found)
    return {};
  MemRefType tile = found.getSourceType();
  if (tile.getRank() != int64_t(loop.getNumLoops()) ||
      found.getType().getRank() != tile.getRank() ||
      !llvm::all_of(found.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return {};
  for (auto [size, ub] : llvm::zip(found.getMixedSizes(), loop.getUpperBound())) {
    if (auto v = dyn_cast<Value>(size); v && v == ub)
      continue;
    std::optional<int64_t> a = getConstantIntValue(size), b = getConstantIntValue(ub);
    if (!a || !b || *a != *b)
      return {};
  }
  // Every use of the view is one of the loop's accesses.
  for (Operation *user : found->getUsers())
    if (!loop->isAncestor(user) || !isa<memref::LoadOp, memref::StoreOp>(user))
      return {};
  return found;
}

void wholeTile(scf::ParallelOp loop, memref::SubViewOp view) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  MemRefType tile = view.getSourceType();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> ubs;
  for (int64_t dim : tile.getShape())
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, dim));
  auto whole = scf::ParallelOp::create(b, loc, SmallVector<Value>(ubs.size(), zero), ubs,
                                       SmallVector<Value>(ubs.size(), one));
  OpBuilder body = OpBuilder::atBlockBegin(whole.getBody());
  IRMapping map;
  Value inside;
  auto conjoin = [&](Value c) {
    inside = inside ? arith::AndIOp::create(body, loc, inside, c).getResult() : c;
  };
  for (auto [d, offset, size] :
       llvm::enumerate(view.getMixedOffsets(), view.getMixedSizes())) {
    Value j = whole.getInductionVars()[d];
    Value off = getValueOrCreateConstantIndexOp(body, loc, offset);
    if (!isConstantIntValue(offset, 0))
      conjoin(arith::CmpIOp::create(body, loc, arith::CmpIPredicate::sge, j, off));
    std::optional<int64_t> offValue = getConstantIntValue(offset);
    std::optional<int64_t> sizeValue = getConstantIntValue(size);
    if (!offValue || !sizeValue || *offValue + *sizeValue < tile.getDimSize(d)) {
      Value end = body.createOrFold<arith::AddIOp>(
          loc, off, getValueOrCreateConstantIndexOp(body, loc, size));
      conjoin(arith::CmpIOp::create(body, loc, arith::CmpIPredicate::slt, j, end));
    }
    map.map(loop.getInductionVars()[d], body.createOrFold<arith::SubIOp>(loc, j, off));
  }
  OpBuilder at = body;
  if (inside) {
    auto guard = scf::IfOp::create(body, loc, inside, /*withElseRegion=*/false);
    at.setInsertionPoint(guard.thenBlock()->getTerminator());
  }
  Value source = view.getSource();
  SmallVector<Value> tileIndices(whole.getInductionVars());
  for (Operation &op : loop.getBody()->without_terminator()) {
    Operation *copy = at.clone(op, map);
    copy->walk([&](Operation *inner) {
      if (auto load = dyn_cast<memref::LoadOp>(inner); load && load.getMemRef() == view) {
        load.getMemrefMutable().assign(source);
        load.getIndicesMutable().assign(tileIndices);
      } else if (auto store = dyn_cast<memref::StoreOp>(inner);
                 store && store.getMemRef() == view) {
        store.getMemrefMutable().assign(source);
        store.getIndicesMutable().assign(tileIndices);
      }
    });
  }
  loop.erase();
  if (view->use_empty())
    view.erase();
}

struct CudaWholeTileLoopsPass : tessel::impl::CudaWholeTileLoopsBase<CudaWholeTileLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<scf::ParallelOp, memref::SubViewOp>> work;
    getOperation()->walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>())
        return;
      if (memref::SubViewOp view = iteratedTileView(loop))
        work.push_back({loop, view});
    });
    for (auto [loop, view] : work)
      wholeTile(loop, view);
  }
};

} // namespace
