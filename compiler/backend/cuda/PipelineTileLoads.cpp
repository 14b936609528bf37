//===- PipelineTileLoads.cpp - operand tiles loaded stages ahead of their use -*- C++ -*-===//
//
// See Passes.td (CudaPipelineTileLoads). A K loop after tessel-cuda-tensor-core-dots:
//   [index arithmetic, views] [async copies into A] [.. into B] [commit]* [wait 0] [mma] ...
// Its copies, the pure ops they need and the commits form stage 0; everything else is stage
// S - 1. Each tile a stage-0 region writes gets S slots (one shared buffer S x M x K), slot
// ((iv - lb) / step) mod S for iteration iv, and MLIR's loop pipeliner (scf::pipelineForLoop)
// issues the copies of iteration iv + S - 1 before the compute of iteration iv; the wait
// leaves the newer (S - 1) iterations' groups pending. A step on warpgroups (wgmma) reading
// only such tiles keeps its group in flight into the next iteration, its tiles S + 1 slots;
// with two warpgroups or more and S >= 3, the copies then follow the step in the loop body
// (issued while the tensor cores run it), with no barrier of their own (kSlotsReleasedAttr).
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/Allocation.h"
#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/Passes.h"
#include "compiler/backend/cuda/TileCopies.h"
#include "compiler/backend/cuda/WarpgroupDots.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDAPIPELINETILELOADS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {

using tessel::cuda::kAsyncCommitAttr;
using tessel::cuda::kAsyncCopyAttr;
using tessel::cuda::kAsyncWaitAttr;
using tessel::cuda::kPerThreadAttr;

/// The tile buffers an async-copy region writes: allocations outside `loop` it uses.
SmallVector<Value> tilesOf(Operation *region, scf::ForOp loop) {
  llvm::SetVector<Value> tiles;
  visitUsedValuesDefinedAbove(region->getRegions(), [&](OpOperand *use) {
    Value v = use->get();
    if (v.getDefiningOp<memref::AllocOp>() && loop.isDefinedOutsideOfLoop(v))
      tiles.insert(v);
  });
  return tiles.takeVector();
}

/// The op of `loop`'s body that contains `op`.
Operation *inBody(scf::ForOp loop, Operation *op) {
  return loop.getBody()->findAncestorOpInBlock(*op);
}

/// Whether every use of `tile` is inside `writer`, or a read inside a per-thread region of the
/// loop body (directly or through a memory-space cast).
bool onlyReadElsewhere(Value tile, Operation *writer, scf::ForOp loop) {
  for (OpOperand &use : tile.getUses()) {
    Operation *user = use.getOwner();
    if (writer->isAncestor(user))
      continue;
    Operation *top = inBody(loop, user);
    if (!top || !top->hasAttr(kPerThreadAttr) || top->hasAttr(kAsyncCopyAttr))
      return false;
    SmallVector<Operation *> readers{user};
    if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(user))
      readers.assign(cast->getUsers().begin(), cast->getUsers().end());
    // Loads, or the address a wgmma descriptor takes (WarpgroupDots.cpp).
    for (Operation *r : readers)
      if (!isa<memref::LoadOp, vector::LoadOp, nvgpu::LdMatrixOp, memref::ExtractStridedMetadataOp,
               memref::ExtractAlignedPointerAsIndexOp>(r))
        return false;
  }
  return true;
}

