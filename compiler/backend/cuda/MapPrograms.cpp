//===- MapPrograms.cpp - one program = one CUDA block, work spread over threads -*- C++ -*-===//
//
// See Passes.td (CudaMapPrograms). The structured lowering's output describes one program
// sequentially: tile buffers, parallel loops over tiles (from linalg's parallel dimensions),
// sequential loops (reductions, K loops) and scalar code. On a GPU the program is a block of
// num_warps * warp-size threads (the rocm backend: a workgroup of wavefronts):
//   - an outermost scf.parallel becomes a loop over its linearized iteration space starting at
//     the thread id with the block size as step (innermost dimension fastest: coalesced);
//   - any other op that writes memory (a scalar store, a sequential reduction loop, an atomic,
//     a call) runs on thread 0 only, its results broadcast through shared memory;
//   - everything else (index arithmetic, loads, uniform loops and ifs that contain parallel
//     loops) runs on every thread alike, so control flow stays uniform;
//   - barriers before and after each distributed loop and each thread-0 section order the
//     tile buffers' writes and reads;
//   - a sequential loop whose body is one parallel loop touching disjoint elements per
//     parallel iteration (a reduction over a tile's outer dimension) is interchanged first;
//   - each thread runs `unroll` iterations of a distributed loop at once, so that many loads
//     are in flight (a GPU hides memory latency with independent accesses);
//   - tile buffers are static shared variables while they fit in 47 KB, and otherwise views
//     of one dynamic shared-memory arena, so a block may use more than the 48 KB of static
//     shared memory.
// This is stage 1: correct for every kernel, parallel where linalg says so.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/Passes.h"
#include "compiler/analysis/Allocation.h"
#include "compiler/backend/cuda/BlockMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDAMAPPROGRAMS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace tessel::cuda {

Value viewedBuffer(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      v = view.getViewSource();
      continue;
    }
    break;
  }
  return v;
}

std::optional<gpu::AllReduceOperation> allReduceKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return K::ADD;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return K::MUL;
  if (isa<arith::MaxNumFOp>(op))
    return K::MAXNUMF;
  if (isa<arith::MinNumFOp>(op))
    return K::MINNUMF;
  if (isa<arith::MaximumFOp>(op))
    return K::MAXIMUMF;
  if (isa<arith::MinimumFOp>(op))
    return K::MINIMUMF;
  if (isa<arith::MaxSIOp>(op))
    return K::MAXSI;
  if (isa<arith::MinSIOp>(op))
    return K::MINSI;
  if (isa<arith::MaxUIOp>(op))
    return K::MAXUI;
  if (isa<arith::MinUIOp>(op))
    return K::MINUI;
  if (isa<arith::AndIOp>(op))
    return K::AND;
  if (isa<arith::OrIOp>(op))
    return K::OR;
  if (isa<arith::XOrIOp>(op))
    return K::XOR;
  return std::nullopt;
}

memref::StoreOp accumulatorStore(Block *body, scf::ForOp loop,
                                 llvm::function_ref<bool(memref::StoreOp)> indicesOk) {
  memref::StoreOp found;
  for (Operation &op : body->without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      if (found || !indicesOk(store) || !loop.isDefinedOutsideOfLoop(store.getMemRef()))
        return {};
      found = store;
      continue;
    }
    if (op.getNumRegions() || (!isPure(&op) && !isa<memref::LoadOp>(op)))
      return {};
  }
  return found;
}

std::optional<ScalarReduction> matchScalarReduction(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return std::nullopt;
  Block *body = loop.getBody();
  // The one store: to a scalar buffer from outside the loop; the one load of it; all other
  // ops pure or loads.
  ScalarReduction r;
  r.loop = loop;
  r.accStore = accumulatorStore(body, loop, [](memref::StoreOp store) {
    return store.getMemRefType().getRank() == 0;
  });
  if (!r.accStore)
    return std::nullopt;
  for (auto load : body->getOps<memref::LoadOp>())
    if (load.getMemRef() == r.accStore.getMemRef()) {
      if (r.accLoad)
        return std::nullopt;
      r.accLoad = load;
    }
  if (!r.accLoad || !r.accLoad.getResult().hasOneUse())
    return std::nullopt;
  r.combine = r.accStore.getValueToStore().getDefiningOp();
  if (!r.combine || r.combine->getBlock() != body || r.combine->getNumOperands() != 2 ||
      *r.accLoad.getResult().getUsers().begin() != r.combine)
    return std::nullopt;
  std::optional<gpu::AllReduceOperation> kind = allReduceKind(r.combine);
  std::optional<TypedAttr> neutral = arith::getNeutralElement(r.combine);
  if (!kind || !neutral)
    return std::nullopt;
  r.kind = *kind;
  r.neutral = *neutral;
  r.element = r.combine->getOperand(0) == r.accLoad.getResult() ? r.combine->getOperand(1)
                                                                : r.combine->getOperand(0);
  return r;
}

Value cloneAccumulation(OpBuilder &b, Block *body, memref::LoadOp accLoad,
                        memref::StoreOp accStore, IRMapping &map) {
  for (Operation &op : body->without_terminator())
    if (&op != accLoad.getOperation() && &op != accStore.getOperation())
      b.clone(op, map);
  return map.lookup(accStore.getValueToStore());
}

Value applyCombine(OpBuilder &b, Operation *combine, Value accumulator, Value element, Value a,
                   Value e) {
  IRMapping map;
  map.map(accumulator, a);
  map.map(element, e);
  return b.clone(*combine, map)->getResult(0);
}

Value cloneReductionStep(OpBuilder &b, ScalarReduction r, Value iv, Value partial) {
  IRMapping map;
  map.map(r.loop.getInductionVar(), iv);
  map.map(r.accLoad.getResult(), partial);
  return cloneAccumulation(b, r.loop.getBody(), r.accLoad, r.accStore, map);
}

void finishScalarReduction(OpBuilder &b, ScalarReduction r, Value partial, Value tid) {
  Location loc = r.loop.getLoc();
  Value acc = r.accLoad.getMemRef();
  Value total = gpu::AllReduceOp::create(
      b, loc, partial, gpu::AllReduceOperationAttr::get(b.getContext(), r.kind),
      b.getUnitAttr());
  Value result = applyCombine(b, r.combine, r.accLoad.getResult(), r.element,
                              memref::LoadOp::create(b, loc, acc), total);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
  auto ifOp = scf::IfOp::create(b, loc, isZero, /*withElseRegion=*/false);
  OpBuilder store(ifOp.thenBlock()->getTerminator());
  memref::StoreOp::create(store, loc, result, acc);
}

} // namespace tessel::cuda

namespace {

using tessel::cuda::viewedBuffer;

/// Whether `op` (or an op nested in it) may write memory or has effects not known.
bool writesMemory(Operation *op) {
  WalkResult r = op->walk([](Operation *inner) {
    // nvgpu.mbarrier.create names a static shared buffer (every thread evaluates it).
    if (isa<scf::YieldOp, scf::ReduceOp, scf::ReduceReturnOp, scf::ConditionOp,
            nvgpu::MBarrierCreateOp>(inner) ||
        tessel::cuda::registersOnly(inner))
      return WalkResult::advance();
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner)) {
      if (effects.hasEffect<MemoryEffects::Write>() || effects.hasEffect<MemoryEffects::Free>())
        return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance(); // its nested ops were or will be visited
    return WalkResult::interrupt(); // unknown effects (a call): assume it writes
  });
  return r.wasInterrupted();
}

