//===- TensorCoreDots.cpp - tile matmuls on tensor cores (mma.sync) -*- C++ -*-===//
//
// See Passes.td (CudaTensorCoreDots). After bufferization a tt.dot is a linalg.matmul of tile
// buffers: A (M x K) and B (K x N) of f16 or bf16, accumulating into C (M x N) of f32. The
// block's warps split C into a wm x wn grid of warp tiles; each warp computes its tile as
// 16 x 8 pieces with mma.sync.m16n8k16, its operands read from the tile buffers by ldmatrix
// (A as stored, B transposed by ldmatrix itself), its accumulators in registers:
//   lane l, g = l / 4, t = l % 4 holds of a 16 x 8 piece at (r, c) the elements
//   (r + g, c + 2t), (r + g, c + 2t + 1), (r + g + 8, c + 2t), (r + g + 8, c + 2t + 1);
//   ldmatrix.x4 takes row r + l % 16 at column k + (l / 16) * 8 from each lane.
// The code is emitted already spread over the threads (no_inline scf.execute_region marked
// tessel.per_thread), which tessel-cuda-map-programs keeps as it is, with barriers around it.
// Where the matmul is the only access of C inside a loop (the K loop of a Triton matmul), the
// accumulators stay in registers across the loop: loaded from C before it, carried by it,
// stored after it. The writes of the operand tiles (fills, copies from global memory) become
// 16-byte chunks per thread first (TileCopies.h).
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/Passes.h"
#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/TileCopies.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDATENSORCOREDOTS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {

/// A matmul the tensor cores can run: static tile buffers, 16-bit float inputs, f32
/// accumulator, and a split of C over the warps into warp tiles of whole 16 x 8 pieces.
struct MmaPlan {
  linalg::MatmulOp op;
  Value a, b, c;
  int64_t m, n, k;
  Type input;            ///< f16 or bf16
  int64_t activeWarps;    ///< warps with a part of C of their own (warp w works as w mod it)
  int64_t warpsM, warpsN; ///< the warps' grid over C
  int64_t tileM, tileN;   ///< one warp's part of C
  bool bTransposed = false; ///< b is stored N x K (loaded from column-contiguous memory)

  int64_t piecesM() const { return tileM / 16; }
  int64_t piecesN() const { return tileN / 8; }
  /// The accumulators' types: one vector<4xf32> per 16 x 8 piece, row-major over pieces.
  SmallVector<Type> accumulatorTypes() const {
    return SmallVector<Type>(piecesM() * piecesN(),
                             VectorType::get({4}, Float32Type::get(c.getContext())));
  }
};

/// The warp grid for an M x N accumulator: warp tiles of whole 16 x 8 pieces with the fewest
/// ldmatrix loads per k step (as square as possible; B is loaded 16 columns at a time).
std::optional<std::pair<int64_t, int64_t>> warpGrid(int64_t m, int64_t n, int64_t warps) {
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t bestCost = 0;
  for (int64_t wm = 1; wm <= warps; wm *= 2) {
    int64_t wn = warps / wm;
    if (wm * wn != warps || m % (16 * wm) || n % (8 * wn))
      continue;
    int64_t tm = m / wm, tn = n / wn;
    // ldmatrix loads per k step: one per 16 rows of A, one per 16 columns of B (an odd
    // 8-column piece takes a load of its own).
    int64_t cost = tm / 16 + (tn + 8) / 16;
    if (!best || cost < bestCost) {
      best = {wm, wn};
      bestCost = cost;
    }
  }
  return best;
}

/// A tile buffer the kernel allocates (tessel-cuda-map-programs places it in shared memory):
/// static shape, no layout, no memory space yet.
bool isTileBuffer(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.getRank() == 2 && type.hasStaticShape() &&
         type.getLayout().isIdentity() && !type.getMemorySpace() &&
         v.getDefiningOp<memref::AllocOp>();
}

