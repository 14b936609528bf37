//===- ThreadTiles.cpp - tiles kept in the registers of the threads that use them -*- C++ -*-===//
//
// Part of tessel-cuda-map-programs (BlockMapping.h). A program's tiles pass from loop to loop:
// loaded into a tile, combined into another, reduced, stored. Where every loop over a tile
// touches it element for element (an access at exactly the loop's induction variables, the
// loop over the tile's whole shape: tessel-cuda-whole-tile-loops makes masked loads and stores
// so), the thread that computes element e in one loop can be the one that reads it in the
// next: element e belongs to thread e mod T (T threads), which keeps it in a private buffer at
// slot e / T. Each loop over such a tile becomes, on every thread, its slots one after another
// (k = 0 .. K-1, element tid + k*T, all k unrolled so each slot is a register), with no
// barrier and no shared memory. Where the loops' global accesses are proven contiguous and
// aligned (chooseVectorWidth), a thread owns groups of V consecutive elements instead (group j
// at j*T*V + tid*V), and a masked access tests a group at once, so LLVM makes the group's
// accesses one vector access. This is what Triton's blocked layouts give a tile: a
// memory-bound kernel then moves its data once, from global memory to registers and back.
//
// What reads such tiles is spread the same way:
//   - a reduction of a tile into a scalar: each thread combines its slots, then the block's
//     total comes from warp shuffles (gpu.all_reduce);
//   - a reduction over the outer dimension of an M x N tile (for m { parallel n { acc[n] =
//     acc[n] + f(x[m, n]) } }, a column sum) where N divides T: thread tid owns column
//     tid mod N in rows tid / N + j * (T / N), so it sums those slots, the T / N partial sums
//     of a column meet in shared memory, and a loop over acc adds them up;
//   - a tile carried through a loop (an accumulator): the iteration's result is copied into
//     the carried slots at the end of each iteration.
// A tile is kept so only if every use of it is one of these; otherwise it stays in shared
// memory and MapPrograms spreads its loops as before.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/BlockMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace {

int64_t numElements(MemRefType type) { return type.getNumElements(); }

/// Whether `loop` runs from 0 in steps of 1 to the constant `shape` in every dimension.
bool spansShape(scf::ParallelOp loop, ArrayRef<int64_t> shape) {
  if (loop.getNumLoops() != shape.size() || loop.getNumResults() != 0)
    return false;
  for (auto [lb, ub, step, dim] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), shape))
    if (!isConstantIntValue(lb, 0) || !isConstantIntValue(step, 1) ||
        !isConstantIntValue(ub, dim))
      return false;
  return true;
}

/// `for m in [0, M) { parallel n in [0, N) { acc[n] = combine(acc[n], f(x[m, n])) } }`: a
/// reduction over the outer dimension of the tile x (a memref.alloc), f pure or loading only
/// from memory that is not a tile.
struct ColumnReduction {
  scf::ForOp loop;
  scf::ParallelOp inner;
  memref::LoadOp xLoad, accLoad;
  memref::StoreOp accStore;
  Operation *combine;
  Value element; // combine's operand that is not the accumulator
  TypedAttr neutral;
  int64_t rows, cols;
};

