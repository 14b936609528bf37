//===- TileCopies.h - operand tiles written in 16-byte chunks per thread -*- C++ -*-===//
//
// tessel-cuda-tensor-core-dots stages a matmul's operands in shared-memory tile buffers; the
// structured lowering fills them (a masked load's `other`) and copies the loaded part from
// global memory. Lowered as linalg loops, each thread moves one 2-byte element per iteration
// with 2-D index arithmetic, which dominates a tensor-core matmul. Here those writes become
// per-thread code moving 16-byte chunks.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_TILECOPIES_H
#define TESSEL_COMPILER_BACKEND_CUDA_TILECOPIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace tessel::cuda {

/// An scf.execute_region at `b` returning `types`, marked kPerThreadAttr (every thread runs it
/// on its own part) and not to be inlined (canonicalization runs before
/// tessel-cuda-map-programs sees it); `body` fills it and returns what it yields.
mlir::scf::ExecuteRegionOp
perThreadRegion(mlir::OpBuilder &b, mlir::Location loc, mlir::TypeRange types,
                llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::OpBuilder &)> body);

/// `loop`'s iteration at `b` (from 0, as an index): (iv - lower bound) / step.
mlir::Value iterationOf(mlir::OpBuilder &b, mlir::Location loc, mlir::scf::ForOp loop);

/// Whether every thread of a kernel's block runs `op`: only loops and ifs around it (control
/// flow tessel-cuda-map-programs keeps uniform), not a parallel loop or a while loop.
bool reachedByEveryThread(mlir::Operation *op);

/// The writes of `tile` (a 2-D static tile buffer of 16- or 32-bit elements whose rows are
/// whole 16-byte chunks) by linalg.fill, and by linalg.copy into it or a subview of it from a
/// 2-D memref whose rows are contiguous, become per-thread regions: chunk q (8 or 4 elements,
/// row-major)
/// goes to thread q mod `threads` (at most 16 chunks a thread, else nothing is rewritten); a
/// chunk the copy covers whole, from a 16-byte aligned address (checked at run time), moves as
/// one 16-byte load and store, the others element by element; a thread issues all of its
/// loads before its first store.
/// Where `isReader` is given and accepts every user of the tile other than its fills (also of
/// whole rows) and copies, the tile is stored swizzled (swizzledPosition) and marked
/// kSwizzledAttr, as writeTileAsync's tiles are.
/// A wrap-around tile's gather (structured-to-memref's scf.if marked tessel.wrap_gather, after
/// the copies) becomes the same chunks, rewritten element by element where it holds.
void writeTileInChunks(mlir::Value tile, int64_t threads,
                       llvm::function_ref<bool(mlir::Operation *)> isReader = nullptr);

/// What lets writeTileAsync load a kernel's tiles with TMA (sm_90a): the kernel (a func.func
/// with its six trailing program arguments), which gets a tensor-map argument (an !llvm.ptr
/// the runtime points at a 128-byte tensor map; kTensorMapsAttr describes them) for each
/// source it reads so, and one i32 argument after them, the mask of those the runtime made.
struct TmaLoads {
  mlir::func::FuncOp kernel;
  mlir::Value mask;                             ///< made with the first map
  llvm::SmallVector<mlir::DictionaryAttr> maps; ///< their kTensorMapsAttr entries, in order
  llvm::SmallVector<mlir::Value> arguments;     ///< their arguments
  int64_t boxes = 0;                            ///< the box loads made so far (their issuers rotate)
  /// Warp specialized (tessel-cuda-warp-specialize splits the kernel after the block mapping):
  /// thread `threads` (a producer warp's first lane) issues the box loads, in regions marked
  /// kWarpProducerAttr (the tile's map index), once the consumer warps have released the slot
  /// (each arrives on the slot's second mbarrier after the step that read it:
  /// tessel-cuda-pipeline-tile-loads; the producer waits for the previous use's phase); where
  /// TMA does not load the tile, the consumers copy it and the producer arrives on its
  /// mbarrier without bytes.
  bool specialized = false;
};

