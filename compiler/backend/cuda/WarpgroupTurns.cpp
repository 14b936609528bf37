//===- WarpgroupTurns.cpp - warpgroups issue a loop's tensor-core work in turns -*- C++ -*-===//
//
// See Passes.td (CudaWarpgroupTurns). In attention's key loop each warpgroup issues Q.K^T,
// waits for it, runs the softmax on the scores (MUFU and FP32 work, no tensor cores), then
// issues P.V. Started together, the warpgroups' Q.K^T products interleave on the tensor cores
// and finish together, so all softmaxes run at once while the tensor cores idle. Taking turns
// at the first issue of an iteration orders the products warpgroup by warpgroup: the first
// warpgroup's scores are ready while the others' products still run, and each softmax
// overlaps the tensor-core work of the other warpgroups (FlashAttention-3's inter-warpgroup
// overlap). With G warpgroups, warpgroup g waits at named barrier 1 + g (256 threads: its own
// 128 and warpgroup g - 1's) before that issue and arrives at barrier 1 + (g + 1) mod G after
// it; the last warpgroup arrives at barrier 1 once before the loop, the first waits there once
// after it, followed by a block barrier, so every barrier is balanced whatever the trip count
// and however many such loops run one after another. Loops nested in one another that both
// qualify are left alone. A warpgroup waits only for the previous one's issue, never for its
// completion.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDAWARPGROUPTURNS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {

constexpr int64_t kWarpgroupThreads = 128;

/// Whether every thread of the block computes the same `v`: made of the kernel's arguments,
/// block ids, constants and loads, and induction variables of loops with such bounds, never of
/// a thread id or a region's result (conservatively: not known to be uniform).
class Uniformity {
public:
  bool uniform(Value v) {
    if (auto it = known_.find(v); it != known_.end())
      return it->second;
    known_[v] = false; // cycles through loop-carried values are not uniform
    bool result = compute(v);
    known_[v] = result;
    return result;
  }

  bool uniformLoop(scf::ForOp loop) {
    return uniform(loop.getLowerBound()) && uniform(loop.getUpperBound()) &&
           uniform(loop.getStep());
  }

private:
  bool compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<gpu::GPUFuncOp>(owner))
        return true;
      if (auto loop = dyn_cast<scf::ForOp>(owner))
        return arg == loop.getInductionVar() && uniformLoop(loop);
      return false;
    }
    Operation *def = v.getDefiningOp();
    if (isa<gpu::BlockIdOp, gpu::GridDimOp, gpu::BlockDimOp>(def))
      return true;
    // Thread, lane, subgroup or global ids and special registers; regions; atomics and other
    // ops with effects but plain loads.
    if (isa<gpu::GPUDialect, NVVM::NVVMDialect>(def->getDialect()) ||
        def->getNumRegions() != 0 ||
        (!isMemoryEffectFree(def) && !isa<memref::LoadOp, vector::LoadOp>(def)))
      return false;
    return llvm::all_of(def->getOperands(), [&](Value o) { return uniform(o); });
  }

  llvm::DenseMap<Value, bool> known_;
};