/// Whether `op` writes only tile buffers the kernel allocates (or nothing).
bool writesOnlyAllocations(Operation *op) {
  return !op
              ->walk<WalkOrder::PreOrder>([&](Operation *inner) {
                if (inner->hasAttr(kAsyncWaitAttr) || inner->hasAttr(kAsyncCommitAttr) ||
                    inner->hasAttr(tessel::cuda::kTmaWaitAttr))
                  return WalkResult::skip();
                if (isMemoryEffectFree(inner) || tessel::cuda::registersOnly(inner) ||
                    inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
                  return WalkResult::advance();
                auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
                if (!effects)
                  return WalkResult::interrupt();
                SmallVector<MemoryEffects::EffectInstance> list;
                effects.getEffects(list);
                for (const MemoryEffects::EffectInstance &e : list) {
                  if (!isa<MemoryEffects::Write>(e.getEffect()))
                    continue;
                  Value target = e.getValue();
                  if (!target || !tessel::cuda::viewedBuffer(target).getDefiningOp<memref::AllocOp>())
                    return WalkResult::interrupt();
                }
                return WalkResult::advance();
              })
              .wasInterrupted();
}

/// Whether `wait` is a step's wait for its own wgmma group (right after its commit), not one
/// for an earlier step's.
bool waitsForOwnGroup(NVVM::WgmmaWaitGroupSyncOp wait) {
  return isa_and_nonnull<NVVM::WgmmaGroupSyncAlignedOp>(wait->getPrevNode());
}

/// Whether the step on warpgroups `step` reads the accumulators it carries before it issues
/// its group (a rescaled accumulator: attention's P.V), waiting for the previous group first.
bool readsAccumulatorsFirst(Operation *step) {
  return step
      ->walk([](NVVM::WgmmaWaitGroupSyncOp wait) {
        return waitsForOwnGroup(wait) ? WalkResult::advance() : WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// Gives `tile` `stages` slots: a buffer stages x M x K, and in each region of the loop body
/// that uses it, the slot of the region's iteration in its place.
void multiBuffer(Value tile, scf::ForOp loop, int64_t stages) {
  auto alloc = tile.getDefiningOp<memref::AllocOp>();
  auto type = cast<MemRefType>(tile.getType());
  SmallVector<int64_t> shape{stages};
  llvm::append_range(shape, type.getShape());
  OpBuilder b(alloc);
  auto slots = memref::AllocOp::create(b, alloc.getLoc(), MemRefType::get(shape, type.getElementType()));
  if (auto alignment = alloc.getAlignmentAttr())
    slots.setAlignmentAttr(alignment);
  slots->setDiscardableAttrs(alloc->getDiscardableAttrDictionary());

  llvm::SetVector<Operation *> regions;
  for (Operation *user : tile.getUsers())
    regions.insert(inBody(loop, user));
  // A TMA tile's mbarriers: one a slot (its regions take the slot count from this constant).
  llvm::SetVector<Operation *> slotCounts;
  for (Operation *region : regions)
    visitUsedValuesDefinedAbove(region->getRegions(), [&](OpOperand *use) {
      if (Operation *def = use->get().getDefiningOp();
          def && def->hasAttr(tessel::cuda::kTmaSlotsAttr))
        slotCounts.insert(def);
    });
  for (Operation *count : slotCounts) {
    OpBuilder at(count);
    auto n = arith::ConstantIndexOp::create(at, count->getLoc(), stages);
    n->setAttrs(count->getDiscardableAttrDictionary());
    count->getResult(0).replaceAllUsesWith(n.getResult());
    count->erase();
  }
  for (Operation *region : regions) {
    Location loc = region->getLoc();
    Block &entry = region->getRegion(0).front();
    OpBuilder in = OpBuilder::atBlockBegin(&entry);
    Value iv = loop.getInductionVar();
    Value iteration = arith::DivUIOp::create(
        in, loc, arith::SubIOp::create(in, loc, iv, loop.getLowerBound()), loop.getStep());
    Value slot = arith::RemUIOp::create(
        in, loc, iteration,
        arith::ConstantOp::create(in, loc, in.getIntegerAttr(iv.getType(), stages)));
    if (!slot.getType().isIndex())
      slot = arith::IndexCastOp::create(in, loc, in.getIndexType(), slot);
    SmallVector<OpFoldResult> offsets{slot}, sizes{in.getIndexAttr(1)},
        strides(shape.size(), in.getIndexAttr(1));
    for (int64_t d : type.getShape()) {
      offsets.push_back(in.getIndexAttr(0));
      sizes.push_back(in.getIndexAttr(d));
    }
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        type.getShape(), cast<MemRefType>(slots.getType()), offsets, sizes, strides);
    Value view = memref::SubViewOp::create(in, loc, cast<MemRefType>(viewType), slots, offsets,
                                           sizes, strides);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : tile.getUses())
      if (region->isAncestor(use.getOwner()))
        uses.push_back(&use);
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(user)) {
        // The cast's type follows its source's layout.
        auto target = cast.getType();
        OpBuilder at(cast);
        auto viewMemref = llvm::cast<MemRefType>(view.getType());
        auto recast = memref::MemorySpaceCastOp::create(
            at, cast.getLoc(),
            MemRefType::get(viewMemref.getShape(), viewMemref.getElementType(),
                            viewMemref.getLayout(), target.getMemorySpace()),
            view);
        cast.replaceAllUsesWith(recast.getResult());
        cast.erase();
        continue;
      }
      use->set(view);
    }
  }
  alloc.erase();
}

