//===- BlockMapping.h - pieces of tessel-cuda-map-programs shared by its files -*- C++ -*-===//
//
// MapPrograms.cpp spreads a program's work over a block's threads; ThreadTiles.cpp keeps tiles
// that every loop touches element for element in the registers of the thread that owns the
// element. Both finish reductions into a scalar the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_BLOCKMAPPING_H
#define TESSEL_COMPILER_BACKEND_CUDA_BLOCKMAPPING_H

#include "compiler/analysis/Membar.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace tessel::cuda {

/// Marks an scf.execute_region whose ops every thread runs on its own elements (already
/// spread over the threads): MapPrograms leaves it as it is, with barriers around it only
/// where it touches shared memory.
inline constexpr llvm::StringLiteral kPerThreadAttr = "tessel.per_thread";

/// Per-thread regions of asynchronous copies into shared memory (cp.async): kAsyncCopyAttr
/// issues copies (its writes land later: a barrier before it, none after, and each reader
/// of what it writes waits first), kAsyncCommitAttr closes the thread's group of them,
/// kAsyncWaitAttr waits until at most N groups are pending (neither touches shared memory;
/// the barrier before the reader makes the data visible to every thread).
inline constexpr llvm::StringLiteral kAsyncCopyAttr = "tessel.async_copy";
inline constexpr llvm::StringLiteral kAsyncCommitAttr = "tessel.async_commit";
inline constexpr llvm::StringLiteral kAsyncWaitAttr = "tessel.async_wait";
/// A per-thread region waiting on the mbarrier a TMA tile's loads complete on (TileCopies.h:
/// TmaLoads); like kAsyncWaitAttr it touches no shared memory. kTmaSlotsAttr marks the index
/// constant holding how many slots such a tile has (1 until tessel-cuda-pipeline-tile-loads
/// gives it more): its regions compute the slot and the mbarrier phase from it.
inline constexpr llvm::StringLiteral kTmaWaitAttr = "tessel.tma_wait";
inline constexpr llvm::StringLiteral kTmaSlotsAttr = "tessel.tma_slots";
/// An scf.execute_region (not to be inlined) inside a TMA copy region of a warp-specialized
/// kernel (TileCopies.h: TmaLoads::specialized) that only a producer warp runs:
/// tessel-cuda-warp-specialize keeps it in the producer's copy of the kernel, drops it from the
/// consumers'. Its value (an integer: the tile's tensor map) says which tile it loads; the
/// tiles may go to different producer warps.
inline constexpr llvm::StringLiteral kWarpProducerAttr = "tessel.warp_producer";
/// Whether `op` holds (or is) a region marked kWarpProducerAttr.
inline bool holdsWarpProducer(mlir::Operation *op) {
  return op
      ->walk([](mlir::scf::ExecuteRegionOp r) {
        return r->hasAttr(kWarpProducerAttr) ? mlir::WalkResult::interrupt()
                                             : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}
/// On the scf.while tessel-cuda-pipeline-tile-loads makes of a K loop's iterations that take
/// every copy's fast path (the loop after it runs the rest): a producer warp, which evaluates
/// the copies' conditions anyway, runs all iterations in the loop after it instead.
inline constexpr llvm::StringLiteral kFastIterationsAttr = "tessel.fast_iterations";
/// A per-thread region of a warp-specialized kernel's K loop, after a step on warpgroups:
/// each warp says (one arrival on the tile's second mbarrier) that the wgmma groups reading an
/// earlier iteration's slots are done, so the producer may load them again. Like
/// kTmaWaitAttr it touches no shared memory.
inline constexpr llvm::StringLiteral kSlotReleaseAttr = "tessel.slot_release";
/// On a kernel (func.func, then gpu.func and llvm.func): its TMA tensor maps, an array of
/// dictionaries (argument, pointer, pitch_argument or pitch, element_bytes, box, swizzle):
/// the artifact's "tensor_maps".
inline constexpr llvm::StringLiteral kTensorMapsAttr = "tessel.tensor_maps";

/// An scf.if inside an async-copy region choosing its fast path (its condition uniform and
/// computed by pure ops): tessel-cuda-pipeline-tile-loads runs a K loop's iterations while
/// every such condition holds in a copy of the loop where they are true.
inline constexpr llvm::StringLiteral kCopyFastPathAttr = "tessel.copy_fast_path";
/// On an async-copy region of a pipelined K loop issued after the iteration's step on
/// warpgroups: the slots it writes were last read by a wgmma group every warpgroup had
/// waited for before the barrier ahead of that step, so it needs no barrier of its own.
inline constexpr llvm::StringLiteral kSlotsReleasedAttr = "tessel.slots_released";

/// Marks a tile buffer (memref.alloc) whose 16-byte chunks are stored swizzled
/// (TileCopies.h: swizzledPosition); only code that knows it reads or writes it.
inline constexpr llvm::StringLiteral kSwizzledAttr = "tessel.swizzled";

/// On a tile buffer (memref.alloc): the byte boundary (an IntegerAttr) it must start at, wider
/// than shared memory's 16 bytes (wgmma's swizzled operands: 1024). tessel-cuda-map-programs
/// then places the kernel's tiles in the arena at that boundary.
inline constexpr llvm::StringLiteral kTileAlignmentAttr = "tessel.tile_alignment";

/// Marks the per-thread region of a K loop's step on warpgroups (wgmma) whose accumulators the
/// loop carries: its wgmma group may stay in flight into the next iteration where every tile
/// it reads has a slot more than the loop's stages (tessel-cuda-pipeline-tile-loads relaxes
/// its wait), the accumulators being waited for in a region after the loop. Its value: the
/// number of warpgroups that run the step.
inline constexpr llvm::StringLiteral kWarpgroupStepAttr = "tessel.warpgroup_step";

/// Whether `op` writes registers only although it declares no memory effects (or, inline
/// assembly marked tessel::kRegistersOnlyAttr, unknown ones): mma.sync, and wgmma, whose shared-memory
/// operands are read through descriptors made from the tiles' addresses (the region taking an
/// address touches the tile).
inline bool registersOnly(mlir::Operation *op) {
  return llvm::isa<mlir::NVVM::MmaOp, mlir::NVVM::WgmmaMmaAsyncOp, mlir::NVVM::WgmmaFenceAlignedOp,
                   mlir::NVVM::WgmmaGroupSyncAlignedOp, mlir::NVVM::WgmmaWaitGroupSyncOp>(op) ||
         (llvm::isa<mlir::LLVM::InlineAsmOp>(op) && op->hasAttr(tessel::kRegistersOnlyAttr));
}

/// The memref and indices `op` reads or writes when it is a memref.load or memref.store.
inline std::optional<std::pair<mlir::Value, mlir::ValueRange>> memrefAccess(mlir::Operation *op) {
  if (auto load = llvm::dyn_cast<mlir::memref::LoadOp>(op))
    return std::make_pair(load.getMemRef(), mlir::ValueRange(load.getIndices()));
  if (auto store = llvm::dyn_cast<mlir::memref::StoreOp>(op))
    return std::make_pair(store.getMemRef(), mlir::ValueRange(store.getIndices()));
  return std::nullopt;
}

/// The buffer a memref value views: through subviews, casts and reinterpretations.
mlir::Value viewedBuffer(mlir::Value v);

/// The all-reduce an associative, commutative arith op combining two values performs.
std::optional<mlir::gpu::AllReduceOperation> allReduceKind(mlir::Operation *op);

/// The one store in a reduction's `body` (into an accumulator defined outside `loop`, at
/// indices `indicesOk` accepts), every other op pure or a load; null when there is none, more
/// than one, or another kind of op.
mlir::memref::StoreOp accumulatorStore(mlir::Block *body, mlir::scf::ForOp loop,
                                       llvm::function_ref<bool(mlir::memref::StoreOp)> indicesOk);

/// A sequential loop reducing into a scalar buffer: `acc = combine(acc, element(i))` for each
/// i, `combine` one associative arith op the GPU dialect can all-reduce.
struct ScalarReduction {
  mlir::scf::ForOp loop;
  mlir::memref::LoadOp accLoad;
  mlir::memref::StoreOp accStore;
  mlir::Operation *combine;
  mlir::gpu::AllReduceOperation kind;
  mlir::TypedAttr neutral;
  mlir::Value element; // combine's operand that is not the accumulator
};
std::optional<ScalarReduction> matchScalarReduction(mlir::scf::ForOp loop);

/// The ops of a reduction's `body` but the accumulator's load and store, cloned at `b` under
/// `map` (in which the load's result is the partial so far); returns the value the store
/// would store.
mlir::Value cloneAccumulation(mlir::OpBuilder &b, mlir::Block *body,
                              mlir::memref::LoadOp accLoad, mlir::memref::StoreOp accStore,
                              mlir::IRMapping &map);

/// `combine` (an op of two operands, `accumulator` and `element`) cloned at `b` on `a` and `e`
/// in their places; returns its result.
mlir::Value applyCombine(mlir::OpBuilder &b, mlir::Operation *combine, mlir::Value accumulator,
                         mlir::Value element, mlir::Value a, mlir::Value e);

/// The reduction's iterations cloned at `b` for induction variable `iv` with `partial` as the
/// accumulator so far; returns the new partial.
mlir::Value cloneReductionStep(mlir::OpBuilder &b, ScalarReduction r, mlir::Value iv,
                               mlir::Value partial);

/// After every thread has its `partial`: the block's total (warp shuffles and shared memory)
/// combined with the accumulator's value, stored by thread `tid` 0.
void finishScalarReduction(mlir::OpBuilder &b, ScalarReduction r, mlir::Value partial,
                           mlir::Value tid);

/// Groups of consecutive iterations (GroupedAccess.cpp).
///
/// The indices of a row-major space of `shape` at linear position `linear`.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b, mlir::Location loc,
                                           mlir::Value linear, llvm::ArrayRef<int64_t> shape);

/// A loop body of pure ops and then one `scf.if` (no results, no else) holding the rest: the
/// guarded loop tessel-cuda-whole-tile-loops makes of a masked load or store. Null otherwise.
mlir::scf::IfOp guardOfBody(mlir::Block *body);

/// What every tile buffer in shared memory starts at, at least (a vector access of a group
/// reads 16 bytes).
inline constexpr int64_t kSharedTileAlignment = 16;

/// Whether `value` varies with the induction variable `inner` of `loop` (through the ops of
/// the loop that compute it).
bool followsInduction(mlir::Value value, mlir::Value inner, mlir::Operation *loop);

/// Whether a memref of `type` keeps groups of `v` elements aligned where its first element is
/// (a shared tile, kSharedTileAlignment-aligned): unit innermost stride, the other strides and
/// the offset static multiples of v.
bool rowsOfWholeGroups(mlir::MemRefType type, int64_t v);

/// Whether an access of `memref` (a view of a kernel argument) at `indices`, the innermost
/// being the loop's innermost induction variable `inner`, touches groups of `v` elements
/// (inner = 0 mod v) contiguous in memory and aligned to their bytes: unit innermost
/// stride, the other strides and the views' offsets multiples of v, down to a
/// memref.assume_alignment (triton-to-structured's AxisInfo proof that the tile's first
/// element is aligned) of at least v elements' bytes. A dynamic stride of the
/// memref.reinterpret_cast under that alignment is accepted where it is a known multiple of v
/// (a constant, a product with one, or an integer argument of the kernel whose
/// kArgDivisibilityAttr is: Triton's specialization, checked at launch), and otherwise, with
/// `runtimeStrides`, added there (the caller tests it at run time). `v` is a power of two.
bool groupsAligned(mlir::Value memref, mlir::ValueRange indices, mlir::Value inner, int64_t v,
                   llvm::SmallVectorImpl<mlir::Value> *runtimeStrides = nullptr);

/// One group of a loop's iterations at `b`, lane l under `maps[l]` (`cloneLane` clones a range
/// of the body's ops for a lane). With the body's `guard` (guardOfBody): every lane's test,
/// then the lanes' guarded ops side by side under one test where all pass (for LLVM to make
/// one vector access of neighbouring accesses) and each under its own test otherwise. Where
/// `packAlignment` gives a load or store of the body a non-zero alignment (bytes), the lanes'
/// copies of it where all lanes run are one explicit vector access so aligned (the caller
/// knows every group's elements start so aligned).
void cloneGroup(mlir::OpBuilder &b, mlir::Location loc, mlir::Block *body, mlir::scf::IfOp guard,
                llvm::MutableArrayRef<mlir::IRMapping> maps,
                llvm::function_ref<void(mlir::OpBuilder &,
                                        llvm::iterator_range<mlir::Block::iterator>,
                                        mlir::IRMapping &, int64_t)>
                    cloneLane,
                llvm::function_ref<int64_t(mlir::Operation &)> packAlignment = nullptr);

/// Tiles kept in registers (ThreadTiles.cpp): a tile buffer of static shape that every access
/// reaches element for element from a loop over its whole shape, with at most
/// `maxPerThread` elements a thread, becomes a private buffer of each thread, which holds
/// groups of V consecutive elements, group j at j * threads * V + tid * V (V = 1: the elements
/// e with e mod threads == tid); V spans at most `vectorBytes` and is more than 1 only where
/// the global accesses of those loops are proven contiguous and aligned in groups, so LLVM
/// makes them vector accesses. Those loops, and the reductions over such tiles, are spread
/// over the threads here (in kPerThreadAttr regions), so each thread touches only its own
/// elements. Returns the number of tiles kept so.
int64_t keepTilesInThreads(mlir::gpu::GPUFuncOp func, mlir::Value tid, int64_t threads,
                           int64_t maxPerThread, int64_t vectorBytes);

} // namespace tessel::cuda

#endif // TESSEL_COMPILER_BACKEND_CUDA_BLOCKMAPPING_H