/// The first issue of `loop`'s iterations where they qualify: its fence and the commit that
/// ends that group, in one block that only execute_regions separate from the loop's body, in a
/// loop that issues at least two groups an iteration (a chain of products with other work
/// between them) and that every thread of the block runs alike. Ops of loops nested in it
/// count for those loops only.
std::optional<std::pair<Operation *, Operation *>> firstIssue(scf::ForOp loop,
                                                              Uniformity &uniformity) {
  Operation *fence = nullptr;
  int64_t commits = 0;
  loop.getBody()->walk([&](Operation *op) {
    if (op->getParentOfType<scf::ForOp>() != loop)
      return;
    if (isa<NVVM::WgmmaFenceAlignedOp>(op) && !fence)
      fence = op;
    if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op))
      ++commits;
  });
  if (commits < 2 || !fence)
    return std::nullopt;
  Operation *commit = nullptr;
  for (Operation *op = fence->getNextNode(); op && !commit; op = op->getNextNode())
    if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op))
      commit = op;
  if (!commit)
    return std::nullopt;
  for (Operation *p = fence->getParentOp(); p != loop; p = p->getParentOp())
    if (!isa<scf::ExecuteRegionOp>(p))
      return std::nullopt;
  // Every thread reaches the loop and runs its iterations alike.
  if (!uniformity.uniformLoop(loop))
    return std::nullopt;
  for (Operation *p = loop->getParentOp(); !isa<gpu::GPUFuncOp>(p); p = p->getParentOp()) {
    if (auto outer = dyn_cast<scf::ForOp>(p)) {
      if (!uniformity.uniformLoop(outer))
        return std::nullopt;
    } else if (auto branch = dyn_cast<scf::IfOp>(p)) {
      if (!uniformity.uniform(branch.getCondition()))
        return std::nullopt;
    } else if (!isa<scf::ExecuteRegionOp>(p)) {
      return std::nullopt;
    }
  }
  return std::make_pair(fence, commit);
}

struct CudaWarpgroupTurns : tessel::impl::CudaWarpgroupTurnsBase<CudaWarpgroupTurns> {
  using CudaWarpgroupTurnsBase::CudaWarpgroupTurnsBase;

  void runOnOperation() override {
    if (warpgroups < 2)
      return;
    if (warpgroups > 15) {
      getOperation().emitError("tessel-cuda-warpgroup-turns: at most 15 warpgroups (named "
                               "barriers 1..15)");
      return signalPassFailure();
    }
    getOperation().walk([&](gpu::GPUFuncOp func) {
      Uniformity uniformity;
      SmallVector<std::pair<scf::ForOp, std::pair<Operation *, Operation *>>> loops;
      func.walk([&](scf::ForOp loop) {
        if (auto issue = firstIssue(loop, uniformity))
          loops.push_back({loop, *issue});
      });
      // Nested loops that both qualify would share the barriers: neither takes turns.
      for (auto &[loop, issue] : loops)
        if (llvm::none_of(loops, [&](auto &other) {
              return other.first != loop && (other.first->isAncestor(loop) ||
                                             loop->isAncestor(other.first));
            }))
          takeTurns(loop, issue.first, issue.second);
    });
  }

  void takeTurns(scf::ForOp loop, Operation *fence, Operation *commit) {
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    auto i32 = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); };
    Value tid = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                           gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
    Value group = arith::DivUIOp::create(b, loc, tid, i32(kWarpgroupThreads));
    Value pair = i32(2 * kWarpgroupThreads);
    Value first = i32(1);
    Value mine = arith::AddIOp::create(b, loc, group, first);
    Value next = arith::AddIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, mine, i32(warpgroups)), first);
    auto onlyGroup = [&](int64_t g, auto body) {
      Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, group, i32(g));
      auto branch = scf::IfOp::create(b, loc, is, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
      body();
    };
    // The first warpgroup's first turn.
    onlyGroup(warpgroups - 1, [&] { NVVM::BarrierArriveOp::create(b, loc, first, pair); });
    b.setInsertionPoint(fence);
    NVVM::BarrierOp::create(b, loc, TypeRange{}, mine, pair, /*reductionOp=*/{}, Value{});
    b.setInsertionPointAfter(commit);
    NVVM::BarrierArriveOp::create(b, loc, next, pair);
    // The last warpgroup's last arrival, taken; then a block barrier, so that no warpgroup
    // arrives for a later loop's (or a later run of this one's) first turn before the first
    // warpgroup has taken this one's last arrival (two arrivals in a row would complete
    // barrier 1 without it).
    b.setInsertionPointAfter(loop);
    onlyGroup(0, [&] {
      NVVM::BarrierOp::create(b, loc, TypeRange{}, first, pair, /*reductionOp=*/{}, Value{});
    });
    gpu::BarrierOp::create(b, loc);
  }
};

} // namespace
