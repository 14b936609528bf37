//===- WarpSpecialize.cpp - a producer warp issues a kernel's TMA loads -*- C++ -*-===//
//
// See Passes.td (CudaWarpSpecialize). The consumers' program is the kernel as the block
// mapping left it, less the producer's regions; each producer warp's is a copy of it keeping
// only its tiles' regions and what they need: every other op that touches memory is dropped (its
// results become poison), and canonicalization removes what nothing needs any more (the
// tensor-core work, the accumulators the loops carried, the epilogue). What the producer's
// regions still need must not come from a dropped op: that would be a value only the
// consumers compute, and the kernel is refused.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/Membar.h"
#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/Passes.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDAWARPSPECIALIZE
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {

/// The named barrier the consumer warps synchronize at (warpgroup turns use 1 to 4).
constexpr int64_t kConsumerBarrier = 5;
/// The producer: a warpgroup (setmaxnreg works on whole warpgroups), of which the first warp
/// runs the producer's program and the others only give their registers back.
constexpr int64_t kProducerThreads = 128;
/// Registers a thread of the producer keeps (measured on an H100, bf16 4096^3, 128 x 256 x 64
/// tiles: 40 left the producer spilling and the consumers waiting for data, 0.274 ms; 56
/// 0.256; 72 0.248; 88 0.250).
constexpr int64_t kProducerRegisters = 72;
/// A block's registers (an SM's 64K, one block an SM).
constexpr int64_t kBlockRegisters = 65536;
/// Marks the one block barrier every thread of the block passes (after the mbarriers' init).
constexpr llvm::StringLiteral kWholeBlockAttr = "tessel.whole_block";

Value cst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Whether a value the producer's regions need, directly or through the ops and loop values it
/// is made of, is poison (an op only the consumers run made it).
class PoisonCheck {
public:
  bool needed(Value v) {
    if (!seen_.insert(v).second)
      return false;
    if (auto result = dyn_cast<OpResult>(v)) {
      Operation *def = result.getOwner();
      if (isa<ub::PoisonOp>(def))
        return true;
      unsigned i = result.getResultNumber();
      if (auto loop = dyn_cast<scf::ForOp>(def))
        return needed(loop.getRegionIterArg(i)) || bounds(loop);
      if (auto loop = dyn_cast<scf::WhileOp>(def)) {
        auto condition = loop.getConditionOp();
        return needed(condition.getCondition()) || needed(condition.getArgs()[i]);
      }
      if (auto branch = dyn_cast<scf::IfOp>(def)) {
        if (needed(branch.getCondition()))
          return true;
        for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
          if (!r->empty() && needed(r->front().getTerminator()->getOperand(i)))
            return true;
        return false;
      }
      // Anything else: all it is made of, and all its regions yield.
      for (Value operand : def->getOperands())
        if (needed(operand))
          return true;
      for (Region &r : def->getRegions())
        for (Block &block : r)
          if (Operation *end = block.empty() ? nullptr : &block.back();
              end && end->hasTrait<OpTrait::IsTerminator>())
            for (Value operand : end->getOperands())
              if (needed(operand))
                return true;
      return usedInside(def->getRegions());
    }
    auto arg = cast<BlockArgument>(v);
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (arg == loop.getInductionVar())
        return bounds(loop);
      unsigned i = arg.getArgNumber() - 1;
      return bounds(loop) || needed(loop.getInitArgs()[i]) ||
             needed(loop.getBody()->getTerminator()->getOperand(i));
    }
    if (auto loop = dyn_cast<scf::WhileOp>(owner)) {
      unsigned i = arg.getArgNumber();
      if (arg.getOwner() == loop.getBeforeBody())
        return needed(loop.getInits()[i]) || needed(loop.getYieldOp().getOperand(i));
      auto condition = loop.getConditionOp();
      return needed(condition.getCondition()) || needed(condition.getArgs()[i]);
    }
    if (isa<gpu::GPUFuncOp>(owner))
      return false;
    for (Value operand : owner->getOperands())
      if (needed(operand))
        return true;
    return false;
  }

  /// What runs `op`: the loops and conditions around it, up to `top`.
  bool around(Operation *op, Operation *top) {
    for (Operation *up = op->getParentOp(); up && up != top; up = up->getParentOp()) {
      if (auto loop = dyn_cast<scf::ForOp>(up); loop && bounds(loop))
        return true;
      if (auto branch = dyn_cast<scf::IfOp>(up); branch && needed(branch.getCondition()))
        return true;
      if (auto loop = dyn_cast<scf::WhileOp>(up);
          loop && needed(loop.getConditionOp().getCondition()))
        return true;
    }
    return false;
  }

  bool usedInside(MutableArrayRef<Region> regions) {
    bool poisoned = false;
    visitUsedValuesDefinedAbove(regions, [&](OpOperand *use) { poisoned |= needed(use->get()); });
    return poisoned;
  }

private:
  bool bounds(scf::ForOp loop) {
    return needed(loop.getLowerBound()) || needed(loop.getUpperBound()) ||
           needed(loop.getStep());
  }
  llvm::DenseSet<Value> seen_;
};