std::optional<MmaPlan> planMma(linalg::MatmulOp op, int64_t warps) {
  if (!op.hasPureBufferSemantics() || op.getInputs().size() != 2 || op.getOutputs().size() != 1)
    return std::nullopt;
  // The default indexing maps only (no transposed or broadcast variants).
  if (op.hasUserDefinedMaps())
    return std::nullopt;
  if (!tessel::cuda::reachedByEveryThread(op))
    return std::nullopt;
  MmaPlan p;
  p.op = op;
  p.a = op.getInputs()[0];
  p.b = op.getInputs()[1];
  p.c = op.getOutputs()[0];
  if (!isTileBuffer(p.a) || !isTileBuffer(p.b) || !isTileBuffer(p.c))
    return std::nullopt;
  auto at = cast<MemRefType>(p.a.getType()), bt = cast<MemRefType>(p.b.getType()),
       ct = cast<MemRefType>(p.c.getType());
  p.input = at.getElementType();
  if (!(p.input.isF16() || p.input.isBF16()) || bt.getElementType() != p.input ||
      !ct.getElementType().isF32())
    return std::nullopt;
  p.m = at.getDimSize(0);
  p.k = at.getDimSize(1);
  p.n = bt.getDimSize(1);
  if (bt.getDimSize(0) != p.k || ct.getDimSize(0) != p.m || ct.getDimSize(1) != p.n ||
      p.k % 16)
    return std::nullopt;
  // All warps where C has pieces for them, else the most that have (the others repeat
  // their work: the same values stored twice).
  std::optional<std::pair<int64_t, int64_t>> grid;
  for (int64_t w = warps; w >= 1 && !grid; w /= 2)
    grid = warpGrid(p.m, p.n, w);
  if (!grid)
    return std::nullopt;
  p.activeWarps = grid->first * grid->second;
  std::tie(p.warpsM, p.warpsN) = *grid;
  p.tileM = p.m / p.warpsM;
  p.tileN = p.n / p.warpsN;
  return p;
}

/// Emits one plan's code at a builder: the thread's place in the warp grid, and the three
/// steps (accumulators from C, k steps of mma, accumulators into C).
class MmaEmitter {
public:
  MmaEmitter(OpBuilder &b, Location loc, const MmaPlan &p) : b_(b), loc_(loc), p_(p) {}

