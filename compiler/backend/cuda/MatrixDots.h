//===- MatrixDots.h - tile matmuls on matrix instructions, for any GPU -*- C++ -*-===//
//
// After bufferization a tt.dot is a linalg.matmul of tile buffers: A (M x K) and B (K x N) of
// f16 or bf16 (or f32 the tt.dot allowed as tf32: kTf32Attr), accumulating into C (M x N) of
// f32. A GPU's matrix instructions compute a
// piece of C (pieceM x pieceN, pieceK deep) per warp, each lane holding a few elements of the
// operands and of the accumulator. What is the same for every such instruction is here: which
// matmuls qualify and how the block's warps split C (planDot), B loaded transposed as an N x K
// tile (transposeLoadsOfB), and the rewrite of a matmul into per-thread code whose
// accumulators stay in registers across the K loop (rewriteDot). How a warp loads its
// fragments and multiplies is the instruction's DotEmitter: mma.sync and ldmatrix
// (TensorCoreDots.cpp), mfma and wmma (compiler/backend/rocm/MatrixCoreDots.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_MATRIXDOTS_H
#define TESSEL_COMPILER_BACKEND_CUDA_MATRIXDOTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <memory>
#include <optional>

namespace tessel::cuda {

/// The shape of one matrix instruction as a warp runs it: a pieceM x pieceN piece of C,
/// pieceK deep, `accElements` f32 accumulator elements per lane; one load of B's fragments
/// covers `bColumnsPerLoad` columns (what the warp grid minimizes, with A's loads).
/// `quadRows`: the accumulators are m16n8 fragments (m16n8Elements' layout), each row of a
/// piece held by the 4 lanes of a quad (lane / 4).
struct DotShape {
  int64_t pieceM, pieceN, pieceK;
  int64_t accElements;
  int64_t bColumnsPerLoad;
  bool quadRows = false;
};

/// A matmul a warp's matrix instructions can run: static tile buffers, 16-bit float inputs (or
/// f32 ones allowed as tf32), f32 accumulator, and a split of C over the warps into warp tiles
/// of whole pieces.
struct DotPlan {
  mlir::linalg::MatmulOp op;
  mlir::Value a, b, c;
  int64_t m, n, k;
  mlir::Type input;       ///< f16, bf16, or f32 (multiplied as tf32)
  DotShape shape;
  int64_t warps;          ///< the block's warps
  int64_t warpM = 0;      ///< the warps stacked along M the knob asks for (0: chosen here)
  int64_t activeWarps;    ///< warps with a part of C of their own (warp w works as w mod it)
  int64_t warpsM, warpsN; ///< the warps' grid over C (warpgroups: the warpgroups' grid)
  int64_t tileM, tileN;   ///< one warp's part of C (warpgroups: tileM rows of a warp in all,
                          ///< 16 of each 64; tileN the warpgroup's columns)
  bool bTransposed = false; ///< b is stored N x K (loaded from column-contiguous memory)
  bool warpgroups = false;  ///< run by warpgroups of 4 warps (wgmma, WarpgroupDots.h)
  /// A's elements from registers instead of its tile, where another plan's register steps made
  /// it (attention's P): values in the accumulator layout of that plan's pieces, `aPiecesN`
  /// pieces a row, whose rows each warp and lane holds as this plan's A fragments need them.
  llvm::SmallVector<mlir::Value> aRegisters;
  int64_t aPiecesN = 0;
  /// Warpgroups: A goes to wgmma as registers (its m16n8k16 A fragments) instead of through a
  /// descriptor: aRegisters where they are handed over, else loaded from A's tile.
  bool aInRegisters = false;
  /// Row vectors another plan's register steps made that `rowsReader` (the elementwise op that
  /// rescales this plan's carried C) reads at its rows: one value a row slot, the slots this
  /// plan's own (the same rows for every warp and lane).
  llvm::SmallVector<std::pair<mlir::Value, llvm::SmallVector<mlir::Value>>, 2> rowRegisters;
  mlir::Operation *rowsReader = nullptr;