/// `func`'s body (mapped) run once for each program of the grid its three trailing i32
/// arguments give, block b running programs b, b + gridDim.x, ... (x fastest), with a barrier
/// after each (the next one reuses the shared buffers): `ids` and `sizes` (the gpu.block_id
/// and gpu.grid_dim ops the body reads its program ids and grid sizes from) become the
/// program's.
void runProgramsInTurn(gpu::GPUFuncOp func, ArrayRef<Operation *> ids,
                       ArrayRef<Operation *> sizes) {
  Block &entry = func.getBody().front();
  Location loc = func.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  // The function's own arguments (the entry block's workgroup attributions follow them).
  unsigned inputs = func.getFunctionType().getNumInputs();
  SmallVector<Value> grid;
  for (unsigned d = 0; d < 3; ++d)
    grid.push_back(
        arith::IndexCastOp::create(b, loc, b.getIndexType(), func.getArgument(inputs - 3 + d)));
  Value plane = arith::MulIOp::create(b, loc, grid[0], grid[1]);
  Value total = arith::MulIOp::create(b, loc, plane, grid[2]);
  Value first = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value step = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  auto loop = scf::ForOp::create(b, loc, first, total, step);
  Block *body = loop.getBody();
  // The program inside an scf.execute_region: what lowers gpu.all_reduce later splits blocks,
  // which a loop body may not have.
  OpBuilder inLoop(body->getTerminator());
  auto run = scf::ExecuteRegionOp::create(inLoop, loc, TypeRange{});
  Block *inner = &run.getRegion().emplaceBlock();
  inner->getOperations().splice(inner->end(), entry.getOperations(),
                                std::next(loop->getIterator()),
                                entry.getTerminator()->getIterator());
  OpBuilder atEnd = OpBuilder::atBlockEnd(inner);
  scf::YieldOp::create(atEnd, loc);
  OpBuilder in = OpBuilder::atBlockBegin(body);
  Value program = loop.getInductionVar();
  Value at[] = {
      arith::RemUIOp::create(in, loc, program, grid[0]),
      arith::RemUIOp::create(in, loc, arith::DivUIOp::create(in, loc, program, grid[0]),
                             grid[1]),
      arith::DivUIOp::create(in, loc, program, plane)};
  for (unsigned d = 0; d < 3; ++d) {
    ids[d]->getResult(0).replaceAllUsesWith(at[d]);
    ids[d]->erase();
    sizes[d]->getResult(0).replaceAllUsesWith(grid[d]);
    sizes[d]->erase();
  }
  // A thread's private buffers of static size (wherever they are in the body) stay outside:
  // an alloca in the loop would take more stack each program.
  SmallVector<Operation *> allocas;
  loop.getBody()->walk([&](memref::AllocaOp a) {
    if (a->getNumOperands() == 0)
      allocas.push_back(a);
  });
  for (Operation *a : allocas)
    a->moveBefore(loop);
  OpBuilder end(body->getTerminator());
  gpu::BarrierOp::create(end, loc);
}

/// `alloc` as a buffer on the thread's stack (its deallocations dropped).
void toPrivateBuffer(memref::AllocOp alloc) {
  OpBuilder b(alloc);
  auto alloca = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType(),
                                         alloc.getDynamicSizes(), alloc.getSymbolOperands(),
                                         alloc.getAlignmentAttr());
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  alloc.replaceAllUsesWith(alloca.getResult());
  alloc.erase();
}

/// Whether `op` contains work spread over the threads: a parallel loop, or a region already
/// spread.
bool containsThreadWork(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        if (isa<scf::ParallelOp>(inner) || inner->hasAttr(tessel::cuda::kPerThreadAttr))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// A constant bound of `v` (the largest value it takes when `upper`, else the smallest), where
/// its definition shows one: a constant, or min / max / differences / casts of values with
/// bounds (the masked sizes of a tile: max(min(n - i, BLOCK), 0), and BLOCK minus such a size).
std::optional<int64_t> constantBound(Value v, bool upper, int depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return c;
  Operation *def = v.getDefiningOp();
  if (!def || depth > 16)
    return std::nullopt;
  auto operand = [&](int i, bool up) { return constantBound(def->getOperand(i), up, depth + 1); };
  if (isa<arith::IndexCastOp>(def))
    return operand(0, upper);
  if (isa<arith::SubIOp>(def)) {
    std::optional<int64_t> a = operand(0, upper), b = operand(1, !upper);
    if (a && b)
      return *a - *b;
    return std::nullopt;
  }
  bool isMin = isa<arith::MinSIOp>(def);
  if (!isMin && !isa<arith::MaxSIOp>(def))
    return std::nullopt;
  std::optional<int64_t> a = operand(0, upper), b = operand(1, upper);
  if (a && b)
    return isMin ? std::min(*a, *b) : std::max(*a, *b);
  // min(x, c) <= c and max(x, c) >= c whatever x is.
  if (isMin == upper)
    return a ? a : b;
  return std::nullopt;
}

/// `for i { parallel p { body } }` as `parallel p { for i { body } }` where that keeps the
/// meaning: every memory write of the body is a memref.store into a tile buffer allocated in
/// the kernel, at indices that name each parallel induction variable directly, and every
/// load of such a buffer reads exactly the stored indices, while everything else the body
/// reads is another buffer. Then each parallel iteration owns its elements, and running its
/// sequential iterations back to back changes nothing. Returns the new parallel loop, or null
/// (nothing changed).
scf::ParallelOp interchangeAroundParallel(scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return {};
  Block *body = loop.getBody();
  auto parallel = dyn_cast<scf::ParallelOp>(body->front());
  if (!parallel || parallel.getNumResults() != 0 ||
      std::next(body->begin()) != std::prev(body->end()))
    return {};
  for (Value bound : llvm::concat<Value>(parallel.getLowerBound(), parallel.getUpperBound(),
                                         parallel.getStep()))
    if (!loop.isDefinedOutsideOfLoop(bound))
      return {};
  // The stored buffers and their one index list each.
  llvm::DenseMap<Value, SmallVector<Value>> stored;
  bool ok = true;
  parallel.getBody()->walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      Value buffer = viewedBuffer(store.getMemRef());
      SmallVector<Value> indices(store.getIndices());
      bool own = buffer.getDefiningOp<memref::AllocOp>() && buffer == store.getMemRef() &&
                 llvm::all_of(parallel.getInductionVars(),
                              [&](Value iv) { return llvm::is_contained(indices, iv); });
      auto [it, inserted] = stored.try_emplace(buffer, indices);
      if (!own || (!inserted && it->second != indices))
        ok = false;
      return;
    }
    if (isa<memref::LoadOp, scf::YieldOp, scf::ReduceOp, scf::ReduceReturnOp>(op) ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || effects.hasEffect<MemoryEffects::Write>() ||
        effects.hasEffect<MemoryEffects::Free>() || effects.hasEffect<MemoryEffects::Allocate>())
      ok = false;
  });
  if (!ok || stored.empty())
    return {};
  parallel.getBody()->walk([&](memref::LoadOp load) {
    Value buffer = viewedBuffer(load.getMemRef());
    auto it = stored.find(buffer);
    if (it == stored.end())
      return;
    if (buffer != load.getMemRef() ||
        SmallVector<Value>(load.getIndices()) != it->second)
      ok = false;
  });
  if (!ok)
    return {};
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  auto outer = scf::ParallelOp::create(b, loc, parallel.getLowerBound(),
                                       parallel.getUpperBound(), parallel.getStep());
  OpBuilder inOuter = OpBuilder::atBlockBegin(outer.getBody());
  auto inner = scf::ForOp::create(inOuter, loc, loop.getLowerBound(), loop.getUpperBound(),
                                  loop.getStep());
  IRMapping map;
  map.map(parallel.getInductionVars(), outer.getInductionVars());
  map.map(loop.getInductionVar(), inner.getInductionVar());
  OpBuilder inInner = OpBuilder::atBlockBegin(inner.getBody());
  for (Operation &op : parallel.getBody()->without_terminator())
    inInner.clone(op, map);
  loop.erase();
  return outer;
}