/// In a warp-specialized kernel (TileCopies.h: TmaLoads::specialized), each step on warpgroups
/// of `loop` is followed by a region in which every warp releases, for each tile whose
/// producer waits for releases, the slot of the iteration whose wgmma group the step's own
/// wait completed: N iterations back for a wait leaving N groups in flight (none before the
/// N-th iteration), one arrival a warp on the tile's release mbarrier at that iteration's slot
/// (the producer waits for it before loading the slot's next use). Once a loop
/// (kSlotReleaseAttr).
void releaseSlots(scf::ForOp loop) {
  Block *body = loop.getBody();
  if (llvm::any_of(*body, [](Operation &op) {
        return op.hasAttr(tessel::cuda::kSlotReleaseAttr);
      }))
    return;
  struct Released {
    Value tile, group, slots;
  };
  SmallVector<Released> released;
  for (Operation &op : body->without_terminator()) {
    if (!op.hasAttr(kAsyncCopyAttr))
      continue;
    Value group, slots;
    op.walk([&](scf::ExecuteRegionOp r) {
      if (r->hasAttr(tessel::cuda::kWarpProducerAttr))
        r.walk([&](nvgpu::MBarrierTryWaitParityOp w) { group = w.getBarriers(); });
    });
    visitUsedValuesDefinedAbove(op.getRegions(), [&](OpOperand *use) {
      if (Operation *def = use->get().getDefiningOp();
          def && def->hasAttr(tessel::cuda::kTmaSlotsAttr))
        slots = use->get();
    });
    if (!group || !slots)
      continue;
    for (Value tile : tilesOf(&op, loop))
      released.push_back({tile, group, slots});
  }
  if (released.empty())
    return;
  SmallVector<Operation *> steps;
  for (Operation &op : body->without_terminator())
    if (op.hasAttr(tessel::cuda::kWarpgroupStepAttr))
      steps.push_back(&op);
  for (Operation *step : steps) {
    SmallVector<std::pair<Value, Value>> groups; // (release mbarriers, slot count)
    step->walk([&](memref::ExtractAlignedPointerAsIndexOp address) {
      Value tile = tessel::cuda::viewedBuffer(address.getSource());
      for (Released &r : released)
        if (r.tile == tile && !llvm::any_of(groups, [&](auto &g) { return g.first == r.group; }))
          groups.push_back({r.group, r.slots});
    });
    if (groups.empty())
      continue;
    int64_t depth = 0;
    step->walk([&](NVVM::WgmmaWaitGroupSyncOp wait) {
      if (waitsForOwnGroup(wait))
        depth = wait.getGroup();
    });
    Location loc = step->getLoc();
    OpBuilder b(step->getBlock(), std::next(step->getIterator()));
    auto region = tessel::cuda::perThreadRegion(b, loc, {}, [&](OpBuilder &in) {
      Value iteration = tessel::cuda::iterationOf(in, loc, loop);
      Value n = arith::ConstantIndexOp::create(in, loc, depth);
      auto done = scf::IfOp::create(
          in, loc, arith::CmpIOp::create(in, loc, arith::CmpIPredicate::uge, iteration, n),
          /*withElseRegion=*/false);
      OpBuilder then = done.getThenBodyBuilder();
      NVVM::SyncWarpOp::create(then, loc,
                               arith::ConstantIntOp::create(then, loc, then.getI32Type(), -1));
      Value lane = arith::RemUIOp::create(
          then, loc, gpu::ThreadIdOp::create(then, loc, gpu::Dimension::x),
          arith::ConstantIndexOp::create(then, loc, 32));
      auto first = scf::IfOp::create(
          then, loc,
          arith::CmpIOp::create(then, loc, arith::CmpIPredicate::eq, lane,
                                arith::ConstantIndexOp::create(then, loc, 0)),
          /*withElseRegion=*/false);
      OpBuilder arrive = first.getThenBodyBuilder();
      Value back = arith::SubIOp::create(arrive, loc, iteration, n);
      for (auto [group, slots] : groups)
        nvgpu::MBarrierArriveOp::create(arrive, loc, group,
                                        arith::RemUIOp::create(arrive, loc, back, slots));
      return SmallVector<Value>{};
    });
    region->setAttr(tessel::cuda::kSlotReleaseAttr, b.getUnitAttr());
  }
}