  int64_t piecesM() const { return tileM / shape.pieceM; }
  int64_t piecesN() const { return tileN / shape.pieceN; }
  /// The accumulators' types: one vector<accElements x f32> per piece, row-major over pieces.
  llvm::SmallVector<mlir::Type> accumulatorTypes() const;
};

/// The instruction shape a GPU multiplies operands of element type `input` with, if it has one
/// (f32 means tf32).
using DotShapeFor = llvm::function_ref<std::optional<DotShape>(mlir::Type input)>;

/// The plan for `op` with `warps` warps and the instruction `shapeFor` its operands, if it
/// qualifies: f16 or bf16 operands, or f32 ones where the matmul carries kTf32Attr. The warps'
/// grid over C has `warpM` rows where that is not 0 (`refused` set, and an error emitted at
/// the matmul, where its pieces do not split so), else the grid with the fewest fragment loads.
std::optional<DotPlan> planDot(mlir::linalg::MatmulOp op, int64_t warps, DotShapeFor shapeFor,
                               int64_t warpM, bool &refused);

/// Where B (K x N) is written only by zero fills and copies from column-contiguous memory (a
/// transposed load, Triton's `K` of attention), its copies are rewritten to fill an N x K tile
/// from the transposed views instead (contiguous rows, which move in 16-byte chunks), and the
/// plan reads that tile (bTransposed). Returns whether it did.
bool transposeLoadsOfB(DotPlan &p);

/// One instruction's code for one plan, emitted at a builder inside a per-thread region.
class DotEmitter {
public:
  DotEmitter(mlir::OpBuilder &b, mlir::Location loc, const DotPlan &p) : b_(b), loc_(loc), p_(p) {}
  virtual ~DotEmitter() = default;
  /// The thread's coordinates (warp, lane, ...), computed once per region.
  virtual void locate() = 0;
  /// The K dimension in steps of pieceK; returns the new accumulators.
  virtual llvm::SmallVector<mlir::Value> multiply(mlir::ValueRange accs) = 0;
  /// The thread's accumulator elements of C, as accumulatorTypes() (pieceElements); where they
  /// come in pairs of adjacent columns (columnPairs), each pair one 8-byte access.
  llvm::SmallVector<mlir::Value> loadAccumulators();
  void storeAccumulators(mlir::ValueRange accs);
  /// `accs` with each element replaced by `f(element, row, column, slot)` (C's row and column;
  /// its row slot in quadRows layouts, else -1); the vectors' element type is f's.
  llvm::SmallVector<mlir::Value> mapAccumulators(
      mlir::ValueRange accs,
      llvm::function_ref<mlir::Value(mlir::Value, mlir::Value, mlir::Value, int64_t)> f);
  /// Accumulator-shaped values `accs` (of `tile`'s element type) into `tile` (C's shape, rows
  /// of an even number of elements): column pairs as one vector store, else element by element.
  void storeTile(mlir::ValueRange accs, mlir::Value tile);
  /// Row slots (quadRows layouts only): the rows of C the thread holds elements of, each
  /// shared by the 4 lanes of its quad: piece row i's rows r and r + 8 are slots 2 i and
  /// 2 i + 1. A row vector in registers holds one value a slot.
  llvm::SmallVector<mlir::Value> rowSlots();
  /// For each row slot: `combine` over the thread's elements of the row and then over the
  /// quad's lanes (shuffles), so each of the quad's lanes has the row's total.
  llvm::SmallVector<mlir::Value>
  reduceRows(mlir::ValueRange accs,
             llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> combine);
  /// A row vector (one value a slot) into the 1-D `buffer` at its rows, by each quad's first
  /// lane.
  void storeRows(mlir::ValueRange values, mlir::Value buffer);
  /// The four A fragment registers of k step `k` (16 columns) of piece row `i` where A is
  /// handed over in registers (aRegisters, in m16n8 pieces): pieces 2k/16 and 2k/16 + 1, each
  /// lane's elements at its rows r and r + 8, as pairs of adjacent columns
  /// (vector<2 x input>).
  llvm::SmallVector<mlir::Value> handedFragment(int64_t i, int64_t k);
  /// Waits for the thread's matrix instructions a loop left in flight (wgmma): in a region of
  /// its own before the barrier that orders the accumulators' store after every warp's reads
  /// of the operand tiles (whose bytes C may reuse), and in a rescaled step before the rescale
  /// reads the accumulators.
  virtual void settle() {}

protected:
  /// Whether pieceElements lists each lane's elements as pairs of adjacent columns, the first
  /// an even one (m16n8Elements' order: the quadRows layouts).
  bool columnPairs() const { return p_.shape.quadRows; }
  /// `visit(at, elements)` for each piece of C in accumulator order: `at` its index among the
  /// accumulators, `elements` its thread's elements (pieceElements).
  void forEachPiece(
      llvm::function_ref<void(int64_t, llvm::ArrayRef<std::pair<mlir::Value, mlir::Value>>)>
          visit);
  /// The (row, column) elements of C's piece (i, j) this lane holds, in register order.
  virtual llvm::SmallVector<std::pair<mlir::Value, mlir::Value>> pieceElements(int64_t i,
                                                                              int64_t j) = 0;

