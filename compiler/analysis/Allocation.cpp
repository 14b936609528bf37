//===- Allocation.cpp - shared-memory offsets of tile buffers over the call graph -*- C++ -*-===//
//
// See Allocation.h. Placement is first fit, largest buffers first: each buffer takes the lowest
// aligned offset that overlaps no buffer already placed whose lifetime overlaps its own.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/Allocation.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>
#include <limits>

using namespace mlir;

namespace tessel {
namespace {

/// A tile buffer: what tessel-cuda-map-programs places in shared memory (static shape, no
/// layout or memory space, not one iteration's private buffer of a parallel loop).
bool isTileBuffer(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  return type.hasStaticShape() && type.getLayout().isIdentity() && !type.getMemorySpace() &&
         !alloc->getParentOfType<scf::ParallelOp>();
}

/// The function's ops numbered in pre-order, and for each op the last number inside it.
struct Positions {
  llvm::DenseMap<Operation *, int64_t> at, end;
  explicit Positions(FunctionOpInterface func) {
    int64_t next = 0;
    func->walk<WalkOrder::PreOrder>([&](Operation *op) { at[op] = next++; });
    func->walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = at[op];
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &inner : block)
            last = std::max(last, end.lookup(&inner));
      end[op] = last;
    });
  }
};

/// The innermost scf.for around `op` in its function, if any.
scf::ForOp enclosingFor(Operation *op) { return op->getParentOfType<scf::ForOp>(); }

/// The lifetime of the memref `root` defined by `def`: from its first use to its last, through
/// views and values of loops that carry it, each use widened to the loops around it that do not
/// contain `def` (the previous and next iterations use it too); a buffer allocated inside a loop
/// lives for all of that loop (its two slots take turns there).
std::pair<int64_t, int64_t> lifetime(Operation *def, Value root, const Positions &pos) {
  int64_t first = std::numeric_limits<int64_t>::max(), last = pos.at.lookup(def);
  if (scf::ForOp loop = enclosingFor(def)) {
    first = pos.at.lookup(loop);
    last = pos.end.lookup(loop);
  }
  SmallVector<Value> work{root};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      int64_t start = pos.at.lookup(user), end = pos.end.lookup(user);
      for (Operation *up = user->getParentOp(); up && !up->isAncestor(def);
           up = up->getParentOp())
        if (isa<LoopLikeOpInterface>(up)) {
          start = std::min(start, pos.at.lookup(up));
          end = std::max(end, pos.end.lookup(up));
        }
      first = std::min(first, start);
      last = std::max(last, end);
      // What still refers to the buffer: views of it, and a loop's value carrying it.
      if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v)
        for (Value r : user->getResults())
          work.push_back(r);
      if (isa<memref::CastOp, memref::MemorySpaceCastOp>(user))
        work.push_back(user->getResult(0));
      if (auto loop = dyn_cast<scf::ForOp>(user))
        if (use.getOperandNumber() >= 3) {
          unsigned i = use.getOperandNumber() - 3;
          work.push_back(loop.getRegionIterArgs()[i]);
          work.push_back(loop.getResult(i));
        }
      if (isa<scf::YieldOp>(user))
        if (auto loop = dyn_cast<scf::ForOp>(user->getParentOp()))
          work.push_back(loop.getResult(use.getOperandNumber()));
    }
  }
  if (first > last) // never used
    first = last = pos.at.lookup(def);
  return {first, last};
}

/// First fit, largest first, among buffers whose lifetimes overlap; returns the total.
int64_t place(std::vector<SharedAllocation::Buffer> &buffers, int64_t alignment) {
  std::vector<size_t> order(buffers.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::vector<size_t> placed;
  int64_t total = 0;
  for (size_t i : order) {
    SharedAllocation::Buffer &b = buffers[i];
    std::vector<std::pair<int64_t, int64_t>> taken; // [offset, end) of overlapping lifetimes
    for (size_t j : placed) {
      const SharedAllocation::Buffer &o = buffers[j];
      if (o.firstUse <= b.lastUse && b.firstUse <= o.lastUse)
        taken.push_back({o.offset, o.offset + o.bytes});
    }
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (auto [start, end] : taken) {
      if (offset + b.bytes <= start)
        break;
      offset = std::max<int64_t>(offset, int64_t(llvm::alignTo(end, alignment)));
    }
    b.offset = offset;
    total = std::max(total, offset + b.bytes);
    placed.push_back(i);
  }
  return total;
}

} // namespace