std::optional<ColumnReduction> matchColumnReduction(scf::ForOp loop) {
  ColumnReduction r;
  r.loop = loop;
  Block *body = loop.getBody();
  if (loop.getNumResults() != 0 || !loop.getInductionVar().getType().isIndex() ||
      !isConstantIntValue(loop.getLowerBound(), 0) || !isConstantIntValue(loop.getStep(), 1) ||
      std::next(body->begin()) != std::prev(body->end()))
    return std::nullopt;
  std::optional<int64_t> rows = getConstantIntValue(loop.getUpperBound());
  r.inner = dyn_cast<scf::ParallelOp>(body->front());
  if (!rows || !r.inner || r.inner.getNumLoops() != 1 || r.inner.getNumResults() != 0 ||
      !isConstantIntValue(r.inner.getLowerBound()[0], 0) ||
      !isConstantIntValue(r.inner.getStep()[0], 1))
    return std::nullopt;
  std::optional<int64_t> cols = getConstantIntValue(r.inner.getUpperBound()[0]);
  if (!cols)
    return std::nullopt;
  r.rows = *rows;
  r.cols = *cols;
  Value m = loop.getInductionVar(), n = r.inner.getInductionVars()[0];
  r.accStore = tessel::cuda::accumulatorStore(r.inner.getBody(), loop, [&](memref::StoreOp store) {
    return llvm::equal(store.getIndices(), ValueRange{n});
  });
  if (!r.accStore)
    return std::nullopt;
  for (auto load : r.inner.getBody()->getOps<memref::LoadOp>()) {
    Value memref = load.getMemRef();
    if (memref == r.accStore.getMemRef()) {
      if (r.accLoad || !llvm::equal(load.getIndices(), ValueRange{n}))
        return std::nullopt;
      r.accLoad = load;
    } else if (memref.getDefiningOp<memref::AllocOp>() &&
               llvm::equal(load.getIndices(), ValueRange{m, n}) && !r.xLoad) {
      r.xLoad = load;
    } else if (tessel::cuda::viewedBuffer(memref).getDefiningOp<memref::AllocOp>()) {
      return std::nullopt; // another tile: its elements are not where x's are
    }
  }
  if (!r.accLoad || !r.xLoad || !r.accLoad.getResult().hasOneUse())
    return std::nullopt;
  auto xType = r.xLoad.getMemRefType();
  if (!xType.hasStaticShape() || xType.getShape() != ArrayRef<int64_t>{r.rows, r.cols})
    return std::nullopt;
  r.combine = r.accStore.getValueToStore().getDefiningOp();
  if (!r.combine || r.combine->getBlock() != r.inner.getBody() ||
      r.combine->getNumOperands() != 2 || *r.accLoad->getUsers().begin() != r.combine ||
      !tessel::cuda::allReduceKind(r.combine))
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(r.combine);
  if (!neutral)
    return std::nullopt;
  r.neutral = *neutral;
  r.element = r.combine->getOperand(0) == r.accLoad.getResult() ? r.combine->getOperand(1)
                                                                : r.combine->getOperand(0);
  return r;
}

class TileKeeper {
public:
  TileKeeper(gpu::GPUFuncOp func, Value tid, int64_t threads, int64_t maxPerThread,
             int64_t vectorBytes)
      : func_(func), tid_(tid), threads_(threads), maxPerThread_(maxPerThread),
        vectorBytes_(vectorBytes) {}

  int64_t run() {
    analyse();
    if (owned_.empty())
      return 0;
    func_.walk([&](scf::ForOp loop) {
      if (std::optional<ColumnReduction> r = matchColumnReduction(loop);
          r && isOwned(r->xLoad.getMemRef()))
        columns_.push_back(*r);
    });
    chooseVectorWidth();
    rewrite();
    return int64_t(owned_.size());
  }

private:
  // ---- Which tiles are kept in threads ----