  /// The thread's coordinates (at the builder's point, inside a per-thread region).
  void locate() {
    Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
    Value warp = arith::RemUIOp::create(
        b_, loc_, arith::DivUIOp::create(b_, loc_, tid, cst(32)), cst(p_.activeWarps));
    Value lane = arith::RemUIOp::create(b_, loc_, tid, cst(32));
    Value g = arith::DivUIOp::create(b_, loc_, lane, cst(4));
    Value t = arith::RemUIOp::create(b_, loc_, lane, cst(4));
    warpRowBase_ = arith::MulIOp::create(
        b_, loc_, arith::DivUIOp::create(b_, loc_, warp, cst(p_.warpsN)), cst(p_.tileM));
    warpColBase_ = arith::MulIOp::create(
        b_, loc_, arith::RemUIOp::create(b_, loc_, warp, cst(p_.warpsN)), cst(p_.tileN));
    row0_ = add(warpRowBase_, g);
    col0_ = add(warpColBase_, arith::MulIOp::create(b_, loc_, t, cst(2)));
    // ldmatrix: this lane's row within a 16-row fragment, and its 8-column half.
    fragRow_ = arith::RemUIOp::create(b_, loc_, lane, cst(16));
    fragCol_ = arith::MulIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, lane, cst(16)),
                                     cst(8));
    // Non-transposing ldmatrix of an N x K B: row l % 8, column ((l / 8) % 2) * 8, and 8 more
    // rows for lanes 16-31.
    eighth_ = arith::RemUIOp::create(b_, loc_, lane, cst(8));
    half_ = arith::MulIOp::create(
        b_, loc_,
        arith::RemUIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, lane, cst(8)), cst(2)),
        cst(8));
    upper_ = fragCol_; // (l / 16) * 8
  }

  /// The thread's accumulator elements of C.
  SmallVector<Value> loadAccumulators() {
    SmallVector<Value> accs;
    for (int64_t i = 0; i < p_.piecesM(); ++i)
      for (int64_t j = 0; j < p_.piecesN(); ++j) {
        SmallVector<Value> elements;
        for (auto [r, c] : pieceElements(i, j))
          elements.push_back(memref::LoadOp::create(b_, loc_, p_.c, ValueRange{r, c}));
        accs.push_back(vector::FromElementsOp::create(
            b_, loc_, VectorType::get({4}, b_.getF32Type()), elements));
      }
    return accs;
  }

  void storeAccumulators(ValueRange accs) {
    int64_t at = 0;
    for (int64_t i = 0; i < p_.piecesM(); ++i)
      for (int64_t j = 0; j < p_.piecesN(); ++j, ++at) {
        int64_t e = 0;
        for (auto [r, c] : pieceElements(i, j)) {
          Value v = vector::ExtractOp::create(b_, loc_, accs[at], e++);
          memref::StoreOp::create(b_, loc_, v, p_.c, ValueRange{r, c});
        }
      }
  }

  /// The K dimension in steps of 16: each step loads the warp's A and B fragments and runs
  /// one mma per piece. Returns the new accumulators.
  SmallVector<Value> multiply(ValueRange accs) {
    auto loop = scf::ForOp::create(b_, loc_, cst(0), cst(p_.k), cst(16), accs);
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(loop.getBody());
    Value kk = loop.getInductionVar();
    Value a = inSharedMemory(p_.a), b = inSharedMemory(p_.b);
    Value aCol = add(kk, fragCol_);
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t i = 0; i < p_.piecesM(); ++i) {
      Value r = add(add(warpRowBase_, cst(16 * i)), fragRow_);
      aFrags.push_back(registers(ldmatrix(a, r, stored(p_.a, r, aCol), 4, /*transpose=*/false)));
    }
    SmallVector<SmallVector<Value>> bFrags;
    if (p_.bTransposed) {
      // B stored N x K: ldmatrix without transposing reads its 8 x 8 matrices (rows n, 8
      // columns k) as mma's B registers. x4: lanes 0-7 name rows n..n+7 at k, 8-15 the same
      // rows at k + 8, 16-31 rows n + 8.. likewise (two pieces); x2 (a last odd piece): 0-15.
      for (int64_t j = 0; j < p_.piecesN(); j += 2) {
        Value n = add(add(warpColBase_, cst(8 * j)), eighth_);
        Value col = add(kk, half_);
        if (j + 1 < p_.piecesN()) {
          Value row = add(n, upper_);
          SmallVector<Value> regs =
              registers(ldmatrix(b, row, stored(p_.b, row, col), 4, /*transpose=*/false));
          bFrags.push_back({regs[0], regs[1]});
          bFrags.push_back({regs[2], regs[3]});
        } else {
          bFrags.push_back(
              registers(ldmatrix(b, n, stored(p_.b, n, col), 2, /*transpose=*/false)));
        }
      }
    }
    // B (K x N, row-major) transposed by ldmatrix: lane l names row kk + l % 16; x4 covers
    // two 8-column pieces, the columns at + (l / 16) * 8.
    Value bRow = add(kk, fragRow_);
    for (int64_t j = 0; j < p_.piecesN() && !p_.bTransposed; j += 2) {
      Value c = add(warpColBase_, cst(8 * j));
      if (j + 1 < p_.piecesN()) {
        SmallVector<Value> regs =
            registers(ldmatrix(b, bRow, stored(p_.b, bRow, add(c, fragCol_)), 4, true));
        bFrags.push_back({regs[0], regs[1]});
        bFrags.push_back({regs[2], regs[3]});
      } else {
        bFrags.push_back(registers(ldmatrix(b, bRow, stored(p_.b, bRow, c), 2, true)));
      }
    }
    SmallVector<Value> out;
    ValueRange carried = loop.getRegionIterArgs();
    for (int64_t i = 0; i < p_.piecesM(); ++i)
      for (int64_t j = 0; j < p_.piecesN(); ++j)
        out.push_back(mma(aFrags[i], bFrags[j], carried[i * p_.piecesN() + j]));
    scf::YieldOp::create(b_, loc_, out);
    return SmallVector<Value>(loop.getResults());
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b_, loc_, v); }
  /// Where the 8 elements of `tile` at (row, col) are stored: swizzled where its writer did.
  Value stored(Value tile, Value row, Value col) {
    if (!tile.getDefiningOp()->hasAttr(tessel::cuda::kSwizzledAttr))
      return col;
    return tessel::cuda::swizzledColumn(b_, loc_, row, col,
                                        cast<MemRefType>(tile.getType()).getDimSize(1));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b_, loc_, x, y); }

  /// The four (row, column) elements of piece (i, j) this thread holds.
  SmallVector<std::pair<Value, Value>> pieceElements(int64_t i, int64_t j) {
    Value r = add(row0_, cst(16 * i)), c = add(col0_, cst(8 * j));
    Value r8 = add(r, cst(8)), c1 = add(c, cst(1));
    return {{r, c}, {r, c1}, {r8, c}, {r8, c1}};
  }

  /// ldmatrix reads shared memory: the tile buffer, which tessel-cuda-map-programs places
  /// there, cast to that space (the two casts fold away in LLVM).
  Value inSharedMemory(Value buffer) {
    auto memref = cast<MemRefType>(buffer.getType());
    auto space = gpu::AddressSpaceAttr::get(b_.getContext(), gpu::AddressSpace::Workgroup);
    return memref::MemorySpaceCastOp::create(
        b_, loc_,
        MemRefType::get(memref.getShape(), memref.getElementType(), memref.getLayout(), space),
        buffer);
  }

  Value ldmatrix(Value shared, Value row, Value col, int32_t tiles, bool transpose) {
    auto type = VectorType::get({tiles, 2}, p_.input);
    return nvgpu::LdMatrixOp::create(b_, loc_, type, shared, ValueRange{row, col}, transpose,
                                     tiles);
  }

  /// A fragment's registers as mma.sync takes them: vector<2xf16> for f16, i32 for bf16
  /// (one-dimensional vector ops only: the GPU-to-NVVM lowering converts those).
  SmallVector<Value> registers(Value fragment) {
    int64_t n = cast<VectorType>(fragment.getType()).getDimSize(0);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < n; ++i) {
      Value pair = vector::ExtractOp::create(b_, loc_, fragment, i);
      if (p_.input.isBF16()) {
        Value word = vector::BitCastOp::create(
            b_, loc_, VectorType::get({1}, b_.getI32Type()), pair);
        pair = vector::ExtractOp::create(b_, loc_, word, 0);
      }
      regs.push_back(pair);
    }
    return regs;
  }

  Value mma(ArrayRef<Value> a, ArrayRef<Value> b, Value acc) {
    SmallVector<Value> c;
    for (int64_t e = 0; e < 4; ++e)
      c.push_back(vector::ExtractOp::create(b_, loc_, acc, e));
    Type f32 = b_.getF32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b_.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptx = p_.input.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto op = NVVM::MmaOp::create(
        b_, loc_, resultType, a, b, c, ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t e = 0; e < 4; ++e)
      d.push_back(LLVM::ExtractValueOp::create(b_, loc_, op.getResult(), e));
    return vector::FromElementsOp::create(b_, loc_, acc.getType(), d);
  }

  OpBuilder &b_;
  Location loc_;
  const MmaPlan &p_;
  Value row0_, col0_, fragRow_, fragCol_, warpRowBase_, warpColBase_, eighth_, half_, upper_;
};