/// The sequential reduction loops directly inside the parallel loop `loop`, `for k in 0..N:
/// acc[p] = combine(acc[p], f(k))` with an all-reduce combine (commutative and associative)
/// whose k indexes only the last (contiguous) dimension of shared-memory tiles (`inShared`),
/// visit k in the order (k + p) mod N, p the parallel loop's innermost index: threads with
/// neighbouring p (each a row) then read different columns at each step, not all the same bank
/// (a 64-float row put every thread of a warp on one bank). The result is the same, up to
/// floating-point reassociation.
void rotateReductions(scf::ParallelOp loop, llvm::function_ref<bool(Value)> inShared) {
  Value p = loop.getInductionVars().back();
  for (auto inner : llvm::make_early_inc_range(loop.getBody()->getOps<scf::ForOp>())) {
    std::optional<int64_t> lb = getConstantIntValue(inner.getLowerBound()),
                           ub = getConstantIntValue(inner.getUpperBound()),
                           step = getConstantIntValue(inner.getStep());
    if (!lb || *lb != 0 || !step || *step != 1 || !ub || *ub < 2 || inner.getNumResults() ||
        !inner.getInductionVar().getType().isIndex())
      continue;
    memref::StoreOp store =
        tessel::cuda::accumulatorStore(inner.getBody(), inner, [&](memref::StoreOp s) {
          return llvm::all_of(s.getIndices(),
                              [&](Value i) { return inner.isDefinedOutsideOfLoop(i); });
        });
    if (!store)
      continue;
    Operation *combine = store.getValueToStore().getDefiningOp();
    if (!combine || combine->getBlock() != inner.getBody() || combine->getNumOperands() != 2 ||
        !tessel::cuda::allReduceKind(combine))
      continue;
    // Every use of k: the last index of a load from a shared tile, or index arithmetic.
    Value k = inner.getInductionVar();
    bool rowWise = !k.use_empty() && llvm::all_of(k.getUsers(), [&](Operation *user) {
      auto load = dyn_cast<memref::LoadOp>(user);
      if (!load)
        return false;
      ValueRange indices = load.getIndices();
      return !indices.empty() && indices.back() == k &&
             llvm::count(indices, k) == 1 && inShared(load.getMemRef());
    });
    if (!rowWise)
      continue;
    bool readsAccumulator = llvm::any_of(combine->getOperands(), [&](Value v) {
      auto load = v.getDefiningOp<memref::LoadOp>();
      return load && load.getMemRef() == store.getMemRef() &&
             llvm::equal(load.getIndices(), store.getIndices());
    });
    if (!readsAccumulator)
      continue;
    OpBuilder b = OpBuilder::atBlockBegin(inner.getBody());
    Location loc = inner.getLoc();
    Value sum = arith::AddIOp::create(b, loc, k, p);
    Value n = arith::ConstantIndexOp::create(b, loc, *ub);
    Value rotated = arith::RemUIOp::create(b, loc, sum, n);
    k.replaceAllUsesExcept(rotated, sum.getDefiningOp());
  }
}

class BlockMapper {
public:
  BlockMapper(gpu::GPUFuncOp func, int64_t threads, int64_t unroll, int64_t threadTileElements,
              int64_t vectorBytes, int64_t staticSharedBytes)
      : func_(func), threads_(threads), unroll_(unroll), threadTileElements_(threadTileElements),
        vectorBytes_(vectorBytes), staticSharedBytes_(staticSharedBytes) {}

  /// Bytes of the dynamic shared-memory arena the tile buffers took.
  int64_t arenaBytes() const { return arenaBytes_; }