/// The writes of `tile` inside a loop body (at most one zero linalg.fill, then linalg.copy of
/// views with contiguous rows into it or its subviews; every other user one `isReader`
/// accepts, after the writes in the same loop; the tile allocated outside the loop) become
/// one per-thread region marked kAsyncCopyAttr: each of the thread's 16-byte chunks is one
/// cp.async (nvgpu.device_async_copy) reading what the copies cover and zero-filling the
/// rest, where every copy's source is 16-byte aligned (checked at run time; otherwise the
/// synchronous chunks of writeTileInChunks). Where the copies read one buffer, each chunk is
/// one cp.async from it; where at run time they also partition the tile along one dimension
/// and span it along the other (a K loop's iterations before its masked last one), that
/// cp.async reads 16 bytes unconditionally from its copy's start plus an offset that does not
/// change across iterations. A region marked kAsyncCommitAttr closes the
/// group after it and one marked kAsyncWaitAttr waits for it before the first reader.
/// A tile whose rows are whole power-of-two 16-byte chunks is stored swizzled (swizzledPosition)
/// and its buffer marked kSwizzledAttr: its readers must follow. Returns whether it rewrote
/// anything.
/// With `tma`, a swizzled tile whose copies read one kernel argument with a pitch the kernel
/// knows (an argument or a constant) is loaded by TMA where at run time one copy covers it
/// whole: a box load for each 128-byte column block (the tensor cores' swizzle, as
/// swizzledPosition stores it), issued by lane 0 of the kernel's warps in turn, completing on
/// the tile's mbarrier, whose first issuer arrives with mbarrier.arrive.expect_tx; otherwise
/// the copies above, and thread 0 arrives without bytes. The TMA branch is the region's fast
/// path (kCopyFastPathAttr; the copies' own is dropped). A region marked kTmaWaitAttr waits for the mbarrier's phase before the first
/// reader (each slot its mbarrier, the phase from the iteration: kTmaSlotsAttr).
/// A wrap-around tile's gather (tessel.wrap_gather: the rows or columns wrap more than once)
/// sends the region to its synchronous path, whose chunks it then rewrites element by element;
/// TMA and the cp.async paths need it not to hold.
bool writeTileAsync(mlir::Value tile, int64_t threads,
                    llvm::function_ref<bool(mlir::Operation *)> isReader,
                    TmaLoads *tma = nullptr);

/// Whether `tile` (2-D, static) is stored swizzled when writeTileAsync writes it: its rows are
/// a power of two (at least 2) of 16-byte chunks.
bool swizzles(mlir::MemRefType tile);

/// Where the chunk at column `col` (a multiple of a chunk: 8 16-bit or 4 32-bit elements) of
/// row `row` of the swizzled `tile` is stored, as a (row, column) of its buffer: for rows of
/// at most 8 chunks, the same row and the chunk index XOR the row's group (row mod 8 for rows
/// of 8 chunks, else row / (8 / chunks a row) mod chunks a row), so the 8 rows an ldmatrix
/// reads at one logical column lie in 8 different groups of banks; wider rows are stored as
/// column blocks of 128 bytes, one after another, each swizzled as a tile of 8-chunk rows.
/// These are the tensor cores' 32-, 64- and 128-byte swizzled layouts (wgmma's shared-memory
/// operands) where the tile starts at a 1024-byte boundary.
std::pair<mlir::Value, mlir::Value> swizzledPosition(mlir::OpBuilder &b, mlir::Location loc,
                                                     mlir::Value row, mlir::Value col,
                                                     mlir::MemRefType tile);

/// A per-thread region marked kAsyncWaitAttr at `b`: cp.async.wait_group `pendingGroups`.
mlir::scf::ExecuteRegionOp waitForAsyncCopies(mlir::OpBuilder &b, mlir::Location loc,
                                              int32_t pendingGroups);

} // namespace tessel::cuda

#endif // TESSEL_COMPILER_BACKEND_CUDA_TILECOPIES_H