/// Whether anything in `loop` but `op` reads or writes `buffer` (through views).
bool othersTouch(scf::ForOp loop, Operation *op, Value buffer) {
  return loop.getBody()
      ->walk([&](Operation *inner) {
        if (inner == op)
          return WalkResult::skip();
        for (Value operand : inner->getOperands())
          if (isa<MemRefType>(operand.getType()) &&
              tessel::cuda::viewedBuffer(operand) == buffer)
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Where B (K x N) is written only by zero fills and copies from column-contiguous memory (a
/// transposed load, Triton's `K` of attention), its copies are rewritten to fill an N x K tile
/// from the transposed views instead (contiguous rows, which move in 16-byte chunks and by
/// cp.async), and the matmul reads that tile with non-transposing ldmatrix. Returns whether it
/// did.
bool transposeLoadsOfB(MmaPlan &p) {
  auto type = cast<MemRefType>(p.b.getType());
  SmallVector<Operation *> writers;
  auto columnContiguous = [](Value v) {
    auto t = dyn_cast<MemRefType>(v.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    return t && t.getRank() == 2 && succeeded(t.getStridesAndOffset(strides, offset)) &&
           strides[0] == 1 && strides[1] != 1;
  };
  auto isZero = [](Value v) { return matchPattern(v, m_AnyZeroFloat()); };
  auto writer = [&](Operation *op, Value target) {
    if (auto fill = dyn_cast<linalg::FillOp>(op))
      return fill.hasPureBufferSemantics() && fill.getOutputs()[0] == target &&
             isZero(fill.getInputs()[0]);
    auto copy = dyn_cast<linalg::CopyOp>(op);
    return copy && copy.hasPureBufferSemantics() && copy.getOutputs()[0] == target &&
           columnContiguous(copy.getInputs()[0]);
  };
  bool anyCopy = false;
  for (Operation *user : p.b.getUsers()) {
    if (user == p.op.getOperation())
      continue;
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (view && llvm::all_of(view.getMixedStrides(),
                             [](OpFoldResult st) { return isConstantIntValue(st, 1); })) {
      for (Operation *viewUser : view->getUsers()) {
        if (!writer(viewUser, view))
          return false;
        anyCopy |= isa<linalg::CopyOp>(viewUser);
        writers.push_back(viewUser);
      }
      continue;
    }
    if (!writer(user, p.b))
      return false;
    anyCopy |= isa<linalg::CopyOp>(user);
    writers.push_back(user);
  }
  if (!anyCopy)
    return false;
  OpBuilder at(p.b.getDefiningOp());
  Location loc = p.b.getLoc();
  Value bn = memref::AllocOp::create(
      at, loc, MemRefType::get({type.getDimSize(1), type.getDimSize(0)}, type.getElementType()));
  for (Operation *w : writers) {
    OpBuilder b(w);
    Value target = isa<linalg::FillOp>(w) ? cast<linalg::FillOp>(w).getOutputs()[0]
                                          : cast<linalg::CopyOp>(w).getOutputs()[0];
    Value dst = bn;
    if (auto view = target.getDefiningOp<memref::SubViewOp>()) {
      SmallVector<OpFoldResult> offsets = view.getMixedOffsets(), sizes = view.getMixedSizes();
      dst = memref::SubViewOp::create(b, loc, bn, {offsets[1], offsets[0]}, {sizes[1], sizes[0]},
                                      {b.getIndexAttr(1), b.getIndexAttr(1)});
    }
    if (auto fill = dyn_cast<linalg::FillOp>(w)) {
      linalg::FillOp::create(b, loc, fill.getInputs()[0], dst);
    } else {
      auto swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, b.getContext());
      Value src = memref::TransposeOp::create(b, loc, cast<linalg::CopyOp>(w).getInputs()[0],
                                              AffineMapAttr::get(swap));
      linalg::CopyOp::create(b, loc, src, dst);
    }
    w->erase();
    if (auto view = target.getDefiningOp<memref::SubViewOp>(); view && view->use_empty())
      view->erase();
  }
  p.op->replaceUsesOfWith(p.b, bn);
  Operation *old = p.b.getDefiningOp();
  p.b = bn;
  p.bTransposed = true;
  if (old->use_empty())
    old->erase();
  return true;
}

/// The matmul on tensor cores, its accumulators carried by the enclosing loop where only it
/// touches C there.
void rewrite(MmaPlan p) {
  Location loc = p.op.getLoc();
  auto loop = dyn_cast<scf::ForOp>(p.op->getParentOp());
  // (C is a memref.alloc itself: planMma's isTileBuffer.)
  bool carried =
      loop && loop.isDefinedOutsideOfLoop(p.c) && !othersTouch(loop, p.op, p.c);
  if (!carried) {
    OpBuilder b(p.op);
    tessel::cuda::perThreadRegion(b, loc, {}, [&](OpBuilder &in) {
      MmaEmitter e(in, loc, p);
      e.locate();
      e.storeAccumulators(e.multiply(e.loadAccumulators()));
      return SmallVector<Value>{};
    });
    p.op.erase();
    return;
  }
  OpBuilder before(loop);
  SmallVector<Type> types = p.accumulatorTypes();
  auto init = tessel::cuda::perThreadRegion(before, loc, types, [&](OpBuilder &in) {
    MmaEmitter e(in, loc, p);
    e.locate();
    return e.loadAccumulators();
  });
  IRRewriter rewriter(loop.getContext());
  Operation *matmul = p.op;
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, init.getResults(), /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location, ArrayRef<BlockArgument> accs) {
        b.setInsertionPoint(matmul);
        auto step = tessel::cuda::perThreadRegion(b, loc, types, [&](OpBuilder &in) {
          MmaEmitter e(in, loc, p);
          e.locate();
          SmallVector<Value> carried(accs.begin(), accs.end());
          return e.multiply(carried);
        });
        return SmallVector<Value>(step.getResults());
      });
  if (failed(grown)) {
    init.erase(); // the matmul stays for the scalar lowering
    return;
  }
  matmul->erase();
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  OpBuilder after(newLoop->getBlock(), std::next(newLoop->getIterator()));
  ValueRange finals = newLoop.getResults().take_back(types.size());
  tessel::cuda::perThreadRegion(after, loc, {}, [&](OpBuilder &in) {
    MmaEmitter e(in, loc, p);
    e.locate();
    e.storeAccumulators(finals);
    return SmallVector<Value>{};
  });
}

struct CudaTensorCoreDots : tessel::impl::CudaTensorCoreDotsBase<CudaTensorCoreDots> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Kernels only: a device function runs on one thread.
    if (!func.isPublic() || func.isExternal())
      return;
    SmallVector<MmaPlan> plans;
    func.walk([&](linalg::MatmulOp op) {
      if (std::optional<MmaPlan> p = planMma(op, numWarps))
        plans.push_back(*p);
    });
    // B loaded transposed (column-contiguous): an N x K tile read without transposing.
    for (MmaPlan &p : plans)
      if (llvm::count_if(plans, [&](MmaPlan &q) { return q.b == p.b || q.a == p.b; }) == 1)
        transposeLoadsOfB(p);
    // The operands' tiles written in 16-byte chunks (each tile once): asynchronously where a
    // loop writes them for its matmuls only, else synchronously. Then the matmuls.
    llvm::SmallDenseSet<Value, 8> staged;
    llvm::SmallPtrSet<Operation *, 8> matmuls;
    for (MmaPlan &p : plans)
      matmuls.insert(p.op);
    auto isPlannedMatmul = [&](Operation *op) { return matmuls.contains(op); };
    for (MmaPlan &p : plans)
      for (Value tile : {p.a, p.b})
        if (staged.insert(tile).second &&
            !tessel::cuda::writeTileAsync(tile, numWarps * 32, isPlannedMatmul))
          tessel::cuda::writeTileInChunks(tile, numWarps * 32);
    for (MmaPlan &p : plans)
      rewrite(p);
  }
};

} // namespace