/// Pipelines `loop` over `stages` stages where its shape allows (otherwise it stays as it is,
/// its copies waited for in the same iteration); a failure only from the pipeliner itself.
LogicalResult pipeline(scf::ForOp loop, int64_t stages, int64_t maxSharedBytes) {
  Block *body = loop.getBody();
  SmallVector<Operation *> copies, commits, waits;
  for (Operation &op : body->without_terminator()) {
    if (op.hasAttr(kAsyncCopyAttr))
      copies.push_back(&op);
    else if (op.hasAttr(kAsyncCommitAttr))
      commits.push_back(&op);
    else if (op.hasAttr(kAsyncWaitAttr))
      waits.push_back(&op);
  }
  if (copies.empty() || commits.empty() || waits.empty())
    return success();
  // The pipeliner carries each loop value from the op of the body that yields it.
  for (Value yielded : body->getTerminator()->getOperands()) {
    Operation *def = yielded.getDefiningOp();
    if (!def || def->getBlock() != body)
      return success();
  }

  // Stage 0: the copies, the commits and what they need (pure ops, loop-carried values
  // computed by pure ops).
  llvm::SmallPtrSet<Operation *, 32> first;
  SmallVector<Operation *> work(copies.begin(), copies.end());
  llvm::append_range(work, commits);
  bool feasible = true;
  auto need = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != body || arg.getArgNumber() == 0)
        return;
      v = body->getTerminator()->getOperand(arg.getArgNumber() - 1);
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body) {
      if (!def && isa<BlockArgument>(v) && cast<BlockArgument>(v).getOwner() == body)
        feasible = false; // a loop-carried value passed through unchanged
      return;
    }
    if (first.contains(def))
      return;
    if (!isMemoryEffectFree(def))
      feasible = false;
    work.push_back(def);
  };
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!first.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      need(operand);
    visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *use) { need(use->get()); });
  }
  if (!feasible)
    return success();

  // The rest reads no memory stage 0 writes early and writes nothing stage 0 reads: the
  // tiles only read outside their copy, other writes only into tile buffers.
  SmallVector<std::pair<Value, Operation *>> tiles;
  for (Operation *copy : copies)
    for (Value tile : tilesOf(copy, loop)) {
      if (llvm::any_of(tiles, [&](auto &t) { return t.first == tile; }) ||
          !onlyReadElsewhere(tile, copy, loop))
        return success();
      tiles.push_back({tile, copy});
    }
  for (Operation &op : body->without_terminator())
    if (!first.contains(&op) && !writesOnlyAllocations(&op))
      return success();

  // A step on warpgroups whose every tile is one of these leaves its wgmma group in flight
  // while the next iteration's copies are issued (wait 1 instead of 0): its tiles get a slot
  // more, so the copies of iteration i + S - 1 go into the slot of iteration i - 2, which
  // every warpgroup has finished with at the barrier before them.
  llvm::SmallPtrSet<Value, 4> extraSlot;
  SmallVector<NVVM::WgmmaWaitGroupSyncOp> inFlight;
  int64_t fewestWarpgroups = 0;
  bool oneGroupReadsAccumulators = false;
  for (Operation &op : body->without_terminator()) {
    auto groups = op.getAttrOfType<IntegerAttr>(tessel::cuda::kWarpgroupStepAttr);
    if (!groups)
      continue;
    SmallVector<Value> read;
    bool pipelined = true;
    op.walk([&](memref::ExtractAlignedPointerAsIndexOp address) {
      Value tile = tessel::cuda::viewedBuffer(address.getSource());
      pipelined &= llvm::any_of(tiles, [&](auto &t) { return t.first == tile; });
      read.push_back(tile);
    });
    if (!pipelined || read.empty())
      continue;
    extraSlot.insert(read.begin(), read.end());
    // The step's own wait, after its commit (not one for an earlier step's group).
    op.walk([&](NVVM::WgmmaWaitGroupSyncOp wait) {
      if (waitsForOwnGroup(wait))
        inFlight.push_back(wait);
    });
    fewestWarpgroups = fewestWarpgroups ? std::min(fewestWarpgroups, groups.getInt())
                                        : groups.getInt();
    oneGroupReadsAccumulators |= groups.getInt() == 1 && readsAccumulatorsFirst(&op);
  }
  // Only where the loop's slots, with the extra ones, fit a block's shared memory (the tiles
  // start at 1024-byte boundaries): otherwise each step waits for its group. A step of one
  // warpgroup that reads its accumulators before its group (attention's P.V, whose next
  // iteration's other matmul waits for it anyway) gains little from the overlap and needs
  // several blocks an SM: its tiles with the extra slots may take a quarter of it at most
  // (measured on an H100, attention head dim 128, 64 x 64 blocks: the extra slot took a block
  // from 99 to 116 KB, one block an SM instead of two, 30% slower; head dim 64, 50 KB: 0 to
  // 4% faster).
  auto slots = [&](Value tile) { return stages + (extraSlot.contains(tile) ? 1 : 0); };
  int64_t budget = oneGroupReadsAccumulators ? maxSharedBytes / 4 : maxSharedBytes;
  if (maxSharedBytes > 0 && !extraSlot.empty()) {
    using tessel::cuda::kWarpgroupTileAlignment;
    int64_t bytes = kWarpgroupTileAlignment; // the arena's start rounded up at run time
    for (auto &[tile, copy] : tiles)
      bytes += llvm::alignTo(
          tessel::SharedAllocation::slotBytes(tile.getDefiningOp(), 1) * slots(tile),
          kWarpgroupTileAlignment);
    if (bytes > budget) {
      extraSlot.clear();
      inFlight.clear();
    }
  }

  // With the group in flight, at least 3 stages and steps on two warpgroups or more, an
  // iteration issues its copies (of iteration i + S - 1) after its step, while the tensor
  // cores run it: their slot (that of iteration i - 2) was released by every warpgroup's wait
  // at the end of step i - 1, before the barrier ahead of step i, so the copies need no
  // barrier of their own; still a whole iteration or more ahead of their use. The wait before
  // a step then leaves S - 2 iterations' groups pending. (Measured on an H200: 2 to 7% faster
  // with two warpgroups, 4 to 10% slower with one.)
  bool copiesAfterStep = !extraSlot.empty() && stages >= 3 && fewestWarpgroups >= 2;

  // Commit: the slots, the waits' depth, the pipeliner.
  for (auto &[tile, copy] : tiles)
    multiBuffer(tile, loop, slots(tile));
  for (NVVM::WgmmaWaitGroupSyncOp wait : inFlight)
    wait.setGroup(1);
  int32_t pending = int32_t(commits.size() * (stages - (copiesAfterStep ? 2 : 1)));
  for (Operation *wait : waits)
    wait->walk([&](NVVM::CpAsyncWaitGroupOp op) { op.setN(pending); });
  if (copiesAfterStep)
    for (Operation *copy : copies)
      copy->setAttr(tessel::cuda::kSlotsReleasedAttr, UnitAttr::get(loop.getContext()));

  releaseSlots(loop);
  scf::PipeliningOption options;
  options.getScheduleFn = [&](scf::ForOp forOp,
                              std::vector<std::pair<Operation *, unsigned>> &schedule) {
    auto add = [&](bool stage0) {
      for (Operation &op : forOp.getBody()->without_terminator())
        if (first.contains(&op) == stage0)
          schedule.push_back({&op, stage0 ? 0u : unsigned(stages - 1)});
    };
    add(/*stage0=*/!copiesAfterStep);
    add(/*stage0=*/copiesAfterStep);
  };
  options.supportDynamicLoops = true;
  options.peelEpilogue = false;
  // Early iterations' copies run only where the iteration exists: the copy region's body
  // under the predicate (the region stays where tessel-cuda-map-programs finds it). Commits
  // always run, so every iteration closes one group per commit.
  options.predicateFn = [](RewriterBase &rewriter, Operation *op, Value pred) -> Operation * {
    if (isMemoryEffectFree(op) || op->hasAttr(kAsyncCommitAttr))
      return op;
    if (!op->hasAttr(kAsyncCopyAttr))
      return nullptr;
    Block &entry = op->getRegion(0).front();
    OpBuilder in = OpBuilder::atBlockBegin(&entry);
    auto guard = scf::IfOp::create(in, op->getLoc(), pred, /*withElseRegion=*/false);
    Block *then = guard.thenBlock();
    SmallVector<Operation *> rest;
    for (Operation *op = guard->getNextNode(); op != entry.getTerminator(); op = op->getNextNode())
      rest.push_back(op);
    for (Operation *move : rest)
      move->moveBefore(then->getTerminator());
    return op;
  };
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  FailureOr<scf::ForOp> pipelined = scf::pipelineForLoop(rewriter, loop, options);
  if (failed(pipelined))
    return loop.emitError("pipelining the tile loads failed");
  // Every wait leaves the same number of groups pending: one that no commit precedes since the
  // wait before it (attention's wait for V after the one for K, both groups committed an
  // iteration ahead) waits for nothing more, and goes with its proxy fence (the first wait's
  // fence and the barrier after it cover what it read).
  bool committed = true;
  for (Operation &op : llvm::make_early_inc_range(pipelined->getBody()->without_terminator())) {
    if (op.hasAttr(kAsyncCommitAttr)) {
      committed = true;
    } else if (op.hasAttr(kAsyncWaitAttr)) {
      if (!committed)
        op.erase();
      committed = false;
    }
  }
  return success();
}