int64_t sharedBufferBytes(MemRefType type, Operation *scope) {
  int64_t element =
      int64_t(DataLayout::closest(scope).getTypeSize(type.getElementType()).getFixedValue());
  return type.getNumElements() * std::max<int64_t>(element, 1);
}

int64_t SharedAllocation::slotBytes(Operation *alloc, int64_t alignment) {
  return int64_t(llvm::alignTo(sharedBufferBytes(cast<memref::AllocOp>(alloc).getType(), alloc),
                               alignment));
}

bool SharedAllocation::takesTurns(Operation *alloc) {
  if (!enclosingFor(alloc))
    return false;
  SmallVector<Value> work{alloc->getResult(0)};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<RegionBranchTerminatorOpInterface>(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user); view && view.getViewSource() == v)
        work.push_back(user->getResult(0));
    }
  }
  return false;
}

FailureOr<SharedAllocation> SharedAllocation::analyze(ModuleOp module, int64_t alignment) {
  SmallVector<FunctionOpInterface> roots;
  for (auto func : module.getOps<FunctionOpInterface>())
    if (!func.isExternal())
      roots.push_back(func);
  return analyze(roots, alignment);
}

FailureOr<SharedAllocation> SharedAllocation::analyze(ArrayRef<FunctionOpInterface> roots,
                                                      int64_t alignment) {
  SharedAllocation result;
  SymbolTableCollection symbols;
  enum class State { Visiting, Done };
  llvm::DenseMap<Operation *, State> state;
  std::function<LogicalResult(FunctionOpInterface)> visit =
      [&](FunctionOpInterface func) -> LogicalResult {
    state[func] = State::Visiting;
    Positions pos(func);
    std::vector<Buffer> buffers;
    WalkResult walk = func->walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
      if (auto alloc = dyn_cast<memref::AllocOp>(op); alloc && isTileBuffer(alloc)) {
        Buffer b;
        b.op = op;
        b.bytes = sharedBufferBytes(alloc.getType(), op);
        // Allocated in a loop that carries it: two slots, consecutive iterations taking turns
        // (one may still be read as the previous iteration's carried tile), the second at
        // offset + slotBytes.
        if (takesTurns(op))
          b.bytes += slotBytes(op, alignment);
        std::tie(b.firstUse, b.lastUse) = lifetime(op, alloc.getResult(), pos);
        buffers.push_back(b);
        return WalkResult::advance();
      }
      auto call = dyn_cast<CallOpInterface>(op);
      if (!call)
        return WalkResult::advance();
      auto callee = dyn_cast_or_null<FunctionOpInterface>(call.resolveCallableInTable(&symbols));
      if (!callee || callee.isExternal())
        return WalkResult::advance();
      auto it = state.find(callee);
      if (it != state.end() && it->second == State::Visiting) {
        op->emitError() << "recursive call to '" << callee.getName()
                        << "': shared memory cannot be allocated for a recursive call graph";
        return WalkResult::interrupt();
      }
      if (it == state.end() && failed(visit(callee)))
        return WalkResult::interrupt();
      int64_t bytes = result.totals_.lookup(callee);
      if (bytes == 0)
        return WalkResult::advance();
      Buffer b;
      b.op = op;
      b.isVirtual = true;
      b.bytes = bytes;
      // The callee's buffers live only while it runs, in a loop too.
      b.firstUse = b.lastUse = pos.at.lookup(op);
      buffers.push_back(b);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    result.totals_[func] = place(buffers, alignment);
    for (const Buffer &b : buffers)
      result.offsets_[b.op] = b.offset;
    result.buffers_[func] = std::move(buffers);
    state[func] = State::Done;
    return success();
  };
  for (FunctionOpInterface func : roots)
    if (!state.count(func) && failed(visit(func)))
      return failure();
  return result;
}

int64_t SharedAllocation::totalBytes(FunctionOpInterface func) const {
  return totals_.lookup(func);
}

llvm::ArrayRef<SharedAllocation::Buffer>
SharedAllocation::buffers(FunctionOpInterface func) const {
  auto it = buffers_.find(func);
  if (it == buffers_.end())
    return {};
  return it->second;
}

std::optional<int64_t> SharedAllocation::offsetOf(Operation *op) const {
  auto it = offsets_.find(op);
  if (it == offsets_.end())
    return std::nullopt;
  return it->second;
}

} // namespace tessel