  LogicalResult run() {
    Block &entry = func_.getBody().front();
    OpBuilder b(&entry, entry.begin());
    Location loc = func_.getLoc();
    tid_ = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    numThreads_ = arith::ConstantIndexOp::create(b, loc, threads_);
    zero_ = arith::ConstantIndexOp::create(b, loc, 0);
    if (threadTileElements_ > 0)
      tessel::cuda::keepTilesInThreads(func_, tid_, threads_, threadTileElements_, vectorBytes_);
    SmallVector<scf::ForOp> loops;
    func_.walk([&](scf::ForOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      interchangeAroundParallel(loop);
    if (failed(mapAllocs()))
      return failure();
    return mapBlock(entry);
  }

private:
  /// Tile buffers become workgroup memory, cast back to their type for their users.
  LogicalResult mapAllocs() {
    SmallVector<memref::AllocOp> allocs;
    func_.walk([&](memref::AllocOp a) { allocs.push_back(a); });
    // Static shared memory (one variable per buffer) where the tiles fit in what a block gets
    // without asking, 48 KB less room for the broadcast scalars and reduction scratch: LLVM
    // knows distinct variables do not alias and keeps values in registers across their stores
    // (views of one arena at offsets chosen per loop iteration defeat that: matmul ran 2x
    // slower on the H100). Larger tiles take the dynamic arena.
    int64_t tileBytes = 0;
    // A tile that must start at a wider boundary (kTileAlignmentAttr: what wgmma reads) puts the
    // kernel's tiles at that boundary.
    for (memref::AllocOp alloc : allocs)
      if (auto align = alloc->getAttrOfType<IntegerAttr>(tessel::cuda::kTileAlignmentAttr))
        tileAlignment_ = std::max(tileAlignment_, align.getInt());
    for (memref::AllocOp alloc : allocs)
      if (!alloc->getParentOfType<scf::ParallelOp>() && alloc.getType().hasStaticShape())
        tileBytes += tessel::SharedAllocation::slotBytes(alloc, 16) *
                     (tessel::SharedAllocation::takesTurns(alloc) ? 2 : 1);
    // Tiles aligned beyond 16 bytes (wgmma's swizzled operands) are views of the arena, whose
    // start is aligned at run time.
    useArena_ = tileBytes > staticSharedBytes_ || (tileAlignment_ > 16 && tileBytes > 0);
    // In the arena, buffers take offsets from their lifetimes (compiler/analysis/Allocation.h):
    // those whose lifetimes do not overlap share bytes (barriers keep the accesses ordered:
    // Membar counts every view of the arena as the one buffer).
    std::optional<tessel::SharedAllocation> plan;
    if (useArena_) {
      FunctionOpInterface kernel = func_;
      FailureOr<tessel::SharedAllocation> analyzed =
          tessel::SharedAllocation::analyze(ArrayRef<FunctionOpInterface>(kernel),
                                            tileAlignment_);
      if (failed(analyzed))
        return failure();
      plan = std::move(*analyzed);
      arenaBytes_ = plan->totalBytes(func_);
      // Room to move the arena's start to the next aligned address.
      if (tileAlignment_ > 16)
        arenaBytes_ += tileAlignment_;
    }
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      if (alloc->getParentOfType<scf::ParallelOp>()) {
        // A buffer of one iteration of a distributed loop: the thread's own.
        toPrivateBuffer(alloc);
        continue;
      }
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return alloc.emitError() << "a tile buffer of dynamic shape or with a layout cannot be "
                                    "placed in shared memory on cuda yet";
      OpBuilder b(alloc);
      Location loc = alloc.getLoc();
      std::optional<int64_t> offset = plan ? plan->offsetOf(alloc) : std::nullopt;
      if (plan && !offset)
        return alloc.emitError() << "a tile buffer the shared-memory allocation did not place";
      Value shared = tileBuffer(b, type, loc, offset);
      Value cast = memref::MemorySpaceCastOp::create(b, loc, type, shared);
      if (auto loop = alloc->getParentOfType<scf::ForOp>();
          loop && tessel::SharedAllocation::takesTurns(alloc)) {
        // A buffer allocated in a loop that carries it into the next iteration (a loop-carried
        // tile) while that iteration allocates again: consecutive iterations take turns
        // between two buffers.
        std::optional<int64_t> second;
        if (offset)
          second = *offset + tessel::SharedAllocation::slotBytes(alloc, tileAlignment_);
        Value other = tileBuffer(b, type, loc, second);
        Value otherCast = memref::MemorySpaceCastOp::create(b, loc, type, other);
        Value iteration = arith::DivSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(), loop.getLowerBound()),
            loop.getStep());
        Value two = arith::ConstantOp::create(b, loc, b.getIntegerAttr(iteration.getType(), 2));
        Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(iteration.getType(), 0));
        Value even = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           arith::RemSIOp::create(b, loc, iteration, two), zero);
        cast = arith::SelectOp::create(b, loc, even, cast, otherCast);
      }
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      shared_.insert(viewedBuffer(cast));
      alloc.replaceAllUsesWith(cast);
      alloc.erase();
    }
    return success();
  }

  /// A shared buffer of `type`'s shape: a static variable, or a view of the arena at `offset`
  /// (the allocation's plan).
  Value tileBuffer(OpBuilder &b, MemRefType type, Location loc, std::optional<int64_t> offset) {
    if (!useArena_)
      return workgroupBuffer(type.getShape(), type.getElementType(), loc);
    auto space = gpu::AddressSpaceAttr::get(func_.getContext(), gpu::AddressSpace::Workgroup);
    if (!arena_) {
      // At the kernel's start: every view of it is dominated.
      OpBuilder atStart = OpBuilder::atBlockBegin(&func_.getBody().front());
      arena_ = gpu::DynamicSharedMemoryOp::create(
          atStart, loc,
          MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
                          space));
      if (tileAlignment_ > 16) {
        // The views start past the arena's start rounded up to the alignment.
        Value address = memref::ExtractAlignedPointerAsIndexOp::create(atStart, loc, arena_);
        Value align = arith::ConstantIndexOp::create(atStart, loc, tileAlignment_);
        Value misaligned = arith::RemUIOp::create(atStart, loc, address, align);
        arenaPad_ = arith::RemUIOp::create(
            atStart, loc, arith::SubIOp::create(atStart, loc, align, misaligned), align);
      }
    }
    auto viewType =
        MemRefType::get(type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(), space);
    Value at = arith::ConstantIndexOp::create(b, loc, *offset);
    if (arenaPad_)
      at = arith::AddIOp::create(b, loc, at, arenaPad_);
    return memref::ViewOp::create(b, loc, viewType, arena_, at, ValueRange{});
  }

  Value workgroupBuffer(ArrayRef<int64_t> shape, Type element, Location loc) {
    auto space = gpu::AddressSpaceAttr::get(func_.getContext(), gpu::AddressSpace::Workgroup);
    auto type = MemRefType::get(shape, element, MemRefLayoutAttrInterface(), space);
    BlockArgument buffer = func_.addWorkgroupAttribution(type, loc);
    func_.setWorkgroupAttributionAttr(func_.getNumWorkgroupAttributions() - 1,
                                      LLVM::LLVMDialect::getAlignAttrName(),
                                      OpBuilder(func_).getI64IntegerAttr(
                                          tessel::cuda::kSharedTileAlignment));
    return buffer;
  }

  /// Whether the memref `v` is, or may be, a tile buffer in shared memory: through views, the
  /// double buffers' select, and the loops that carry it.
  bool isShared(Value v, llvm::DenseSet<Value> &seen) {
    v = viewedBuffer(v);
    if (shared_.contains(v))
      return true;
    if (!seen.insert(v).second)
      return false;
    auto carried = [&](scf::ForOp loop, unsigned i) {
      return isShared(loop.getInitArgs()[i], seen) ||
             isShared(loop.getBody()->getTerminator()->getOperand(i), seen);
    };
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
      return loop && arg.getArgNumber() > 0 && carried(loop, arg.getArgNumber() - 1);
    }
    Operation *def = v.getDefiningOp();
    if (auto loop = dyn_cast_or_null<scf::ForOp>(def))
      return carried(loop, cast<OpResult>(v).getResultNumber());
    if (auto select = dyn_cast_or_null<arith::SelectOp>(def))
      return isShared(select.getTrueValue(), seen) || isShared(select.getFalseValue(), seen);
    return false;
  }

  /// Whether `op` reads or writes a tile buffer in shared memory.
  bool touchesShared(Operation *op) {
    return op
        ->walk([&](Operation *inner) {
          for (Value operand : inner->getOperands()) {
            llvm::DenseSet<Value> seen;
            if (isa<MemRefType>(operand.getType()) && isShared(operand, seen))
              return WalkResult::interrupt();
          }
          return WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// Whether `op` may write memory other threads read afterwards: anything but a thread's own
  /// private buffers (global memory, written by one thread and read by another in a later
  /// loop, needs the barrier as shared memory does).
  bool writesBeyondThread(Operation *op) {
    return op
        ->walk([&](Operation *inner) {
          Value target;
          if (auto store = dyn_cast<memref::StoreOp>(inner))
            target = store.getMemRef();
          else if (isa<memref::LoadOp, memref::AllocaOp>(inner) || isPure(inner))
            return WalkResult::advance();
          else if (!writesMemory(inner) || inner->getNumRegions())
            return WalkResult::advance(); // regions: their ops are visited
          if (target && viewedBuffer(target).getDefiningOp<memref::AllocaOp>())
            return WalkResult::advance();
          return WalkResult::interrupt();
        })
        .wasInterrupted();
  }

  /// Whether only side-effect-free ops and commits separate `op` from an earlier async-copy
  /// region.
  static bool followsAsyncCopies(Operation *op) {
    for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
      if (prev->hasAttr(tessel::cuda::kAsyncCopyAttr))
        return true;
      if (!isMemoryEffectFree(prev) && !prev->hasAttr(tessel::cuda::kAsyncCommitAttr))
        return false;
    }
    return false;
  }

  /// A barrier before `op` unless the op before it is one.
  void barrierBefore(Operation *op) {
    if (Operation *prev = op->getPrevNode(); prev && isa<gpu::BarrierOp>(prev))
      return;
    OpBuilder b(op);
    gpu::BarrierOp::create(b, op->getLoc());
  }
  void barrierAfter(Operation *op) {
    // Nothing to order before another barrier or the kernel's end.
    if (Operation *next = op->getNextNode(); next && isa<gpu::BarrierOp, gpu::ReturnOp>(next))
      return;
    OpBuilder b(op->getBlock(), std::next(op->getIterator()));
    gpu::BarrierOp::create(b, op->getLoc());
  }

  LogicalResult mapBlock(Block &block) {
    SmallVector<Operation *> run; // consecutive ops that run on thread 0
    auto flush = [&]() -> LogicalResult {
      if (run.empty())
        return success();
      LogicalResult r = onThreadZero(run);
      run.clear();
      return r;
    };
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>() || isa<gpu::BarrierOp>(op))
        continue;
      if (op.hasAttr(tessel::cuda::kPerThreadAttr)) {
        // Already spread over the threads, each on its own elements: barriers only where
        // shared memory is touched.
        if (failed(flush()))
          return failure();
        if (op.hasAttr(tessel::cuda::kAsyncCommitAttr) ||
            op.hasAttr(tessel::cuda::kAsyncWaitAttr) || op.hasAttr(tessel::cuda::kTmaWaitAttr) ||
            op.hasAttr(tessel::cuda::kSlotReleaseAttr))
          continue; // no memory of their own: the readers' barriers order the data
        if (op.hasAttr(tessel::cuda::kAsyncCopyAttr)) {
          // What it writes lands later; its readers wait, then pass a barrier of their own.
          // Before it, one barrier for a run of such regions (they write different tiles).
          // (Copies a pipelined K loop issues after its step need none: kSlotsReleasedAttr;
          // not the loop's prologue copies, which follow whatever the kernel did before.)
          bool released = op.hasAttr(tessel::cuda::kSlotsReleasedAttr) &&
                          isa<scf::ForOp, scf::WhileOp>(op.getParentOp());
          if (!followsAsyncCopies(&op) && !released)
            barrierBefore(&op);
          continue;
        }
        if (touchesShared(&op)) {
          barrierBefore(&op);
          // Every writer of shared memory is preceded by a barrier: a region that writes no
          // memory needs none after it.
          if (writesMemory(&op))
            barrierAfter(&op);
        } else if (writesBeyondThread(&op)) {
          barrierAfter(&op);
        }
        continue;
      }
      if (auto loop = dyn_cast<scf::ParallelOp>(op); loop && loop.getNumResults() == 0) {
        if (failed(flush()))
          return failure();
        distribute(loop);
        continue;
      }
      if (op.getNumRegions() && containsThreadWork(&op) &&
          isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op)) {
        // Uniform control flow (a program's scalars are the same in every thread): every
        // thread runs it; its body is mapped the same way.
        if (failed(flush()))
          return failure();
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            if (failed(mapBlock(inner)))
              return failure();
        continue;
      }
      if (auto loop = dyn_cast<scf::ForOp>(op);
          loop && (reduceAcrossThreads(loop) || reduceTuplesAcrossThreads(loop))) {
        if (failed(flush()))
          return failure();
        continue;
      }
      if (writesMemory(&op)) {
        run.push_back(&op);
        continue;
      }
      if (failed(flush()))
        return failure();
    }
    return flush();
  }

  /// An empty loop at `b` over this thread's iterations of `loop` (from lb + tid * step,
  /// step * numThreads apart) carrying `inits`.
  scf::ForOp threadShare(OpBuilder &b, scf::ForOp loop, ValueRange inits) {
    Location loc = loop.getLoc();
    Type ivType = loop.getInductionVar().getType();
    auto asIv = [&](Value v) {
      return ivType.isIndex() ? v : arith::IndexCastOp::create(b, loc, ivType, v).getResult();
    };
    Value start = arith::AddIOp::create(
        b, loc, loop.getLowerBound(), arith::MulIOp::create(b, loc, asIv(tid_), loop.getStep()));
    Value stride = arith::MulIOp::create(b, loc, loop.getStep(), asIv(numThreads_));
    return scf::ForOp::create(b, loc, start, loop.getUpperBound(), stride, inits);
  }

  /// A sequential reduction into a scalar buffer (linalg.reduce of a whole tile) as every
  /// thread combining its share of the iterations, then gpu.all_reduce (warp shuffles and
  /// shared memory) and thread 0 storing combine(acc, total). Returns false (nothing changed)
  /// for any other loop.
  bool reduceAcrossThreads(scf::ForOp loop) {
    std::optional<tessel::cuda::ScalarReduction> r = tessel::cuda::matchScalarReduction(loop);
    if (!r)
      return false;
    Location loc = loop.getLoc();
    barrierBefore(loop);
    OpBuilder b(loop);
    Value identity = arith::ConstantOp::create(b, loc, r->neutral);
    scf::ForOp mine = threadShare(b, loop, ValueRange{identity});
    OpBuilder inner = OpBuilder::atBlockBegin(mine.getBody());
    scf::YieldOp::create(inner, loc,
                         tessel::cuda::cloneReductionStep(inner, *r, mine.getInductionVar(),
                                                          mine.getRegionIterArgs()[0]));
    tessel::cuda::finishScalarReduction(b, *r, mine.getResult(0), tid_);
    Operation *last = &*std::prev(b.getInsertionPoint());
    loop.erase();
    barrierAfter(last);
    return true;
  }

  /// A reduction into several scalar buffers at once (tl.argmax: a value and its index; any
  /// tt.reduce with several operands): `accs = combine(accs, elements(i))` for each i, the
  /// elements the loop's loads at [i], paired in order with the accumulators. Each thread
  /// combines its share of the iterations (the first taken as it is), the partials meet in a
  /// tree in shared memory, and thread 0 combines the total into the accumulators. As Triton,
  /// the combine is taken to be associative and commutative. Returns false (nothing changed)
  /// for any other loop.
  bool reduceTuplesAcrossThreads(scf::ForOp loop) {
    if (loop.getNumResults() != 0 || !loop.getInductionVar().getType().isIndex())
      return false;
    Block *body = loop.getBody();
    Value iv = loop.getInductionVar();
    SmallVector<memref::LoadOp> accLoads, elementLoads;
    SmallVector<memref::StoreOp> accStores;
    for (Operation &op : body->without_terminator()) {
      if (auto store = dyn_cast<memref::StoreOp>(op)) {
        if (store.getMemRefType().getRank() != 0 ||
            !loop.isDefinedOutsideOfLoop(store.getMemRef()))
          return false;
        accStores.push_back(store);
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        if (!loop.isDefinedOutsideOfLoop(load.getMemRef()))
          return false;
        if (load.getMemRefType().getRank() == 0)
          accLoads.push_back(load);
        else if (llvm::equal(load.getIndices(), ValueRange{iv}))
          elementLoads.push_back(load);
        else
          return false;
        continue;
      }
      if (op.getNumRegions() || !isPure(&op))
        return false;
    }
    size_t n = accStores.size();
    if (n < 2 || accLoads.size() != n || elementLoads.size() != n)
      return false;
    // The induction variable only indexes the elements (the combine is cloned without it).
    for (Operation *user : iv.getUsers())
      if (!llvm::is_contained(elementLoads, dyn_cast<memref::LoadOp>(user)))
        return false;
    for (size_t k = 0; k < n; ++k) {
      if (accLoads[k].getMemRef() != accStores[k].getMemRef() ||
          accLoads[k].getType() != elementLoads[k].getType() ||
          accStores[k].getValueToStore().getType() != accLoads[k].getType())
        return false;
      for (size_t j = 0; j < k; ++j)
        if (accStores[j].getMemRef() == accStores[k].getMemRef())
          return false;
    }
    Location loc = loop.getLoc();
    // combine(a, b): the body with the accumulators' loads as a and the elements as b.
    auto combine = [&](OpBuilder &b, ValueRange a, ValueRange e) {
      IRMapping map;
      for (size_t k = 0; k < n; ++k) {
        map.map(accLoads[k].getResult(), a[k]);
        map.map(elementLoads[k].getResult(), e[k]);
      }
      for (Operation &op : body->without_terminator())
        if (!isa<memref::LoadOp, memref::StoreOp>(op))
          b.clone(op, map);
      SmallVector<Value> out;
      for (memref::StoreOp store : accStores)
        out.push_back(map.lookupOrDefault(store.getValueToStore()));
      return out;
    };
    // Either of two partials that may be empty: combine(a, b), a, or b.
    auto merge = [&](OpBuilder &b, ValueRange a, Value va, ValueRange e, Value ve) {
      SmallVector<Value> both = combine(b, a, e), out;
      for (size_t k = 0; k < n; ++k) {
        Value pick = arith::SelectOp::create(b, loc, va, both[k], e[k]);
        out.push_back(arith::SelectOp::create(b, loc, ve, pick, a[k]));
      }
      out.push_back(arith::OrIOp::create(b, loc, va, ve));
      return out;
    };
    barrierBefore(loop);
    OpBuilder b(loop);
    Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    SmallVector<Value> inits;
    for (memref::LoadOp load : elementLoads) // unread until the first element replaces it
      inits.push_back(arith::ConstantOp::create(b, loc, b.getZeroAttr(load.getType())));
    inits.push_back(no);
    scf::ForOp mine = threadShare(b, loop, inits);
    {
      OpBuilder in = OpBuilder::atBlockBegin(mine.getBody());
      SmallVector<Value> e;
      for (memref::LoadOp load : elementLoads)
        e.push_back(memref::LoadOp::create(in, loc, load.getMemRef(),
                                           ValueRange{mine.getInductionVar()}));
      ValueRange partial = mine.getRegionIterArgs();
      scf::YieldOp::create(in, loc,
                           merge(in, partial.drop_back(), partial.back(), e, yes));
    }
    // The partials in shared memory, halved in a tree.
    SmallVector<Value> scratch;
    for (memref::LoadOp load : elementLoads)
      scratch.push_back(memref::MemorySpaceCastOp::create(
          b, loc, MemRefType::get({threads_}, load.getType()),
          workgroupBuffer({threads_}, load.getType(), loc)));
    Value valid = memref::MemorySpaceCastOp::create(
        b, loc, MemRefType::get({threads_}, b.getI1Type()),
        workgroupBuffer({threads_}, b.getI1Type(), loc));
    for (size_t k = 0; k <= n; ++k)
      memref::StoreOp::create(b, loc, mine.getResult(k), k < n ? scratch[k] : valid,
                              ValueRange{tid_});
    gpu::BarrierOp::create(b, loc);
    auto loadAll = [&](OpBuilder &at, Value index) {
      SmallVector<Value> v;
      for (size_t k = 0; k <= n; ++k)
        v.push_back(memref::LoadOp::create(at, loc, k < n ? scratch[k] : valid, ValueRange{index}));
      return v;
    };
    for (int64_t half = threads_ / 2; half >= 1; half /= 2) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid_,
                                           arith::ConstantIndexOp::create(b, loc, half));
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      OpBuilder in(ifOp.thenBlock()->getTerminator());
      SmallVector<Value> a = loadAll(in, tid_);
      SmallVector<Value> e = loadAll(
          in, arith::AddIOp::create(in, loc, tid_, arith::ConstantIndexOp::create(in, loc, half)));
      SmallVector<Value> m = merge(in, ValueRange(a).drop_back(), a.back(),
                                   ValueRange(e).drop_back(), e.back());
      for (size_t k = 0; k <= n; ++k)
        memref::StoreOp::create(in, loc, m[k], k < n ? scratch[k] : valid, ValueRange{tid_});
      gpu::BarrierOp::create(b, loc);
    }
    // Thread 0: the accumulators combined with the block's total, where there is one.
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid_, zero_);
    auto ifOp = scf::IfOp::create(b, loc, isZero, /*withElseRegion=*/false);
    OpBuilder in(ifOp.thenBlock()->getTerminator());
    SmallVector<Value> total = loadAll(in, zero_), acc;
    for (memref::LoadOp load : accLoads)
      acc.push_back(memref::LoadOp::create(in, loc, load.getMemRef()));
    SmallVector<Value> result =
        merge(in, acc, yes, ValueRange(total).drop_back(), total.back());
    for (size_t k = 0; k < n; ++k)
      memref::StoreOp::create(in, loc, result[k], accLoads[k].getMemRef());
    barrierAfter(ifOp);
    loop.erase();
    return true;
  }

  /// A parallel loop spread over the threads, between barriers: in groups of consecutive
  /// iterations where its accesses allow (distributeGroups), one iteration at a time
  /// otherwise (distributeIterations).
  void distribute(scf::ParallelOp loop) {
    rotateReductions(loop, [&](Value v) { return shared_.contains(viewedBuffer(v)); });
    barrierBefore(loop);
    Operation *last = distributeGroups(loop);
    if (!last)
      last = distributeIterations(loop);
    barrierAfter(last);
  }

  /// for i in [tid, total) step numThreads: `emit(i)`, `unroll` values of i at a time (i,
  /// i + numThreads, ...) and the rest one at a time. Returns the last loop.
  Operation *spreadOverThreads(OpBuilder &b, Location loc, Value total, int64_t unroll,
                               llvm::function_ref<void(OpBuilder &, Value)> emit) {
    if (std::optional<int64_t> n = getConstantIntValue(total))
      unroll = std::min<int64_t>(unroll, llvm::divideCeil(std::max<int64_t>(*n, 1), threads_));
    Value start = tid_;
    if (unroll > 1) {
      // for base in [tid, total - (unroll - 1) * numThreads) step unroll * numThreads:
      //   the body at base, base + numThreads, ...
      Value stride = arith::ConstantIndexOp::create(b, loc, unroll * threads_);
      Value limit = b.createOrFold<arith::SubIOp>(
          loc, total, arith::ConstantIndexOp::create(b, loc, (unroll - 1) * threads_));
      auto main = scf::ForOp::create(b, loc, tid_, limit, stride);
      OpBuilder body = OpBuilder::atBlockBegin(main.getBody());
      for (int64_t u = 0; u < unroll; ++u) {
        Value at = main.getInductionVar();
        if (u)
          at = arith::AddIOp::create(body, loc, at,
                                     arith::ConstantIndexOp::create(body, loc, u * threads_));
        emit(body, at);
      }
      // Where it stopped: tid + max(ceil((limit - tid) / stride), 0) * stride.
      Value steps = arith::CeilDivSIOp::create(b, loc, arith::SubIOp::create(b, loc, limit, tid_),
                                               stride);
      steps = arith::MaxSIOp::create(b, loc, steps, zero_);
      start = arith::AddIOp::create(b, loc, tid_, arith::MulIOp::create(b, loc, steps, stride));
    }
    auto rest = scf::ForOp::create(b, loc, start, total, numThreads_);
    OpBuilder body = OpBuilder::atBlockBegin(rest.getBody());
    emit(body, rest.getInductionVar());
    return rest;
  }

  /// for i in [tid, total) step numThreads: the body at the delinearized indices, `unroll_`
  /// iterations at a time (i, i + numThreads, ...) and the rest one at a time. An inner
  /// dimension (one the delinearization divides by) whose trip count is dynamic but bounded by
  /// a constant (a masked tile: min(cols left, BLOCK)) is iterated over its bound, the body
  /// guarded by the dynamic count: constant divisors instead of a run-time division per
  /// element. The outermost dimension keeps its dynamic count (no division by it, no guard).
  /// Returns the last loop it made.
  Operation *distributeIterations(scf::ParallelOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    SmallVector<Value> trips, guards; // per dimension: the iterated count, the dynamic one
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      Value span = b.createOrFold<arith::SubIOp>(loc, ub, lb);
      Value n = b.createOrFold<arith::CeilDivSIOp>(loc, span, step);
      n = b.createOrFold<arith::MaxSIOp>(loc, n, zero_);
      Value guard;
      std::optional<int64_t> lbValue = getConstantIntValue(lb);
      std::optional<int64_t> stepValue = getConstantIntValue(step);
      std::optional<int64_t> ubBound = constantBound(ub, /*upper=*/true);
      bool divisor = !trips.empty(); // dimension d > 0
      if (divisor && !getConstantIntValue(n) && lbValue && stepValue && *stepValue > 0 &&
          ubBound) {
        guard = n;
        n = arith::ConstantIndexOp::create(
            b, loc, std::max<int64_t>(0, llvm::divideCeil(*ubBound - *lbValue, *stepValue)));
      }
      trips.push_back(n);
      guards.push_back(guard);
      total = b.createOrFold<arith::MulIOp>(loc, total, n);
    }
    // The loop body at linear iteration `linear`.
    auto emitBody = [&](OpBuilder &body, Value linear) {
      IRMapping map;
      Value inside;
      // Innermost dimension fastest.
      for (int d = int(trips.size()) - 1; d >= 0; --d) {
        Value index = linear;
        if (d > 0) {
          index = arith::RemUIOp::create(body, loc, linear, trips[d]);
          linear = arith::DivUIOp::create(body, loc, linear, trips[d]);
        }
        if (guards[d]) {
          Value in = arith::CmpIOp::create(body, loc, arith::CmpIPredicate::slt, index, guards[d]);
          inside = inside ? arith::AndIOp::create(body, loc, inside, in).getResult() : in;
        }
        Value scaled = arith::MulIOp::create(body, loc, index, loop.getStep()[d]);
        map.map(loop.getInductionVars()[d],
                arith::AddIOp::create(body, loc, loop.getLowerBound()[d], scaled));
      }
      OpBuilder at = body;
      if (inside) {
        auto ifOp = scf::IfOp::create(body, loc, inside, /*withElseRegion=*/false);
        at.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      }
      for (Operation &inner : loop.getBody()->without_terminator())
        at.clone(inner, map);
    };
    // A body with a loop of its own (a dot product per element) has its own independent work;
    // unrolled it only costs registers (matmul ran 2x slower on the H100).
    bool nested = loop.getBody()
                      ->walk([](LoopLikeOpInterface) { return WalkResult::interrupt(); })
                      .wasInterrupted();
    Operation *last = spreadOverThreads(b, loc, total, nested ? 1 : unroll_, emitBody);
    loop.erase();
    return last;
  }

  /// A loop over a static space from 0 in steps of 1, whose body is loads, stores and pure ops
  /// (guarded or not, as tessel-cuda-whole-tile-loops leaves a masked copy), every access at
  /// the innermost induction variable of a buffer whose groups of V consecutive elements
  /// start aligned: a shared tile whose rows are whole groups, or a global view
  /// (groupsAligned); or a load at indices the innermost one does not change. Each thread
  /// then takes V consecutive iterations at a time (group g at g * V, groups tid, tid + T,
  /// ...), so its accesses of a group become one vector access
  /// (a matmul's epilogue: 16-byte reads of the staged tile, 16-byte stores into C). A
  /// global view's row stride known only at run time is tested there: the groups where it is
  /// a multiple of V (their vector accesses carry the group's alignment, which the test and
  /// the view's aligned first element guarantee), distributeIterations otherwise. Returns the last op made, or null (nothing changed)
  /// where the loop does not qualify.
  Operation *distributeGroups(scf::ParallelOp loop) {
    if (loop.getNumResults() != 0)
      return nullptr;
    SmallVector<int64_t> shape;
    for (auto [lb, ub, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> n = getConstantIntValue(ub);
      if (!isConstantIntValue(lb, 0) || !isConstantIntValue(step, 1) || !n || *n <= 0)
        return nullptr;
      shape.push_back(*n);
    }
    Block *body = loop.getBody();
    scf::IfOp guard = tessel::cuda::guardOfBody(body);
    SmallVector<Operation *> accesses;
    auto plain = [&](Block *block) {
      for (Operation &op : block->without_terminator()) {
        if (&op == guard.getOperation())
          continue;
        if (tessel::cuda::memrefAccess(&op))
          accesses.push_back(&op);
        else if (op.getNumRegions() || !isPure(&op))
          return false;
      }
      return true;
    };
    if (!plain(body) || (guard && !plain(guard.thenBlock())) || accesses.empty())
      return nullptr;
    // Elements in whole bytes (a vector of i1 is stored as bits, a buffer of i1 one byte
    // each); V from the widest (an epilogue reading f32 and storing bf16: 16-byte reads,
    // 8-byte stores).
    auto elementBytes = [](Operation *op) {
      Type element = cast<MemRefType>(tessel::cuda::memrefAccess(op)->first.getType())
                         .getElementType();
      return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0
                 ? int64_t(element.getIntOrFloatBitWidth() / 8)
                 : int64_t(0);
    };
    int64_t bytes = 0;
    for (Operation *op : accesses) {
      if (!elementBytes(op))
        return nullptr;
      bytes = std::max(bytes, elementBytes(op));
    }
    if (vectorBytes_ <= bytes)
      return nullptr;
    int64_t v = int64_t(llvm::bit_floor(uint64_t(std::min<int64_t>(vectorBytes_, 16) / bytes)));
    while (v > 1 && shape.back() % v != 0)
      v /= 2;
    if (v <= 1)
      return nullptr;
    Value inner = loop.getInductionVars().back();
    auto followsInner = [&](Value value) {
      return tessel::cuda::followsInduction(value, inner, loop);
    };
    // Loads at the same element for every lane of a group (a row's scale in an epilogue):
    // each lane's copy reads it (LLVM merges them), no vector access.
    llvm::SmallPtrSet<Operation *, 4> sameForLanes;
    SmallVector<Value> runtimeStrides;
    for (Operation *op : accesses) {
      auto [memref, indices] = *tessel::cuda::memrefAccess(op);
      if (isa<memref::LoadOp>(op) && llvm::none_of(indices, followsInner)) {
        sameForLanes.insert(op);
        continue;
      }
      // The group's elements side by side: the same outer indices for every lane.
      if (!indices.empty() && llvm::any_of(indices.drop_back(), followsInner))
        return nullptr;
      llvm::DenseSet<Value> seen;
      if (isShared(memref, seen)) {
        // Shared tiles start kSharedTileAlignment-aligned; rows of whole groups (a view of
        // one at static strides and offset, multiples of V) keep every group so.
        auto type = cast<MemRefType>(memref.getType());
        if (indices.empty() || indices.back() != inner || type.getShape().back() % v != 0 ||
            !tessel::cuda::rowsOfWholeGroups(type, v))
          return nullptr;
        continue;
      }
      if (!isa<BlockArgument>(viewedBuffer(memref)) ||
          !tessel::cuda::groupsAligned(memref, indices, inner, v, &runtimeStrides))
        return nullptr;
    }
    // The run-time test goes before the loop.
    if (!llvm::all_of(runtimeStrides, [&](Value s) { return loop.isDefinedOutsideOfLoop(s); }))
      return nullptr;
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    scf::IfOp version;
    if (!runtimeStrides.empty()) {
      // if (every such stride % V == 0) { the groups } else { one iteration at a time }
      Value all;
      Value lowBits = arith::ConstantIndexOp::create(b, loc, v - 1);
      for (Value stride : runtimeStrides) {
        Value low = arith::AndIOp::create(b, loc, stride, lowBits);
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, zero_);
        all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
      }
      version = scf::IfOp::create(b, loc, all, /*withElseRegion=*/true);
      b.setInsertionPoint(version.thenBlock()->getTerminator());
    }
    int64_t total = 1;
    for (int64_t n : shape)
      total *= n;
    Value groups = arith::ConstantIndexOp::create(b, loc, total / v);
    auto emitGroup = [&](OpBuilder &at, Value group) {
      // The first element's indices (the innermost dimension a multiple of V, so the
      // group's elements are the next V - 1 along it).
      Value linear =
          arith::MulIOp::create(at, loc, group, arith::ConstantIndexOp::create(at, loc, v));
      SmallVector<Value> indices = tessel::cuda::delinearize(at, loc, linear, shape);
      SmallVector<IRMapping> maps(v);
      for (int64_t lane = 0; lane < v; ++lane) {
        SmallVector<Value> laneIndices = indices;
        if (lane)
          laneIndices.back() = arith::AddIOp::create(
              at, loc, indices.back(), arith::ConstantIndexOp::create(at, loc, lane));
        maps[lane].map(loop.getInductionVars(), laneIndices);
      }
      tessel::cuda::cloneGroup(
          at, loc, body, guard, maps,
          [](OpBuilder &in, llvm::iterator_range<Block::iterator> ops, IRMapping &map, int64_t) {
            for (Operation &op : ops)
              in.clone(op, map);
          },
          [&](Operation &op) {
            return !tessel::cuda::memrefAccess(&op) || sameForLanes.contains(&op)
                       ? int64_t(0)
                       : v * elementBytes(&op);
          });
    };
    Operation *last = spreadOverThreads(b, loc, groups, unroll_, emitGroup);
    if (!version) {
      loop.erase();
      return last;
    }
    loop->moveBefore(version.elseBlock()->getTerminator());
    distributeIterations(loop);
    return version;
  }

  /// The ops of `run` on thread 0; their results used after the run reach every thread
  /// through shared memory.
  LogicalResult onThreadZero(ArrayRef<Operation *> run) {
    Operation *first = run.front();
    Location loc = first->getLoc();
    barrierBefore(first);
    OpBuilder b(first);
    Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid_, zero_);
    auto ifOp = scf::IfOp::create(b, loc, isZero, /*withElseRegion=*/false);
    Operation *yield = ifOp.thenBlock()->getTerminator();
    SmallVector<std::pair<Value, Value>> broadcasts; // result, its shared scalar
    for (Operation *op : run)
      op->moveBefore(yield);
    for (Operation *op : run) {
      for (Value result : op->getResults()) {
        bool usedAfter = llvm::any_of(result.getUsers(),
                                      [&](Operation *user) { return !ifOp->isAncestor(user); });
        if (!usedAfter)
          continue;
        if (isa<MemRefType>(result.getType()))
          return op->emitError() << "a memref computed by an op with side effects cannot be "
                                    "shared across the threads of a block on cuda yet";
        Value shared = workgroupBuffer({}, result.getType(), loc);
        broadcasts.push_back({result, shared});
      }
    }
    OpBuilder store(yield);
    for (auto [result, shared] : broadcasts)
      memref::StoreOp::create(store, loc, result, shared);
    OpBuilder after(ifOp->getBlock(), std::next(ifOp->getIterator()));
    gpu::BarrierOp::create(after, loc);
    for (auto [result, shared] : broadcasts) {
      Value loaded = memref::LoadOp::create(after, loc, shared);
      result.replaceUsesWithIf(loaded, [&](OpOperand &use) {
        return !ifOp->isAncestor(use.getOwner());
      });
    }
    return success();
  }

  gpu::GPUFuncOp func_;
  int64_t threads_, unroll_, threadTileElements_, vectorBytes_;
  int64_t arenaBytes_ = 0;
  int64_t staticSharedBytes_;
  int64_t tileAlignment_ = tessel::cuda::kSharedTileAlignment;
  Value arenaPad_; ///< bytes from the arena's start to its first aligned address
  bool useArena_ = false;
  Value tid_, numThreads_, zero_, arena_;
  llvm::DenseSet<Value> shared_; // the tile buffers in shared memory
};

