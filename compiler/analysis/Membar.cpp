//===- Membar.cpp - which block barriers order conflicting memory accesses -*- C++ -*-===//
//
// See Membar.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/Membar.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace tessel {
namespace {

enum class Space { Shared, Private, Global };

Space spaceOf(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  Attribute space = memref ? memref.getMemorySpace() : Attribute();
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space)) {
    if (gpuSpace.getValue() == gpu::AddressSpace::Workgroup)
      return Space::Shared;
    if (gpuSpace.getValue() == gpu::AddressSpace::Private)
      return Space::Private;
  }
  if (auto number = dyn_cast_or_null<IntegerAttr>(space)) {
    if (number.getInt() == 3)
      return Space::Shared;
    if (number.getInt() == 5)
      return Space::Private;
  }
  return Space::Global;
}

/// What a run of ops reads and writes: shared buffers by identity (or all of them), global
/// memory as one.
struct Accesses {
  llvm::DenseSet<const void *> reads, writes;
  bool readsAllShared = false, writesAllShared = false;
  bool readsGlobal = false, writesGlobal = false;

  void all() { readsAllShared = writesAllShared = readsGlobal = writesGlobal = true; }

  void add(Value memref, bool write) {
    // The buffer: through views and casts; shared or private if any type on the way says so.
    Value v = memref;
    bool shared = false, priv = false;
    const void *buffer = nullptr;
    while (true) {
      Space s = spaceOf(v.getType());
      shared |= s == Space::Shared;
      priv |= s == Space::Private;
      Operation *def = v.getDefiningOp();
      if (auto view = dyn_cast_or_null<ViewLikeOpInterface>(def)) {
        v = view.getViewSource();
        continue;
      }
      if (isa_and_nonnull<memref::CastOp, memref::MemorySpaceCastOp>(def)) {
        v = def->getOperand(0);
        continue;
      }
      if (isa_and_nonnull<gpu::DynamicSharedMemoryOp>(def))
        buffer = v.getAsOpaquePointer();
      else if (auto arg = dyn_cast<BlockArgument>(v);
               arg && isa_and_nonnull<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
        buffer = v.getAsOpaquePointer(); // a workgroup attribution (or a kernel argument)
      else if (auto global = dyn_cast_or_null<memref::GetGlobalOp>(def))
        buffer = global.getNameAttr().getAsOpaquePointer();
      else if (isa_and_nonnull<memref::AllocaOp>(def))
        priv = true;
      break;
    }
    if (priv && !shared)
      return;
    if (!shared) {
      (write ? writesGlobal : readsGlobal) = true;
      return;
    }
    // A shared value of unknown origin (a select, a loop value) may be any shared buffer.
    if (!buffer) {
      (write ? writesAllShared : readsAllShared) = true;
      return;
    }
    (write ? writes : reads).insert(buffer);
  }

  /// Everything `op` and the ops inside it access.
  void addOp(Operation *op) {
    op->walk([&](Operation *inner) {
      if (isa<gpu::BarrierOp>(inner) || isMemoryEffectFree(inner) ||
          isa<NVVM::MmaOp, NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp>(inner))
        return;
      // Synchronization that needs no barrier: an mbarrier's arrivals and waits are atomic
      // operations on it (its init is a write, below), fences, a warp's barrier and the
      // commit of a thread's cp.async group touch no memory (the copies write where they are
      // issued, and a wait for them counts as writing every tile: below, undeclared).
      if (isa<nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveNoCompleteOp,
              nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTryWaitParityOp,
              nvgpu::MBarrierTestWaitOp, NVVM::FenceProxyOp, NVVM::SyncWarpOp,
              NVVM::CpAsyncCommitGroupOp>(inner))
        return;
      if (isa<NVVM::WgmmaMmaAsyncOp, NVVM::WgmmaWaitGroupSyncOp>(inner) ||
          (isa<LLVM::InlineAsmOp>(inner) && inner->hasAttr(kRegistersOnlyAttr))) {
        readsAllShared = true;
        return;
      }
      if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return; // its ops are visited
      auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
      if (!effects) {
        all();
        return;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &e : list) {
        bool read = isa<MemoryEffects::Read>(e.getEffect());
        bool write = isa<MemoryEffects::Write>(e.getEffect());
        if (!read && !write)
          continue; // allocation and free of a buffer order nothing between threads
        Value target = e.getValue();
        if (!target || !isa<BaseMemRefType>(target.getType())) {
          all();
          return;
        }
        add(target, write);
      }
    });
  }

  bool conflictsWith(const Accesses &after) const {
    if ((writesGlobal && (after.readsGlobal || after.writesGlobal)) ||
        (readsGlobal && after.writesGlobal))
      return true;
    auto touches = [](const Accesses &a, const void *buffer, bool writeOnly) {
      if (a.writesAllShared || a.writes.contains(buffer))
        return true;
      return !writeOnly && (a.readsAllShared || a.reads.contains(buffer));
    };
    // A write before and any access after, or a read before and a write after.
    if (writesAllShared && (after.readsAllShared || after.writesAllShared ||
                            !after.reads.empty() || !after.writes.empty()))
      return true;
    if (readsAllShared && (after.writesAllShared || !after.writes.empty()))
      return true;
    for (const void *w : writes)
      if (touches(after, w, /*writeOnly=*/false))
        return true;
    for (const void *r : reads)
      if (touches(after, r, /*writeOnly=*/true))
        return true;
    return false;
  }
};

/// Accumulates the ops from `op` on (inclusive) towards the block's start (`backward`) or
/// end, stopping at a barrier; returns whether it stopped at one.
bool scanFrom(Operation *op, bool backward, Accesses &acc) {
  for (; op; op = backward ? op->getPrevNode() : op->getNextNode()) {
    if (isa<gpu::BarrierOp>(op))
      return true;
    acc.addOp(op);
  }
  return false;
}

/// The accesses between `barrier` and the previous (`backward`) or next barrier on every path.
Accesses scan(Operation *barrier, bool backward) {
  Accesses acc;
  auto step = [&](Operation *op) { return backward ? op->getPrevNode() : op->getNextNode(); };
  if (scanFrom(step(barrier), backward, acc))
    return acc;
  llvm::SmallPtrSet<Operation *, 8> wrapped;
  for (Operation *at = barrier;;) {
    // Branches between blocks (gpu.all_reduce's lowering makes them) are not followed: any
    // access may come from the other blocks.
    if (!at->getBlock()->getParent()->hasOneBlock()) {
      acc.all();
      return acc;
    }
    Operation *parent = at->getParentOp();
    if (!parent || isa<FunctionOpInterface>(parent))
      return acc;
    auto whileLoop = dyn_cast<scf::WhileOp>(parent);
    bool whileBody = whileLoop && at->getParentRegion() == &whileLoop.getAfter();
    if (isa<scf::ForOp>(parent) || whileBody) {
      // The other end of the body: the previous or next iteration, up to a barrier there (an
      // scf.while's through its condition region, which runs between them).
      if (wrapped.insert(parent).second) {
        if (whileBody)
          for (Operation &op : whileLoop.getBefore().front().without_terminator())
            acc.addOp(&op);
        Block *body = at->getBlock();
        (void)scanFrom(backward ? body->getTerminator() : &body->front(), backward, acc);
      }
    } else if (isa<LoopLikeOpInterface>(parent)) {
      acc.addOp(parent); // other loops: all of them
    }
    // Out of the op holding the block: the code around it.
    at = parent;
    if (scanFrom(step(at), backward, acc))
      return acc;
  }
}

} // namespace

bool barrierNeeded(gpu::BarrierOp barrier) {
  Accesses before = scan(barrier, /*backward=*/true);
  Accesses after = scan(barrier, /*backward=*/false);
  return before.conflictsWith(after);
}

int removeRedundantBarriers(FunctionOpInterface func) {
  SmallVector<gpu::BarrierOp> barriers;
  func->walk([&](gpu::BarrierOp b) { barriers.push_back(b); });
  int removed = 0;
  for (gpu::BarrierOp b : barriers)
    if (!barrierNeeded(b)) {
      b.erase();
      ++removed;
    }
  return removed;
}

} // namespace tessel