/// Where `loop`'s body has async-copy regions with fast paths (kCopyFastPathAttr), runs its
/// iterations while every fast path is taken in a copy of the loop where they are: an
/// scf.while from the lower bound whose condition evaluates the fast paths' conditions (the
/// pure ops computing them, cloned), then `loop` from where it stopped. The copy holds no
/// general path, so nothing that path computes is live (or hoisted) around it. Nothing
/// changes where a condition depends on more than pure ops of the iteration.
void runFastIterationsFirst(scf::ForOp loop) {
  Block *body = loop.getBody();
  SmallVector<scf::IfOp> fastIfs;
  body->walk([&](scf::IfOp op) {
    if (op->hasAttr(tessel::cuda::kCopyFastPathAttr))
      fastIfs.push_back(op);
  });
  if (fastIfs.empty())
    return;
  // Each fast path's condition where the ifs around it (inside the loop) lead to it.
  SmallVector<std::pair<Value, bool>> conditions; // (condition, whether it must hold)
  // Each fast path's conditions: conditions[first, end), its own the last.
  SmallVector<std::pair<size_t, size_t>> implications;
  for (scf::IfOp op : fastIfs) {
    size_t first = conditions.size();
    Operation *at = op;
    while (at->getParentOp() != loop) {
      Operation *parent = at->getParentOp();
      // Only ifs and regions run once an iteration between the loop and the fast path (a
      // loop in between could take it in some of its iterations and not in others).
      if (!isa<scf::IfOp, scf::ExecuteRegionOp>(parent))
        return;
      if (auto up = dyn_cast<scf::IfOp>(parent))
        conditions.push_back(
            {up.getCondition(), at->getParentRegion() == &up.getThenRegion()});
      at = parent;
    }
    conditions.push_back({op.getCondition(), true});
    implications.push_back({first, conditions.size()});
  }
  // The ops computing them: pure, without regions, no thread id, operands from the loop's
  // iteration or defined above it.
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work;
  for (auto &c : conditions)
    work.push_back(c.first);
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body)
        continue;
      if (loop->isAncestor(arg.getOwner()->getParentOp()))
        return;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isAncestor(def) || slice.contains(def))
      continue;
    if (!isMemoryEffectFree(def) || def->getNumRegions() || isa<gpu::ThreadIdOp>(def))
      return;
    slice.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  // In the order they run.
  SmallVector<Operation *> ordered;
  loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (slice.contains(op))
      ordered.push_back(op);
  });

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  SmallVector<Type> types{loop.getInductionVar().getType()};
  llvm::append_range(types, loop.getResultTypes());
  SmallVector<Value> inits{loop.getLowerBound()};
  llvm::append_range(inits, loop.getInitArgs());
  auto fast = scf::WhileOp::create(b, loc, types, inits);
  fast->setAttr(tessel::cuda::kFastIterationsAttr, b.getUnitAttr());
  SmallVector<Location> locs(types.size(), loc);
  Block *before = b.createBlock(&fast.getBefore(), {}, types, locs);
  Block *after = b.createBlock(&fast.getAfter(), {}, types, locs);
  auto mapIteration = [&](IRMapping &map, Block *block) {
    map.map(loop.getInductionVar(), block->getArgument(0));
    for (auto [arg, value] : llvm::zip(loop.getRegionIterArgs(), block->getArguments().drop_front()))
      map.map(arg, value);
  };
  {
    OpBuilder in = OpBuilder::atBlockEnd(before);
    IRMapping map;
    mapIteration(map, before);
    for (Operation *op : ordered)
      in.clone(*op, map);
    Value iv = before->getArgument(0);
    Value go = arith::CmpIOp::create(
        in, loc, loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, iv,
        loop.getUpperBound());
    Value trueValue = arith::ConstantIntOp::create(in, loc, 1, 1);
    for (auto [first, end] : implications) {
      // (every condition leading to the fast path) implies its own condition.
      Value reached = trueValue;
      for (size_t i = first; i + 1 < end; ++i) {
        Value c = map.lookupOrDefault(conditions[i].first);
        if (!conditions[i].second)
          c = arith::XOrIOp::create(in, loc, c, trueValue);
        reached = arith::AndIOp::create(in, loc, reached, c);
      }
      Value holds = arith::OrIOp::create(
          in, loc, arith::XOrIOp::create(in, loc, reached, trueValue),
          map.lookupOrDefault(conditions[end - 1].first));
      go = arith::AndIOp::create(in, loc, go, holds);
    }
    scf::ConditionOp::create(in, loc, go, before->getArguments());
  }
  {
    OpBuilder in = OpBuilder::atBlockEnd(after);
    IRMapping map;
    mapIteration(map, after);
    Value trueValue = arith::ConstantIntOp::create(in, loc, 1, 1);
    for (Operation &op : body->without_terminator())
      in.clone(op, map);
    llvm::SmallPtrSet<Operation *, 8> taken;
    for (scf::IfOp op : fastIfs) {
      auto copy = cast<scf::IfOp>(map.lookup(op.getOperation()));
      copy.getConditionMutable().assign(trueValue);
      taken.insert(copy);
    }
    SmallVector<Value> next{arith::AddIOp::create(in, loc, after->getArgument(0), loop.getStep())};
    for (Value v : body->getTerminator()->getOperands())
      next.push_back(map.lookupOrDefault(v));
    scf::YieldOp::create(in, loc, next);
    // Where the fast paths issue no cp.async (TMA's) and a producer warp issues them (so no
    // barrier in the copy orders the slots' reuse: TmaLoads::specialized), the copy's waits for
    // cp.async groups wait for nothing of its own: one wait for the loop's earlier groups (the
    // prologue's, which may have taken the copies) and a barrier before the copy instead, and
    // one after it (the rest of the loop's waits), so that no barrier in it is kept for them
    // (compiler/analysis/Membar.h counts a wait as writing every tile).
    std::function<bool(Region &)> issuesCopies = [&](Region &region) {
      for (Block &block : region)
        for (Operation &op : block) {
          if (isa<nvgpu::DeviceAsyncCopyOp, NVVM::CpAsyncOp>(op))
            return true;
          if (taken.contains(&op)) {
            if (issuesCopies(op.getRegion(0)))
              return true;
            continue;
          }
          for (Region &inner : op.getRegions())
            if (issuesCopies(inner))
              return true;
        }
      return false;
    };
    if (tessel::cuda::holdsWarpProducer(fast) && !issuesCopies(fast.getAfter())) {
      for (Operation &op : llvm::make_early_inc_range(after->without_terminator()))
        if (op.hasAttr(kAsyncWaitAttr))
          op.erase();
      OpBuilder before(fast);
      tessel::cuda::waitForAsyncCopies(before, loc, 0);
      gpu::BarrierOp::create(before, loc);
      OpBuilder afterLoop(fast->getBlock(), std::next(fast->getIterator()));
      gpu::BarrierOp::create(afterLoop, loc);
    }
  }
  // The rest of the iterations as they were.
  loop.getLowerBoundMutable().assign(fast.getResult(0));
  loop.getInitArgsMutable().assign(fast.getResults().drop_front());
}