  void analyse() {
    SmallVector<memref::AllocOp> allocs;
    func_.walk([&](memref::AllocOp alloc) {
      MemRefType type = alloc.getType();
      if (alloc->getParentOfType<scf::ParallelOp>() || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || type.getRank() == 0 ||
          llvm::divideCeil(numElements(type), threads_) > maxPerThread_)
        return;
      allocs.push_back(alloc);
    });
    DenseSet<Value> candidates;
    for (memref::AllocOp alloc : allocs) {
      rootOf_[alloc] = alloc;
      if (usesKept(alloc, alloc))
        candidates.insert(alloc);
    }
    // A tile is kept only with the tiles it is linked to (through a loop, or a column sum),
    // and only where each loop that yields it (or a value carrying it) carries it as a kept
    // tile at that position.
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto [a, b] : links_)
        if (candidates.contains(a) != candidates.contains(b)) {
          candidates.erase(a);
          candidates.erase(b);
          changed = true;
        }
      for (auto [value, root] : rootOf_) {
        if (!candidates.contains(root))
          continue;
        for (OpOperand &use : value.getUses()) {
          auto yield = dyn_cast<scf::YieldOp>(use.getOwner());
          if (!yield)
            continue;
          auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
          bool carried = loop && llvm::any_of(carried_, [&](const Carried &c) {
                           return c.loop == loop && c.index == use.getOperandNumber() &&
                                  c.yielded == value && candidates.contains(c.root);
                         });
          if (!carried) {
            candidates.erase(root);
            changed = true;
            break;
          }
        }
      }
    }
    owned_ = std::move(candidates);
    for (memref::AllocOp alloc : allocs) // program order: the same code every compile
      if (owned_.contains(alloc))
        ordered_.push_back(alloc);
  }

  // ---- How many consecutive elements a thread owns ----

  /// vec_: the widest group of consecutive elements (at most vectorBytes_ of the widest kept
  /// element type, a power of two) with which every kept tile splits into whole groups (its
  /// innermost dimension too, so a group never spans two rows), every thread gets at least one
  /// group, no column reduction reads a kept tile (those own columns, not groups), and every
  /// global access in a loop over kept tiles reads or writes whole groups that start aligned
  /// to the group's bytes. Otherwise 1: element e with thread e mod T, as Triton's blocked
  /// layout with one element per thread.
  void chooseVectorWidth() {
    int64_t widest = 1;
    for (Value root : ordered_) {
      Type element = cast<MemRefType>(root.getType()).getElementType();
      if (!element.isIntOrFloat())
        return;
      widest = std::max<int64_t>(widest, llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
    }
    if (vectorBytes_ <= widest)
      return;
    int64_t v = int64_t(llvm::bit_floor(uint64_t(vectorBytes_ / widest)));
    if (!columns_.empty())
      return;
    auto fits = [&](int64_t w) {
      for (Value root : ordered_) {
        auto type = cast<MemRefType>(root.getType());
        int64_t total = numElements(type);
        if (type.getShape().back() % w != 0 || total % w != 0 || total < threads_ * w)
          return false;
      }
      return true;
    };
    while (v > 1 && !fits(v))
      v /= 2;
    if (v <= 1)
      return;
    bool aligned = true;
    func_.walk([&](scf::ParallelOp loop) {
      if (loop->getParentOfType<scf::ParallelOp>() || !touchesOwned(loop))
        return;
      Value inner = loop.getInductionVars().back();
      loop.getBody()->walk([&](Operation *op) {
        auto access = tessel::cuda::memrefAccess(op);
        if (access && isa<BlockArgument>(tessel::cuda::viewedBuffer(access->first)) &&
            !tessel::cuda::groupsAligned(access->first, access->second, inner, v))
          aligned = false;
      });
    });
    if (aligned)
      vec_ = v;
  }

  bool isOwned(Value v) const {
    auto it = rootOf_.find(v);
    return it != rootOf_.end() && owned_.contains(it->second);
  }

  /// Whether every use of `v` (the tile `root` or a value carrying it through loops) is one a
  /// thread can serve from its own slots.
  bool usesKept(Value v, Value root) {
    auto type = cast<MemRefType>(v.getType());
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<memref::DeallocOp>(user))
        continue;
      if (auto load = dyn_cast<memref::LoadOp>(user)) {
        if (!accessKept(user, load.getIndices(), type, root))
          return false;
        continue;
      }
      if (auto store = dyn_cast<memref::StoreOp>(user);
          store && use.getOperandNumber() == 1) {
        if (!accessKept(user, store.getIndices(), type, root))
          return false;
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(user);
          loop && use.getOperandNumber() >= loop.getNumControlOperands()) {
        // A tile carried through the loop: nothing reads it after the loop begins but the
        // loop, and each iteration yields the carried tile or a tile of its own.
        unsigned i = use.getOperandNumber() - loop.getNumControlOperands();
        if (llvm::count(loop.getInitArgs(), v) != 1)
          return false; // two iter_args would share its slots
        for (Operation *other : v.getUsers()) {
          Operation *at = loop->getBlock()->findAncestorOpInBlock(*other);
          if (other != loop && (!at || !at->isBeforeInBlock(loop)))
            return false;
        }
        Value iterArg = loop.getRegionIterArgs()[i];
        Value yielded = loop.getBody()->getTerminator()->getOperand(i);
        if (yielded != iterArg) {
          auto alloc = yielded.getDefiningOp<memref::AllocOp>();
          if (!alloc || alloc->getBlock() != loop.getBody())
            return false;
          links_.push_back({root, yielded});
        }
        carried_.push_back({loop, i, root, yielded});
        rootOf_[iterArg] = root;
        rootOf_[loop.getResult(i)] = root;
        bool inside = usesKept(iterArg, root), after = usesKept(loop.getResult(i), root);
        if (!inside || !after)
          return false;
        continue;
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user); yield && isa<scf::ForOp>(yield->getParentOp()))
        continue; // checked from the loop's side (the link above)
      return false;
    }
    return true;
  }

  /// Whether the access `user` at `indices` of a tile of `type` is element for element: in a
  /// parallel loop over the tile's shape at its induction variables, in a reduction of the
  /// whole (1-D) tile into a scalar, or the tile of a column reduction.
  bool accessKept(Operation *user, ValueRange indices, MemRefType type, Value root) {
    scf::ParallelOp outer;
    for (Operation *p = user->getParentOp(); p && p != func_; p = p->getParentOp())
      if (auto par = dyn_cast<scf::ParallelOp>(p))
        outer = par;
    // Every thread must reach the loop over its slots: only through the loops and ifs that
    // MapPrograms runs on every thread alike (not a while loop, not a region it gives to
    // thread 0).
    Operation *site = outer ? outer.getOperation() : user->getParentOp(); // or the reduction
    for (Operation *p = site->getParentOp(); p && p != func_; p = p->getParentOp())
      if (!isa<scf::ForOp, scf::IfOp>(p))
        return false;
    if (outer) {
      if (auto loop = dyn_cast<scf::ForOp>(outer->getParentOp())) {
        if (std::optional<ColumnReduction> r = matchColumnReduction(loop)) {
          // The column reduction's tile, or its accumulator (kept only with the tile).
          if (r->xLoad == user) {
            links_.push_back({root, rootOf(r->accLoad.getMemRef())});
            return threads_ % r->cols == 0 || r->cols % threads_ == 0;
          }
          if (r->accLoad == user || r->accStore == user) {
            links_.push_back({root, rootOf(r->xLoad.getMemRef())});
            return spansShape(outer, type.getShape()) &&
                   llvm::equal(indices, outer.getInductionVars());
          }
          return false;
        }
      }
      bool clean = !outer->walk([](Operation *op) {
                            return isa<memref::AllocOp, memref::AllocaOp, gpu::BarrierOp>(op)
                                       ? WalkResult::interrupt()
                                       : WalkResult::advance();
                          }).wasInterrupted();
      return clean && spansShape(outer, type.getShape()) &&
             llvm::equal(indices, outer.getInductionVars());
    }
    auto loop = dyn_cast<scf::ForOp>(user->getParentOp());
    if (!loop || !isa<memref::LoadOp>(user) || type.getRank() != 1 ||
        !loop.getInductionVar().getType().isIndex() ||
        !isConstantIntValue(loop.getLowerBound(), 0) || !isConstantIntValue(loop.getStep(), 1) ||
        !isConstantIntValue(loop.getUpperBound(), type.getDimSize(0)) ||
        !llvm::equal(indices, ValueRange{loop.getInductionVar()}))
      return false;
    std::optional<tessel::cuda::ScalarReduction> r = tessel::cuda::matchScalarReduction(loop);
    return r && r->accLoad != user;
  }

  Value rootOf(Value v) {
    auto it = rootOf_.find(v);
    return it == rootOf_.end() ? v : it->second;
  }

  // ---- Rewriting ----

  void rewrite() {
    Block &entry = func_.getBody().front();
    OpBuilder top = OpBuilder::atBlockBegin(&entry);
    top.setInsertionPointAfterValue(tid_);
    Location loc = func_.getLoc();
    for (Value root : ordered_) {
      auto type = cast<MemRefType>(root.getType());
      int64_t slots = slotsFor(numElements(type));
      slots_[root] = memref::AllocaOp::create(
                         top, loc, MemRefType::get({slots}, type.getElementType()))
                         .getResult();
    }
    // Column reductions first: they make loops over their accumulators.
    for (ColumnReduction &r : columns_)
      rewriteColumns(r);
    SmallVector<scf::ParallelOp> loops;
    func_.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>() && touchesOwned(loop))
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops)
      rewriteLoop(loop);
    SmallVector<tessel::cuda::ScalarReduction> reductions;
    func_.walk([&](scf::ForOp loop) {
      if (touchesOwned(loop))
        if (std::optional<tessel::cuda::ScalarReduction> r =
                tessel::cuda::matchScalarReduction(loop))
          reductions.push_back(*r);
    });
    for (tessel::cuda::ScalarReduction &r : reductions)
      rewriteReduction(r);
    rewriteCarried();
    for (Value root : ordered_) {
      Operation *alloc = root.getDefiningOp();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc->erase();
    }
  }

  bool touchesOwned(Operation *op) {
    return op
        ->walk([&](Operation *inner) {
          auto access = tessel::cuda::memrefAccess(inner);
          return access && isOwned(access->first) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// A region every thread runs on its own slots (MapPrograms leaves it be).
  OpBuilder perThreadRegion(Operation *before) {
    OpBuilder b(before);
    auto region = scf::ExecuteRegionOp::create(b, before->getLoc(), TypeRange{});
    region->setAttr(tessel::cuda::kPerThreadAttr, b.getUnitAttr());
    Block *block = &region.getRegion().emplaceBlock();
    OpBuilder in = OpBuilder::atBlockEnd(block);
    auto yield = scf::YieldOp::create(in, before->getLoc());
    in.setInsertionPoint(yield);
    return in;
  }

  /// The element of a space that slot k of thread tid holds: the thread's slots come in groups
  /// of vec_ consecutive elements, group j at j * T * vec_ + tid * vec_ (vec_ = 1: element
  /// tid + k * T).
  Value elementOf(OpBuilder &b, Location loc, int64_t k) {
    int64_t group = k / vec_, lane = k % vec_;
    Value first = vec_ == 1 ? tid_
                            : arith::MulIOp::create(b, loc, tid_,
                                                    arith::ConstantIndexOp::create(b, loc, vec_))
                                  .getResult();
    return arith::AddIOp::create(
        b, loc, first, arith::ConstantIndexOp::create(b, loc, group * threads_ * vec_ + lane));
  }

  /// Whether the slots of group j (slot k / vec_ == j) may lie past a space of `total`
  /// elements on some thread.
  bool groupMayRunPast(int64_t j, int64_t total) const {
    return (j + 1) * threads_ * vec_ > total;
  }

  /// The slots a thread needs for a space of `total` elements.
  int64_t slotsFor(int64_t total) const {
    return llvm::divideCeil(total, threads_ * vec_) * vec_;
  }

  /// For each slot k of a space of `total` elements: `body(b, k, element)` (elementOf),
  /// guarded where the last slots run past the space; `acc` threads a value through (null:
  /// none). Returns the final `acc`.
  Value forEachSlot(OpBuilder &b, Location loc, int64_t total, Value acc,
                    llvm::function_ref<Value(OpBuilder &, int64_t, Value, Value)> body) {
    int64_t slots = slotsFor(total);
    for (int64_t k = 0; k < slots; ++k) {
      Value element = elementOf(b, loc, k);
      if (!groupMayRunPast(k / vec_, total)) {
        acc = body(b, k, element, acc);
        continue;
      }
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, element,
                                           arith::ConstantIndexOp::create(b, loc, total));
      auto guard = scf::IfOp::create(b, loc, acc ? TypeRange{acc.getType()} : TypeRange{},
                                     inside, /*withElseRegion=*/bool(acc));
      OpBuilder in(guard.thenBlock(), guard.thenBlock()->begin());
      if (acc) {
        Value updated = body(in, k, element, acc);
        scf::YieldOp::create(in, loc, updated);
        OpBuilder other(guard.elseBlock(), guard.elseBlock()->begin());
        scf::YieldOp::create(other, loc, acc);
        acc = guard.getResult(0);
      } else {
        in.setInsertionPoint(guard.thenBlock()->getTerminator());
        body(in, k, element, acc);
      }
    }
    return acc;
  }

  /// The ops `b` created since `mark` (the op before its insertion point then, or null):
  /// their accesses of kept tiles become accesses of slot k.
  void toSlots(OpBuilder &b, Operation *mark, int64_t k) {
    Block *block = b.getInsertionBlock();
    Block::iterator from = mark ? std::next(mark->getIterator()) : block->begin();
    Location loc = func_.getLoc();
    for (Operation &op : llvm::make_range(from, b.getInsertionPoint()))
      op.walk([&](Operation *inner) {
        OpBuilder at(inner);
        if (auto load = dyn_cast<memref::LoadOp>(inner); load && isOwned(load.getMemRef())) {
          Value slot = arith::ConstantIndexOp::create(at, loc, k);
          load.getMemrefMutable().assign(slots_[rootOf(load.getMemRef())]);
          load.getIndicesMutable().assign(ValueRange{slot});
        } else if (auto store = dyn_cast<memref::StoreOp>(inner);
                   store && isOwned(store.getMemRef())) {
          Value slot = arith::ConstantIndexOp::create(at, loc, k);
          store.getMemrefMutable().assign(slots_[rootOf(store.getMemRef())]);
          store.getIndicesMutable().assign(ValueRange{slot});
        }
      });
  }

  static Operation *markOf(OpBuilder &b) {
    Block::iterator at = b.getInsertionPoint();
    return at == b.getInsertionBlock()->begin() ? nullptr : &*std::prev(at);
  }

  /// The ops of `ops` cloned at `b` under `map`, their accesses of kept tiles at slot k.
  void cloneAtSlot(OpBuilder &b, llvm::iterator_range<Block::iterator> ops, IRMapping &map,
                   int64_t k) {
    Operation *mark = markOf(b);
    for (Operation &op : ops)
      b.clone(op, map);
    toSlots(b, mark, k);
  }

  /// A parallel loop over the kept tiles' shape: each thread its slots, a group of vec_
  /// consecutive elements at a time. A guarded body (a masked access) runs the group's
  /// accesses under one test where the whole group passes, so neighbouring global accesses
  /// sit side by side in one block for LLVM to make one vector access of them (their
  /// alignment proven by chooseVectorWidth), and element by element otherwise.
  void rewriteLoop(scf::ParallelOp loop) {
    Location loc = loop.getLoc();
    SmallVector<int64_t> shape;
    for (Value ub : loop.getUpperBound())
      shape.push_back(*getConstantIntValue(ub));
    int64_t total = 1;
    for (int64_t d : shape)
      total *= d;
    Block *body = loop.getBody();
    scf::IfOp guard = vec_ > 1 ? tessel::cuda::guardOfBody(body) : scf::IfOp();
    OpBuilder b = perThreadRegion(loop);
    int64_t groups = slotsFor(total) / vec_;
    // Each access's group alignment, the same for every group.
    llvm::DenseMap<Operation *, int64_t> alignments;
    body->walk([&](Operation *op) {
      alignments[op] = groupAlignment(*op, loop.getInductionVars().back());
    });
    for (int64_t j = 0; j < groups; ++j) {
      OpBuilder in = b;
      SmallVector<IRMapping> maps(vec_);
      SmallVector<Value> elements;
      for (int64_t lane = 0; lane < vec_; ++lane) {
        elements.push_back(elementOf(b, loc, j * vec_ + lane));
        maps[lane].map(loop.getInductionVars(),
                       tessel::cuda::delinearize(b, loc, elements.back(), shape));
      }
      if (groupMayRunPast(j, total)) {
        // vec_ divides total: the group lies inside the space or past it.
        Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, elements[0],
                                             arith::ConstantIndexOp::create(b, loc, total));
        auto tail = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
        in.setInsertionPoint(tail.thenBlock()->getTerminator());
      }
      tessel::cuda::cloneGroup(
          in, loc, body, guard, maps,
          [&](OpBuilder &at, llvm::iterator_range<Block::iterator> ops, IRMapping &map,
              int64_t lane) { cloneAtSlot(at, ops, map, j * vec_ + lane); },
          [&](Operation &op) { return alignments.lookup(&op); });
    }
    loop.erase();
  }

  /// The alignment (bytes) of the group of vec_ elements `op` accesses in a loop over kept
  /// tiles (innermost induction variable `inner`), where it is one vector access: a global
  /// view chooseVectorWidth proved aligned, or a shared tile (a buffer the program allocates
  /// and does not keep, which MapPrograms places kSharedTileAlignment-aligned) whose rows are
  /// whole groups. 0 otherwise (the lanes' accesses one by one; a kept tile's are slots).
  int64_t groupAlignment(Operation &op, Value inner) {
    auto access = tessel::cuda::memrefAccess(&op);
    if (vec_ <= 1 || !access || isOwned(access->first) || access->second.empty() ||
        access->second.back() != inner)
      return 0;
    auto type = cast<MemRefType>(access->first.getType());
    if (!type.getElementType().isIntOrFloat() || type.getElementTypeBitWidth() % 8 != 0)
      return 0;
    // The group's elements side by side: outer indices the same for every lane.
    Operation *loop = inner.getParentBlock()->getParentOp();
    if (llvm::any_of(access->second.drop_back(), [&](Value index) {
          return tessel::cuda::followsInduction(index, inner, loop);
        }))
      return 0;
    int64_t bytes = vec_ * type.getElementTypeBitWidth() / 8;
    Value buffer = tessel::cuda::viewedBuffer(access->first);
    if (isa<BlockArgument>(buffer))
      return tessel::cuda::groupsAligned(access->first, access->second, inner, vec_) ? bytes : 0;
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getParentOfType<scf::ParallelOp>()) // the latter: a thread's own
      return 0;
    // A memref.view's type hides its byte shift.
    for (Value at = access->first; at != buffer;
         at = cast<ViewLikeOpInterface>(at.getDefiningOp()).getViewSource())
      if (at.getDefiningOp<memref::ViewOp>())
        return 0;
    if (!tessel::cuda::rowsOfWholeGroups(type, vec_))
      return 0;
    return std::min<int64_t>(bytes, tessel::cuda::kSharedTileAlignment);
  }

  /// A reduction of a kept tile into a scalar: each thread its slots, then the block's total.
  void rewriteReduction(tessel::cuda::ScalarReduction &r) {
    Location loc = r.loop.getLoc();
    int64_t total = *getConstantIntValue(r.loop.getUpperBound());
    OpBuilder b = perThreadRegion(r.loop);
    Value identity = arith::ConstantOp::create(b, loc, r.neutral);
    Value partial = forEachSlot(b, loc, total, identity,
                                [&](OpBuilder &in, int64_t k, Value element, Value acc) {
                                  Operation *mark = markOf(in);
                                  Value next = tessel::cuda::cloneReductionStep(in, r, element, acc);
                                  toSlots(in, mark, k);
                                  return next;
                                });
    tessel::cuda::finishScalarReduction(b, r, partial, tid_);
    r.loop.erase();
  }

  /// One step of a column reduction at row `m`, column `n` (its tile element in slot `slot`)
  /// on the partial so far; returns the new partial.
  Value columnStep(OpBuilder &b, ColumnReduction &r, Value m, Value n, int64_t slot,
                   Value partial) {
    IRMapping map;
    map.map(r.loop.getInductionVar(), m);
    map.map(r.inner.getInductionVars()[0], n);
    map.map(r.accLoad.getResult(), partial);
    Operation *mark = markOf(b);
    Value next = tessel::cuda::cloneAccumulation(b, r.inner.getBody(), r.accLoad, r.accStore, map);
    toSlots(b, mark, slot);
    return next;
  }

  /// A column reduction of a kept M x N tile (N divides T): thread tid sums column tid mod N
  /// over rows tid / N + j * (T / N) (its slots j), the partial sums meet in a shared G x N
  /// buffer (G = T / N), and a loop over the accumulator adds each column's G partials.
  void rewriteColumns(ColumnReduction &r) {
    if (r.cols % threads_ == 0 && r.cols > threads_)
      return rewriteOwnColumns(r);
    Location loc = r.loop.getLoc();
    int64_t groups = threads_ / r.cols;
    Type element = r.accStore.getValueToStore().getType();
    OpBuilder top = OpBuilder::atBlockBegin(&func_.getBody().front());
    top.setInsertionPointAfterValue(tid_);
    Value scratch = memref::AllocOp::create(top, loc, MemRefType::get({groups, r.cols}, element));
    OpBuilder b = perThreadRegion(r.loop);
    Value colsValue = arith::ConstantIndexOp::create(b, loc, r.cols);
    Value n = arith::RemUIOp::create(b, loc, tid_, colsValue);
    Value g = arith::DivUIOp::create(b, loc, tid_, colsValue);
    Value identity = arith::ConstantOp::create(b, loc, r.neutral);
    Value partial = forEachSlot(
        b, loc, r.rows * r.cols, identity, [&](OpBuilder &in, int64_t k, Value, Value acc) {
          Value m = arith::AddIOp::create(in, loc, g,
                                          arith::ConstantIndexOp::create(in, loc, k * groups));
          return columnStep(in, r, m, n, k, acc);
        });
    memref::StoreOp::create(b, loc, partial, scratch, ValueRange{g, n});
    // acc[n] = combine(acc[n], partial 0 + ... + partial G-1) over the accumulator's columns.
    OpBuilder after(r.loop);
    Value zero = arith::ConstantIndexOp::create(after, loc, 0);
    Value one = arith::ConstantIndexOp::create(after, loc, 1);
    Value cols = arith::ConstantIndexOp::create(after, loc, r.cols);
    auto sum = scf::ParallelOp::create(after, loc, ValueRange{zero}, ValueRange{cols},
                                       ValueRange{one});
    OpBuilder in = OpBuilder::atBlockBegin(sum.getBody());
    Value col = sum.getInductionVars()[0];
    Value total;
    for (int64_t i = 0; i < groups; ++i) {
      Value part = memref::LoadOp::create(
          in, loc, scratch, ValueRange{arith::ConstantIndexOp::create(in, loc, i), col});
      total = total ? tessel::cuda::applyCombine(in, r.combine, r.accLoad.getResult(),
                                                 r.element, total, part)
                    : part;
    }
    IRMapping map;
    map.map(r.inner.getInductionVars()[0], col);
    Value old = in.clone(*r.accLoad, map)->getResult(0);
    map.map(r.accStore.getValueToStore(),
            tessel::cuda::applyCombine(in, r.combine, r.accLoad.getResult(), r.element, old,
                                       total));
    in.clone(*r.accStore, map);
    r.loop.erase();
  }

  /// A column reduction of a kept M x N tile where T divides N: thread tid owns columns
  /// n = tid + c * T of every row (slot m * N / T + c) and the accumulator's element n (slot
  /// c), so it reduces its columns alone.
  void rewriteOwnColumns(ColumnReduction &r) {
    Location loc = r.loop.getLoc();
    int64_t perRow = r.cols / threads_;
    Value acc = slots_[rootOf(r.accLoad.getMemRef())];
    OpBuilder b = perThreadRegion(r.loop);
    for (int64_t c = 0; c < perRow; ++c) {
      Value n = arith::AddIOp::create(b, loc, tid_,
                                      arith::ConstantIndexOp::create(b, loc, c * threads_));
      Value partial = arith::ConstantOp::create(b, loc, r.neutral);
      for (int64_t m = 0; m < r.rows; ++m)
        partial = columnStep(b, r, arith::ConstantIndexOp::create(b, loc, m), n,
                             m * perRow + c, partial);
      Value slot = arith::ConstantIndexOp::create(b, loc, c);
      Value total = tessel::cuda::applyCombine(
          b, r.combine, r.accLoad.getResult(), r.element,
          memref::LoadOp::create(b, loc, acc, ValueRange{slot}), partial);
      memref::StoreOp::create(b, loc, total, acc, ValueRange{slot});
    }
    r.loop.erase();
  }

  /// Tiles carried through loops: the iteration's tile copied into the carried slots at the
  /// end of each iteration, the loop rebuilt without the carried tile.
  void rewriteCarried() {
    Location loc = func_.getLoc();
    llvm::MapVector<Operation *, SmallVector<unsigned>> dropped;
    for (Carried &c : carried_) {
      if (!owned_.contains(c.root))
        continue;
      Value into = slots_[c.root];
      Value from = slots_[rootOf(c.yielded)];
      dropped[c.loop].push_back(c.index);
      if (from == into)
        continue;
      OpBuilder b = perThreadRegion(c.loop.getBody()->getTerminator());
      int64_t slots = cast<MemRefType>(into.getType()).getDimSize(0);
      for (int64_t k = 0; k < slots; ++k) {
        Value slot = arith::ConstantIndexOp::create(b, loc, k);
        Value v = memref::LoadOp::create(b, loc, from, ValueRange{slot});
        memref::StoreOp::create(b, loc, v, into, ValueRange{slot});
      }
    }
    // Carried tiles in loop operands and yields: a placeholder until the loops are rebuilt.
    OpBuilder top = OpBuilder::atBlockBegin(&func_.getBody().front());
    llvm::MapVector<Type, Value> placeholders;
    for (auto &[op, indices] : dropped) {
      auto loop = cast<scf::ForOp>(op);
      Operation *yield = loop.getBody()->getTerminator();
      for (unsigned i : indices) {
        Type type = loop.getResult(i).getType();
        Value &p = placeholders[type];
        if (!p)
          p = memref::AllocaOp::create(top, loc, cast<MemRefType>(type)).getResult();
        loop.getInitArgsMutable()[i].assign(p);
        yield->setOperand(i, p);
      }
    }
    for (auto &[op, indices] : dropped) {
      auto loop = cast<scf::ForOp>(op);
      SmallVector<Value> inits;
      SmallVector<unsigned> kept;
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (!llvm::is_contained(indices, i)) {
          inits.push_back(loop.getInitArgs()[i]);
          kept.push_back(i);
        }
      OpBuilder b(loop);
      auto rebuilt = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                        loop.getUpperBound(), loop.getStep(), inits);
      rebuilt.setUnsignedCmp(loop.getUnsignedCmp());
      for (NamedAttribute attr : loop->getDiscardableAttrs())
        rebuilt->setAttr(attr.getName(), attr.getValue());
      Block *body = rebuilt.getBody();
      if (!body->empty())
        body->back().erase();
      Block *old = loop.getBody();
      old->getArgument(0).replaceAllUsesWith(rebuilt.getInductionVar());
      for (auto [n, i] : llvm::enumerate(kept))
        loop.getRegionIterArgs()[i].replaceAllUsesWith(rebuilt.getRegionIterArgs()[n]);
      Operation *yield = old->getTerminator();
      SmallVector<Value> yielded;
      for (unsigned i : kept)
        yielded.push_back(yield->getOperand(i));
      body->getOperations().splice(body->end(), old->getOperations(), old->begin(),
                                   std::prev(old->end()));
      OpBuilder end = OpBuilder::atBlockEnd(body);
      scf::YieldOp::create(end, loop.getLoc(), yielded);
      for (auto [n, i] : llvm::enumerate(kept))
        loop.getResult(i).replaceAllUsesWith(rebuilt.getResult(n));
      loop.erase();
    }
    for (auto &[type, p] : placeholders)
      if (p.use_empty())
        p.getDefiningOp()->erase();
  }

  struct Carried {
    scf::ForOp loop;
    unsigned index;
    Value root, yielded;
  };

  gpu::GPUFuncOp func_;
  Value tid_;
  int64_t threads_, maxPerThread_, vectorBytes_;
  int64_t vec_ = 1;               // consecutive elements a thread owns (chooseVectorWidth)
  DenseMap<Value, Value> rootOf_; // a tile or a value carrying it -> the tile's alloc
  DenseSet<Value> owned_;         // the kept tiles (their allocs)
  SmallVector<Value> ordered_;    // the same, in program order
  DenseMap<Value, Value> slots_;  // a kept tile -> each thread's slots
  SmallVector<std::pair<Value, Value>> links_;
  SmallVector<Carried> carried_;
  SmallVector<ColumnReduction> columns_; // the column reductions of kept tiles
};

} // namespace

int64_t tessel::cuda::keepTilesInThreads(gpu::GPUFuncOp func, Value tid, int64_t threads,
                                         int64_t maxPerThread, int64_t vectorBytes) {
  return TileKeeper(func, tid, threads, maxPerThread, vectorBytes).run();
}