  /// The elements of an m16n8 accumulator fragment (mma.sync's, and each 8 columns of
  /// wgmma's) a lane holds, in register order: (r, c), (r, c + 1), (r + 8, c), (r + 8, c + 1)
  /// for its row `r` and column `c` in the fragment's first row group.
  llvm::SmallVector<std::pair<mlir::Value, mlir::Value>> m16n8Elements(mlir::Value r,
                                                                      mlir::Value c);
  /// A tile buffer as a memref of shared memory, where tessel-cuda-map-programs places it (the
  /// cast and map-programs' own fold away in LLVM).
  mlir::Value inSharedMemory(mlir::Value buffer);

  mlir::OpBuilder &b_;
  mlir::Location loc_;
  const DotPlan &p_;
};

using DotEmitterFactory = llvm::function_ref<std::unique_ptr<DotEmitter>(
    mlir::OpBuilder &, mlir::Location, const DotPlan &)>;

/// The matmul as the emitter's per-thread code, its accumulators carried by the enclosing loop
/// where only it touches C there (loaded before the loop, stored after it), or where the loop
/// carries C in buffers that an elementwise op rescales before each matmul (attention's
/// accumulator: the rescale applied to the registers, the buffers no longer written in the
/// loop, the accumulators stored into the one the loop returns).
/// A rescaled loop that starts from the buffer an earlier one stored its accumulators into
/// under the same layout (`handOff`'s storedIn; attention's masked key loop after the unmasked
/// one) starts from those registers instead, and that store goes where nothing else reads it.
/// Where the matmul stores C at each step, the ops after it that read C row by row or element
/// for element run on the accumulators (quadRows layouts); a 16-bit tile they make goes to a
/// later matmul as its A in registers where `handOff` says it can take it.
/// Returns C where the matmul stores it at each step (not carried): a tile whose rows
/// rewriteDots may pad.
struct RegisterHandOff {
  /// Whether the (planned, not yet rewritten) matmul can read its A, `tile`, from the registers
  /// of `producer`'s pieces; it may change its plan so.
  llvm::function_ref<bool(mlir::Operation *matmul, mlir::Value tile, const DotPlan &producer)>
      takes;
  /// The values it reads (DotPlan::aRegisters, aPiecesN).
  llvm::function_ref<void(mlir::Operation *matmul, llvm::ArrayRef<mlir::Value>, int64_t)> give;
  /// The (planned, not yet rewritten) matmul whose carried C `op` rescales reading row vectors
  /// at its rows, where it can read them from the registers of `producer`'s row slots; null
  /// otherwise. It may change the matmul's plan so.
  llvm::function_ref<mlir::Operation *(mlir::Operation *op, const DotPlan &producer)> rescaling;
  /// The row vector `buffer`'s values for that matmul (DotPlan::rowRegisters).
  llvm::function_ref<void(mlir::Operation *matmul, mlir::Operation *reader, mlir::Value buffer,
                          llvm::ArrayRef<mlir::Value>)>
      giveRows;
  /// A rescaled loop's accumulators `values`, stored by `store` into `buffer` after it under
  /// `plan`'s layout (attention's first key loop).
  llvm::function_ref<void(mlir::Value buffer, llvm::ArrayRef<mlir::Value> values,
                          const DotPlan &plan, mlir::Operation *store)>
      stored = nullptr;
  /// The values a later loop starting from `buffer` under `plan`'s layout can start from
  /// instead of loading them (the second key loop), with the region that stored them; empty
  /// where there are none.
  llvm::function_ref<std::pair<llvm::SmallVector<mlir::Value>, mlir::Operation *>(
      mlir::Value buffer, const DotPlan &plan)>
      storedIn = nullptr;
};
mlir::Value rewriteDot(const DotPlan &p, DotEmitterFactory make,
                       const RegisterHandOff *handOff = nullptr);

/// The whole rewrite of a function's matmuls: plan each (`warps`, `warpM`, `shapeFor`; fails
/// where a matmul's C does not split into `warpM` rows of warps), read B transposed
/// where it is loaded column-contiguous, stage each operand tile once (`stage`: its writes,
/// given whether an op is one of the planned matmuls), then rewriteDot.
/// `regrid`, where given, may change a plan once its tiles are staged (for an instruction that
/// reads the tiles as they are stored; `aInRegisters`: where A is to come from registers, so
/// its tile's layout does not matter).
mlir::LogicalResult
rewriteDots(mlir::func::FuncOp func, int64_t warps, int64_t warpM, DotShapeFor shapeFor,
            llvm::function_ref<void(mlir::Value tile,
                                    llvm::function_ref<bool(mlir::Operation *)> isDot)>
                stage,
            DotEmitterFactory make,
            llvm::function_ref<void(DotPlan &, bool aInRegisters)> regrid = nullptr);

} // namespace tessel::cuda

#endif // TESSEL_COMPILER_BACKEND_CUDA_MATRIXDOTS_H