struct CudaPipelineTileLoads
    : tessel::impl::CudaPipelineTileLoadsBase<CudaPipelineTileLoads> {
  using Base::Base;
  void runOnOperation() override {
    if (numStages < 1 || numStages > 8) {
      getOperation().emitError() << "num-stages must be 1 to 8, got " << numStages;
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    // The pipeliner carries each loop value from an op of the body: iter_args a loop yields
    // unchanged (tessel-cuda-tensor-core-dots leaves them where registers carry what a buffer
    // did) go first, as canonicalization would drop them (scf.for's patterns, which replace
    // the loop: the loops are collected again after). All such loops in one rewrite: one
    // loop's rewrite may replace another loop of the list (attention's second loop, whose init
    // values are the first's results), which the driver then drops from its worklist.
    RewritePatternSet passThrough(&getContext());
    scf::ForOp::getCanonicalizationPatterns(passThrough, &getContext());
    FrozenRewritePatternSet frozen(std::move(passThrough));
    SmallVector<Operation *> passing;
    for (scf::ForOp loop : loops) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      if (numStages > 1 && llvm::any_of(llvm::enumerate(yield.getOperands()), [&](auto yielded) {
            return yielded.value() == loop.getRegionIterArg(yielded.index());
          }))
        passing.push_back(loop);
    }
    if (!passing.empty()) {
      (void)applyOpPatternsGreedily(passing, frozen);
      loops.clear();
      getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    }
    for (scf::ForOp loop : loops)
      if (numStages > 1 && failed(pipeline(loop, numStages, maxSharedBytes)))
        return signalPassFailure();
    // Loops left unpipelined release their slots too (pipelined ones did before the
    // pipeliner, which carries the regions).
    loops.clear();
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      releaseSlots(loop);
    // The K loops of matmuls on warpgroups whose copies are asynchronous (only those are
    // measured and checked on a GPU so far; not attention's, whose P.V step reads the
    // accumulators it carries), and not where the body allocates a buffer: such
    // a buffer may be carried into the next iteration, and tessel-cuda-map-programs gives it
    // two places taken in turns by an scf.for's iterations only (the zoo's attention, whose
    // loop carries its row statistics and accumulator in buffers allocated in the body,
    // computed wrong results with its loop split).
    loops.clear();
    getOperation().walk([&](scf::ForOp loop) {
      auto has = [&](StringRef attr) {
        return llvm::any_of(loop.getBody()->getOperations(),
                            [&](Operation &op) { return op.hasAttr(attr); });
      };
      bool allocates = loop.getBody()
                           ->walk([](memref::AllocOp) { return WalkResult::interrupt(); })
                           .wasInterrupted();
      bool rescaled = llvm::any_of(loop.getBody()->getOperations(), [](Operation &op) {
        return op.hasAttr(tessel::cuda::kWarpgroupStepAttr) && readsAccumulatorsFirst(&op);
      });
      if (has(kAsyncCopyAttr) && has(tessel::cuda::kWarpgroupStepAttr) && !allocates &&
          !rescaled)
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      runFastIterationsFirst(loop);
  }
};

} // namespace