struct CudaWarpSpecialize : tessel::impl::CudaWarpSpecializeBase<CudaWarpSpecialize> {
  using Base::Base;

  /// The canonicalization patterns, made once: they clean up every producer's copy.
  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    canonical_ = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override {
    SmallVector<gpu::GPUFuncOp> kernels;
    getOperation().walk([&](gpu::GPUFuncOp f) {
      if (f.isKernel())
        kernels.push_back(f);
    });
    for (gpu::GPUFuncOp kernel : kernels)
      if (failed(specialize(kernel)))
        return signalPassFailure();
  }

  LogicalResult specialize(gpu::GPUFuncOp kernel) {
    MLIRContext *ctx = &getContext();
    int64_t consumers = consumerWarps * 32;
    if (!tessel::cuda::holdsWarpProducer(kernel))
      return kernel.emitError()
             << "warp specialization: kernel " << kernel.getName()
             << " loads no tile by TMA, so a producer warp would have nothing to issue "
                "(warp_specialize needs tma=1 and a tensor-core matmul whose operand tiles "
                "are copied in its K loop)";
    // Every slot a producer waits for must be released by the consumers (after the steps
    // on warpgroups that read it: tessel-cuda-pipeline-tile-loads); one whose readers are
    // not such steps (attention's, whose loops the pipeliner leaves) would hang the kernel.
    llvm::SmallPtrSet<Value, 4> waited, released;
    kernel.walk([&](scf::ExecuteRegionOp r) {
      if (r->hasAttr(tessel::cuda::kWarpProducerAttr))
        r.walk([&](nvgpu::MBarrierTryWaitParityOp w) { waited.insert(w.getBarriers()); });
      if (r->hasAttr(tessel::cuda::kSlotReleaseAttr))
        r.walk([&](nvgpu::MBarrierArriveOp a) { released.insert(a.getBarriers()); });
    });
    for (Value group : waited)
      if (!released.contains(group))
        return kernel.emitError()
               << "warp specialization: kernel " << kernel.getName()
               << " has a TMA tile whose slots the computing warps never release (its "
                  "readers are not the K steps of a matmul on warpgroups; attention's are "
                  "not supported)";
    if (!kernel.getBody().hasOneBlock())
      return kernel.emitError() << "warp specialization of a kernel with several blocks (a "
                                   "block-wide reduction) is not built";
    int64_t threads = consumers + kProducerThreads;
    kernel.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, {int32_t(threads), 1, 1}));
    // Each thread starts with the registers an SM's file gives a block of `threads` (ptxas
    // allocates 8 at a time), pinned with .maxnreg; the producer gives most of its own back
    // and the consumers take them (setmaxnreg). A block of 256 threads already has all a
    // thread may address (255).
    int64_t launch = std::min<int64_t>(kBlockRegisters / threads / 8 * 8, 255);
    int64_t more = (launch - kProducerRegisters) * kProducerThreads / consumers / 8 * 8;
    bool moveRegisters = launch < 248 && more >= 8;
    int64_t consumerRegisters = std::min<int64_t>(launch / 8 * 8 + more, 256);
    if (moveRegisters)
      kernel->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 32), launch));
    Block &entry = kernel.getBody().front();
    Location loc = kernel.getLoc();

    // The mbarriers, made and initialized once by thread 0 before the warps part, then a
    // barrier of the whole block (the producer waits on them too).
    SmallVector<nvgpu::MBarrierCreateOp> creates;
    SmallVector<nvgpu::MBarrierInitOp> inits;
    kernel.walk([&](nvgpu::MBarrierCreateOp c) { creates.push_back(c); });
    kernel.walk([&](nvgpu::MBarrierInitOp i) { inits.push_back(i); });
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    for (nvgpu::MBarrierCreateOp c : creates) {
      if (c->getBlock() != &entry)
        return c.emitError() << "warp specialization: an mbarrier made inside control flow";
      c->moveBefore(tid.getDefiningOp());
    }
    auto firstThread = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, cst(b, loc, 0)),
        /*withElseRegion=*/false);
    {
      OpBuilder in = firstThread.getThenBodyBuilder();
      for (nvgpu::MBarrierInitOp init : inits) {
        std::optional<int64_t> count = getConstantIntValue(init.getCount());
        std::optional<int64_t> index = getConstantIntValue(init.getMbarId());
        if (!count || !index || !init.getBarriers().getDefiningOp<nvgpu::MBarrierCreateOp>())
          return init.emitError()
                 << "warp specialization: an mbarrier initialized with a count or index not "
                    "known at compile time";
        nvgpu::MBarrierInitOp::create(in, loc, init.getBarriers(), cst(in, loc, *count),
                                      cst(in, loc, *index), Value());
        init.erase();
      }
    }
    auto whole = gpu::BarrierOp::create(b, loc);
    whole->setAttr(kWholeBlockAttr, UnitAttr::get(ctx));

    // The warps part: the consumers run the kernel, the producer warps their copies of it.
    SmallVector<Operation *> rest;
    for (Operation *op = whole->getNextNode(); op != entry.getTerminator(); op = op->getNextNode())
      rest.push_back(op);
    b.setInsertionPoint(entry.getTerminator());
    auto split = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, cst(b, loc, consumers)),
        /*withElseRegion=*/true);
    Block *consumer = split.thenBlock();
    for (Operation *op : rest)
      op->moveBefore(consumer->getTerminator());
    auto setRegisters = [&](OpBuilder &at, int64_t count, NVVM::SetMaxRegisterAction action) {
      if (moveRegisters)
        NVVM::SetMaxRegisterOp::create(at, loc, int32_t(count), action);
    };
    OpBuilder atElse = split.getElseBodyBuilder();
    setRegisters(atElse, kProducerRegisters, NVVM::SetMaxRegisterAction::decrease);
    // The tiles' loads spread over the producer's warps (tile t on warp t mod 4), each warp
    // running its own copy of the kernel with its tiles' regions only, its thread ids shifted
    // so that its first lane is the thread the regions name (the kernel's `consumers`).
    llvm::SmallSetVector<int64_t, 4> tiles;
    kernel.walk([&](scf::ExecuteRegionOp r) {
      if (auto t = r->getAttrOfType<IntegerAttr>(tessel::cuda::kWarpProducerAttr))
        tiles.insert(t.getInt());
    });
    SmallVector<int64_t> order(tiles.begin(), tiles.end());
    llvm::sort(order);
    int64_t warps = std::min<int64_t>(int64_t(order.size()), kProducerThreads / 32);
    Value warp = arith::DivUIOp::create(atElse, loc, tid, cst(atElse, loc, 32));
    SmallVector<std::pair<Block *, scf::IfOp>> producers;
    for (int64_t w = 0; w < warps; ++w) {
      auto producerWarp = scf::IfOp::create(
          atElse, loc,
          arith::CmpIOp::create(atElse, loc, arith::CmpIPredicate::eq, warp,
                                cst(atElse, loc, consumers / 32 + w)),
          /*withElseRegion=*/false);
      Block *producer = producerWarp.thenBlock();
      OpBuilder in(producer->getTerminator());
      Value shifted = arith::SubIOp::create(in, loc, tid, cst(in, loc, 32 * w));
      IRMapping map;
      for (Operation &op : consumer->without_terminator())
        in.clone(op, map);
      SmallVector<Operation *> others;
      producer->walk([&](scf::ExecuteRegionOp r) {
        auto t = r->getAttrOfType<IntegerAttr>(tessel::cuda::kWarpProducerAttr);
        if (t && (llvm::find(order, t.getInt()) - order.begin()) % warps != w)
          others.push_back(r);
      });
      for (Operation *op : others)
        op->erase();
      SmallVector<gpu::ThreadIdOp> ids;
      producer->walk([&](gpu::ThreadIdOp id) {
        if (id.getDimension() == gpu::Dimension::x)
          ids.push_back(id);
      });
      for (gpu::ThreadIdOp id : ids) {
        id.getResult().replaceAllUsesWith(shifted);
        id.erase();
      }
      producers.push_back({producer, producerWarp});
    }
    {
      OpBuilder in = OpBuilder::atBlockBegin(consumer);
      setRegisters(in, consumerRegisters, NVVM::SetMaxRegisterAction::increase);
    }
    // The consumers: without the producer's regions.
    SmallVector<Operation *> producerOnly;
    consumer->walk([&](scf::ExecuteRegionOp r) {
      if (r->hasAttr(tessel::cuda::kWarpProducerAttr))
        producerOnly.push_back(r);
    });
    for (Operation *op : producerOnly)
      op->erase();
    for (auto [producer, producerWarp] : producers)
      if (failed(strip(producer, producerWarp)))
        return failure();

    // The consumers' barriers where they order conflicting accesses (the fast K loop's, which
    // kept the slots from being overwritten while read, is the mbarriers' work now), the rest
    // among the consumers only.
    tessel::removeRedundantBarriers(kernel);
    SmallVector<gpu::BarrierOp> barriers;
    consumer->walk([&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
    for (gpu::BarrierOp barrier : barriers) {
      OpBuilder at(barrier);
      Type i32 = at.getI32Type();
      NVVM::BarrierOp::create(at, barrier.getLoc(), TypeRange{},
                              arith::ConstantIntOp::create(at, loc, i32, kConsumerBarrier),
                              arith::ConstantIntOp::create(at, loc, i32, consumers),
                              /*reductionOp=*/{}, Value{});
      barrier.erase();
    }
    return success();
  }

  /// Keeps of `producer` (the then block of `split`) its producer regions and what they need.
  LogicalResult strip(Block *producer, scf::IfOp split) {
    // A K loop's fast iterations (they evaluate every copy's condition once more) run in the
    // loop after them, which evaluates each copy's own.
    SmallVector<scf::WhileOp> fast;
    producer->walk([&](scf::WhileOp loop) {
      if (loop->hasAttr(tessel::cuda::kFastIterationsAttr))
        fast.push_back(loop);
    });
    for (scf::WhileOp loop : fast) {
      loop.replaceAllUsesWith(loop.getInits());
      loop.erase();
    }
    SmallVector<Operation *> drop;
    producer->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op->hasAttr(tessel::cuda::kWarpProducerAttr))
        return WalkResult::skip();
      if (op->hasTrait<OpTrait::IsTerminator>())
        return WalkResult::advance();
      if (isa<gpu::BarrierOp>(op)) {
        drop.push_back(op);
        return WalkResult::skip();
      }
      if (op->getNumRegions() && tessel::cuda::holdsWarpProducer(op))
        return WalkResult::advance();
      if (!isMemoryEffectFree(op))
        drop.push_back(op);
      return WalkResult::skip();
    });
    for (Operation *op : drop) {
      OpBuilder at(op);
      for (OpResult r : op->getResults())
        r.replaceAllUsesWith(ub::PoisonOp::create(at, op->getLoc(), r.getType()));
      op->erase();
    }
    // What nothing needs any more goes.
    (void)applyPatternsGreedily(split.getThenRegion(), canonical_);

    PoisonCheck check;
    bool poisoned = false;
    split.getThenRegion().walk([&](scf::ExecuteRegionOp r) {
      if (!r->hasAttr(tessel::cuda::kWarpProducerAttr))
        return;
      poisoned |= check.usedInside(r->getRegions()) || check.around(r, split);
    });
    if (poisoned)
      return split.emitError()
             << "warp specialization: the producer's TMA loads depend on a value only the "
                "consumer warps compute (loaded or made by an op with memory effects)";
    return success();
  }

  FrozenRewritePatternSet canonical_;
};

} // namespace