struct CudaMapProgramsPass : tessel::impl::CudaMapProgramsBase<CudaMapProgramsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (numWarps < 1 || numWarps > 32) {
      module.emitError() << "num-warps must be 1..32, got " << static_cast<int64_t>(numWarps);
      return signalPassFailure();
    }
    if (warpSize != 32 && warpSize != 64) {
      module.emitError() << "warp-size must be 32 or 64, got " << static_cast<int64_t>(warpSize);
      return signalPassFailure();
    }
    if (threadTileElements < 0 || threadTileElements > 256) {
      module.emitError() << "thread-tile-elements must be 0..256, got "
                         << static_cast<int64_t>(threadTileElements);
      return signalPassFailure();
    }
    if (vectorBytes < 0 || vectorBytes > 64) {
      module.emitError() << "vector-bytes must be 0..64, got " << static_cast<int64_t>(vectorBytes);
      return signalPassFailure();
    }
    if (unroll < 1 || unroll > 16) {
      module.emitError() << "unroll must be 1..16, got " << static_cast<int64_t>(unroll);
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> kernels, callees;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal())
        continue;
      (f.isPublic() ? kernels : callees).push_back(f);
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "tessel_kernels");
    OpBuilder inGpu = OpBuilder::atBlockBegin(gpuModule.getBody());

    // Constants (memref.global) go with the code that reads them.
    for (auto global : llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      global->moveBefore(gpuModule.getBody(), gpuModule.getBody()->end());

    // Device functions: run by one thread (the caller's thread 0) with private buffers. PTX
    // names are [A-Za-z0-9_$] (LLVM aborts on others), while Triton names noinline functions
    // like "__main__.scale_add__fp32__(1,)cconstexpr_2_d_0_": the others become '_', made
    // unique with a suffix.
    SymbolTable symbols(module);
    for (func::FuncOp callee : callees) {
      std::string name = callee.getName().str();
      bool renamed = false;
      for (char &c : name)
        if (!llvm::isAlnum(c) && c != '_' && c != '$') {
          c = '_';
          renamed = true;
        }
      if (renamed) {
        std::string unique = name;
        for (int i = 1; symbols.lookup(unique); ++i)
          unique = name + "_" + std::to_string(i);
        if (failed(symbols.rename(callee, StringAttr::get(ctx, unique)))) {
          callee.emitError() << "cannot rename the device function to '" << unique << "'";
          return signalPassFailure();
        }
      }
    }
    for (func::FuncOp callee : callees) {
      callee->moveBefore(gpuModule.getBody(), gpuModule.getBody()->end());
      SmallVector<memref::AllocOp> allocs;
      callee.walk([&](memref::AllocOp a) { allocs.push_back(a); });
      for (memref::AllocOp alloc : allocs)
        toPrivateBuffer(alloc);
    }

    int64_t threads = numWarps * warpSize;
    SmallVector<std::pair<gpu::GPUFuncOp, int64_t>> arenas; // kernel, its arena's bytes
    for (func::FuncOp kernel : kernels) {
      FunctionType type = kernel.getFunctionType();
      unsigned n = type.getNumInputs();
      if (n < 6 || type.getNumResults() != 0 ||
          llvm::any_of(type.getInputs().take_back(6),
                       [](Type t) { return !t.isSignlessInteger(32); })) {
        kernel.emitError() << "a kernel needs six trailing i32 arguments (program ids and grid "
                              "sizes) and no results";
        return signalPassFailure();
      }
      // Unstructured control flow (cf.cond_br to an early return, as Triton prints it) is
      // lifted to scf before this pass (gpuBufferizationPipeline). Checked before anything
      // moves: only the entry block's operations move into the gpu.func, and erasing the
      // kernel would free blocks that its branch still targets.
      if (!kernel.getBody().hasOneBlock()) {
        kernel.emitError() << "a kernel with several blocks (unstructured control flow) cannot "
                              "be mapped to a GPU: lift it to scf first (lift-cf-to-scf)";
        return signalPassFailure();
      }
      // Persistent: the grid's sizes come as three more arguments.
      SmallVector<Type> inputs(type.getInputs().drop_back(6));
      if (persistent)
        inputs.append(3, IntegerType::get(ctx, 32));
      auto gpuType = FunctionType::get(ctx, inputs, {});
      inGpu.setInsertionPointToEnd(gpuModule.getBody());
      auto func = gpu::GPUFuncOp::create(inGpu, kernel.getLoc(), kernel.getName(), gpuType);
      func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
      // Which arguments are (rank-1) memrefs: the bare-pointer entry needs to know after the
      // lowering to NVVM has expanded them.
      SmallVector<int64_t> ranks;
      for (Type t : gpuType.getInputs())
        ranks.push_back(isa<MemRefType>(t) ? cast<MemRefType>(t).getRank() : -1);
      func->setAttr("tessel.memref_ranks", DenseI64ArrayAttr::get(ctx, ranks));
      if (auto d = kernel->getAttrOfType<DenseI64ArrayAttr>(tessel::kArgDivisibilityAttr)) {
        SmallVector<int64_t> divisibility(d.asArrayRef());
        divisibility.resize(n - 6, 1); // TMA tensor maps and their mask (TileCopies.h)
        if (persistent)
          divisibility.append(3, 1);
        func->setAttr(tessel::kArgDivisibilityAttr, DenseI64ArrayAttr::get(ctx, divisibility));
      }
      if (Attribute maps = kernel->getAttr(tessel::cuda::kTensorMapsAttr))
        func->setAttr(tessel::cuda::kTensorMapsAttr, maps);
      func.setKnownBlockSizeAttr(
          DenseI32ArrayAttr::get(ctx, {int32_t(threads), 1, 1}));
      Block &entry = func.getBody().front();
      Block &old = kernel.getBody().front();
      // Program ids and grid sizes from the block's position in the grid.
      OpBuilder ib = OpBuilder::atBlockBegin(&entry);
      Location loc = kernel.getLoc();
      gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z};
      SmallVector<Operation *> ids, sizes;
      for (int d = 0; d < 3; ++d) {
        Value id = gpu::BlockIdOp::create(ib, loc, dims[d]);
        Value size = gpu::GridDimOp::create(ib, loc, dims[d]);
        ids.push_back(id.getDefiningOp());
        sizes.push_back(size.getDefiningOp());
        old.getArgument(n - 6 + d).replaceAllUsesWith(
            arith::IndexCastOp::create(ib, loc, ib.getI32Type(), id));
        old.getArgument(n - 3 + d).replaceAllUsesWith(
            arith::IndexCastOp::create(ib, loc, ib.getI32Type(), size));
      }
      for (unsigned i = 0; i + 6 < n; ++i)
        old.getArgument(i).replaceAllUsesWith(entry.getArgument(i));
      // The body, its return a gpu.return.
      if (!entry.empty() && entry.back().hasTrait<OpTrait::IsTerminator>())
        entry.back().erase();
      entry.getOperations().splice(entry.end(), old.getOperations());
      for (auto r : llvm::make_early_inc_range(func.getOps<func::ReturnOp>())) {
        OpBuilder rb(r);
        gpu::ReturnOp::create(rb, r.getLoc());
        r.erase();
      }
      kernel.erase();
      BlockMapper mapper(func, threads, unroll, threadTileElements, vectorBytes,
                         staticSharedBytes);
      if (failed(mapper.run()))
        return signalPassFailure();
      if (persistent)
        runProgramsInTurn(func, ids, sizes);
      arenas.push_back({func, mapper.arenaBytes()});
    }
    // gpu.all_reduce as warp shuffles and shared memory.
    RewritePatternSet patterns(ctx);
    populateGpuAllReducePatterns(patterns);
    if (failed(applyPatternsGreedily(gpuModule, std::move(patterns))))
      return signalPassFailure();
    // Each kernel's arena in the launch metadata; the arena and the static buffers (broadcast
    // scalars, the reductions' scratch) within what a block may use.
    SmallVector<NamedAttribute> sizes, totals;
    if (auto old = module->getAttrOfType<DictionaryAttr>(tessel::kDynamicSharedBytesAttr))
      sizes.append(old.begin(), old.end());
    if (auto old = module->getAttrOfType<DictionaryAttr>(tessel::kTotalSharedBytesAttr))
      totals.append(old.begin(), old.end());
    for (auto [func, arena] : arenas) {
      // In 16-byte slots, as the static buffers.
      int64_t total = int64_t(llvm::alignTo(arena, 16));
      for (BlockArgument buffer : func.getWorkgroupAttributions())
        total += llvm::alignTo(
            tessel::sharedBufferBytes(cast<MemRefType>(buffer.getType()), func), 16);
      // And the TMA tiles' mbarriers (static variables of 8 bytes a barrier).
      func.walk([&](nvgpu::MBarrierCreateOp create) {
        total += llvm::alignTo(8 * int64_t(create.getBarriers().getType().getNumBarriers()), 16);
      });
      if (maxSharedBytes > 0 && total > maxSharedBytes) {
        func.emitError() << "the kernel needs " << total
                         << " bytes of shared memory; a block of this GPU has "
                         << static_cast<int64_t>(maxSharedBytes)
                         << " (smaller tiles or fewer of them)";
        return signalPassFailure();
      }
      auto i64 = IntegerType::get(ctx, 64);
      sizes.push_back(NamedAttribute(func.getNameAttr(), IntegerAttr::get(i64, arena)));
      totals.push_back(NamedAttribute(func.getNameAttr(), IntegerAttr::get(i64, total)));
    }
    module->setAttr(tessel::kDynamicSharedBytesAttr, DictionaryAttr::get(ctx, sizes));
    module->setAttr(tessel::kTotalSharedBytesAttr, DictionaryAttr::get(ctx, totals));
  }
};

} // namespace
