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
// f32 operands whose tt.dot allowed tf32 (kTf32Attr) run mma.sync.m16n8k8 on tf32 (each
// operand rounded to nearest, ties away, as it leaves shared memory): the same accumulator
// pieces, k steps of 8; A's 16 x 8 fragment is ldmatrix.x4 of 16-byte rows (4 elements: lane l
// gets A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4]), B's B[t][g] and B[t + 4][g] come
// from an N x K tile by ldmatrix and from a K x N one element by element (ldmatrix transposes
// 16-bit elements only).
// The planning, the transposed B and the carried accumulators are MatrixDots.h's (shared with
// the rocm backend's mfma / wmma); this file is the mma.sync instruction.
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
#include "compiler/backend/cuda/MatrixDots.h"
#include "compiler/backend/cuda/TileCopies.h"
#include "compiler/backend/cuda/WarpgroupDots.h"

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

/// Emits one plan's code at a builder: the thread's place in the warp grid, and the three
/// steps (accumulators from C, k steps of mma, accumulators into C).
class MmaEmitter : public tessel::cuda::DotEmitter {
public:
  MmaEmitter(OpBuilder &b, Location loc, const tessel::cuda::DotPlan &p)
      : DotEmitter(b, loc, p) {}

  /// The thread's coordinates (at the builder's point, inside a per-thread region).
  void locate() override {
    Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
    Value warp = arith::RemUIOp::create(
        b_, loc_, arith::DivUIOp::create(b_, loc_, tid, cst(32)), cst(p_.activeWarps));
    Value lane = arith::RemUIOp::create(b_, loc_, tid, cst(32));
    Value g = arith::DivUIOp::create(b_, loc_, lane, cst(4));
    Value t = arith::RemUIOp::create(b_, loc_, lane, cst(4));
    // The elements of a 16-byte row of ldmatrix: 8, or 4 for tf32.
    int64_t chunk = 128 / p_.input.getIntOrFloatBitWidth();
    warpRowBase_ = arith::MulIOp::create(
        b_, loc_, arith::DivUIOp::create(b_, loc_, warp, cst(p_.warpsN)), cst(p_.tileM));
    warpColBase_ = arith::MulIOp::create(
        b_, loc_, arith::RemUIOp::create(b_, loc_, warp, cst(p_.warpsN)), cst(p_.tileN));
    row0_ = add(warpRowBase_, g);
    col0_ = add(warpColBase_, arith::MulIOp::create(b_, loc_, t, cst(2)));
    // ldmatrix: this lane's row within a 16-row fragment, and its 8-column half.
    fragRow_ = arith::RemUIOp::create(b_, loc_, lane, cst(16));
    fragCol_ = arith::MulIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, lane, cst(16)),
                                     cst(chunk));
    // Non-transposing ldmatrix of an N x K B: row l % 8, column ((l / 8) % 2) * chunk, and 8
    // more rows (the next piece) for lanes 16-31.
    nextPiece_ = arith::MulIOp::create(
        b_, loc_, arith::DivUIOp::create(b_, loc_, lane, cst(16)), cst(8));
    eighth_ = arith::RemUIOp::create(b_, loc_, lane, cst(8));
    half_ = arith::MulIOp::create(
        b_, loc_,
        arith::RemUIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, lane, cst(8)), cst(2)),
        cst(chunk));
    // tf32's K x N B, element by element: row t, column g as its 4-element chunk and the
    // offset in it (the swizzle moves whole chunks).
    if (tf32()) {
      t_ = t;
      gChunk_ = arith::MulIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, g, cst(4)),
                                      cst(4));
      gOffset_ = arith::RemUIOp::create(b_, loc_, g, cst(4));
    }
  }


  /// The K dimension in steps of 16 (8 for tf32), unrolled (at most 4 for the zoo's matmuls, 8
  /// for a head dimension of 128): each step loads the warp's A and B fragments and runs one mma
  /// per piece, so that ptxas may issue a step's ldmatrix while the previous step's mma run.
  /// Returns the new accumulators.
  SmallVector<Value> multiply(ValueRange accs) override {
    SmallVector<Value> carried(accs.begin(), accs.end());
    Value a = p_.aRegisters.empty() ? inSharedMemory(p_.a) : nullptr;
    Value b = inSharedMemory(p_.b);
    if (tf32() && !p_.bTransposed)
      flattenB(b);
    for (int64_t k = 0; k < p_.k; k += p_.shape.pieceK)
      carried = step(a, b, k, carried);
    return carried;
  }

private:
  bool tf32() const { return p_.input.isF32(); }

  /// tf32's K x N B (`b`, in shared memory) element by element: the tile as one dimension and,
  /// for each piece and each of the lane's rows t and t + 4 of the first k step, where its
  /// element lies. k steps are 8 rows apart, which keep the swizzle's permutation of chunks (it
  /// depends on the row mod 8): step k's element is k * bRowAdvance_ further.
  void flattenB(Value b) {
    auto type = cast<MemRefType>(b.getType());
    int64_t cols = type.getDimSize(1), chunk = 4;
    bFlat_ = memref::CollapseShapeOp::create(b_, loc_, b,
                                             ArrayRef<ReassociationIndices>{{0, 1}});
    // Rows of more than 8 chunks are stored as column blocks of 8 chunks a row.
    bool swizzled = p_.b.getDefiningOp()->hasAttr(tessel::cuda::kSwizzledAttr);
    bRowAdvance_ = swizzled && cols / chunk > 8 ? 8 * chunk : cols;
    for (int64_t j = 0; j < p_.piecesN(); ++j)
      for (int64_t h : {0, 4}) {
        Value column = add(add(warpColBase_, cst(8 * j)), gChunk_);
        auto [row, col] = stored(p_.b, add(t_, cst(h)), column);
        bElement_.push_back(
            add(add(arith::MulIOp::create(b_, loc_, row, cst(cols)), col), gOffset_));
      }
  }

  /// One k step at `k` of the tiles `a` and `b` (in shared memory): fragments, then the mma of
  /// every piece on `carried`.
  SmallVector<Value> step(Value a, Value b, int64_t k, ArrayRef<Value> carried) {
    Value kk = cst(k);
    Value aCol = add(kk, fragCol_);
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t i = 0; i < p_.piecesM() && p_.aRegisters.empty(); ++i) {
      Value r = add(add(warpRowBase_, cst(16 * i)), fragRow_);
      aFrags.push_back(registers(ldmatrix(a, stored(p_.a, r, aCol), 4, /*transpose=*/false)));
    }
    // A in registers, as another plan's m16n8 pieces (8 columns each): this step's 16 columns
    // are pieces 2k/16 and 2k/16 + 1, whose rows r and r + 8 are A's fragment registers.
    for (int64_t i = 0; i < p_.piecesM() && !p_.aRegisters.empty(); ++i)
      aFrags.push_back(llvm::map_to_vector(handedFragment(i, k),
                                           [&](Value pair) { return word(pair); }));
    SmallVector<SmallVector<Value>> bFrags;
    if (p_.bTransposed) {
      // B stored N x K: ldmatrix without transposing reads its 8 x 8 matrices (rows n, 8
      // columns k) as mma's B registers. x4: lanes 0-7 name rows n..n+7 at k, 8-15 the same
      // rows at k + 8, 16-31 rows n + 8.. likewise (two pieces); x2 (a last odd piece): 0-15.
      for (int64_t j = 0; j < p_.piecesN(); j += 2) {
        Value n = add(add(warpColBase_, cst(8 * j)), eighth_);
        Value col = add(kk, half_);
        if (j + 1 < p_.piecesN()) {
          Value row = add(n, nextPiece_);
          SmallVector<Value> regs =
              registers(ldmatrix(b, stored(p_.b, row, col), 4, /*transpose=*/false));
          bFrags.push_back({regs[0], regs[1]});
          bFrags.push_back({regs[2], regs[3]});
        } else {
          bFrags.push_back(
              registers(ldmatrix(b, stored(p_.b, n, col), 2, /*transpose=*/false)));
        }
      }
    }
    // tf32's B (K x N): each lane's two elements of a piece, rows kk + t and kk + t + 4 of its
    // column g (flattenB).
    for (int64_t j = 0; j < p_.piecesN() && !p_.bTransposed && tf32(); ++j) {
      SmallVector<Value> regs;
      for (int64_t h = 0; h < 2; ++h)
        regs.push_back(toTf32(memref::LoadOp::create(
            b_, loc_, bFlat_, ValueRange{add(bElement_[2 * j + h], cst(k * bRowAdvance_))})));
      bFrags.push_back(regs);
    }
    // B (K x N, row-major) transposed by ldmatrix: lane l names row kk + l % 16; x4 covers
    // two 8-column pieces, the columns at + (l / 16) * 8.
    Value bRow = add(kk, fragRow_);
    for (int64_t j = 0; j < p_.piecesN() && !p_.bTransposed && !tf32(); j += 2) {
      Value c = add(warpColBase_, cst(8 * j));
      if (j + 1 < p_.piecesN()) {
        SmallVector<Value> regs =
            registers(ldmatrix(b, stored(p_.b, bRow, add(c, fragCol_)), 4, true));
        bFrags.push_back({regs[0], regs[1]});
        bFrags.push_back({regs[2], regs[3]});
      } else {
        bFrags.push_back(registers(ldmatrix(b, stored(p_.b, bRow, c), 2, true)));
      }
    }
    SmallVector<Value> out;
    for (int64_t i = 0; i < p_.piecesM(); ++i)
      for (int64_t j = 0; j < p_.piecesN(); ++j)
        out.push_back(mma(aFrags[i], bFrags[j], carried[i * p_.piecesN() + j]));
    return out;
  }

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b_, loc_, v); }
  /// Where the 16 bytes of `tile` at (row, col) are stored: swizzled where its writer did.
  std::pair<Value, Value> stored(Value tile, Value row, Value col) {
    if (!tile.getDefiningOp()->hasAttr(tessel::cuda::kSwizzledAttr))
      return {row, col};
    return tessel::cuda::swizzledPosition(b_, loc_, row, col, cast<MemRefType>(tile.getType()));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b_, loc_, x, y); }

  /// The four (row, column) elements of piece (i, j) this thread holds.
  SmallVector<std::pair<Value, Value>> pieceElements(int64_t i, int64_t j) override {
    return m16n8Elements(add(row0_, cst(16 * i)), add(col0_, cst(8 * j)));
  }

  Value ldmatrix(Value shared, std::pair<Value, Value> at, int32_t tiles, bool transpose) {
    // Each lane's 32 bits of each 8 x 8 matrix of 16-bit elements: 2 elements, or 1 of tf32.
    auto type = VectorType::get({tiles, 32 / p_.input.getIntOrFloatBitWidth()}, p_.input);
    return nvgpu::LdMatrixOp::create(b_, loc_, type, shared, ValueRange{at.first, at.second},
                                     transpose, tiles);
  }

  /// An f32 as mma.sync's tf32 operand: an i32, rounded to nearest (ties away from zero).
  Value toTf32(Value x) {
    return NVVM::ConvertFloatToTF32Op::create(b_, loc_, b_.getI32Type(), x,
                                              NVVM::FPRoundingMode::RNA);
  }

  /// A fragment's registers as mma.sync takes them: vector<2xf16> for f16, i32 for bf16 and
  /// tf32 (one-dimensional vector ops only: the GPU-to-NVVM lowering converts those).
  SmallVector<Value> registers(Value fragment) {
    int64_t n = cast<VectorType>(fragment.getType()).getDimSize(0);
    SmallVector<Value> regs;
    for (int64_t i = 0; i < n; ++i) {
      Value pair = vector::ExtractOp::create(b_, loc_, fragment, i);
      if (tf32()) {
        regs.push_back(toTf32(vector::ExtractOp::create(b_, loc_, pair, 0)));
        continue;
      }
      regs.push_back(word(pair));
    }
    return regs;
  }

  /// Two 16-bit elements (vector<2x>) as an mma.sync register: bf16 pairs as an i32.
  Value word(Value pair) {
    if (!p_.input.isBF16())
      return pair;
    Value word = vector::BitCastOp::create(b_, loc_, VectorType::get({1}, b_.getI32Type()), pair);
    return vector::ExtractOp::create(b_, loc_, word, 0);
  }

  Value mma(ArrayRef<Value> a, ArrayRef<Value> b, Value acc) {
    SmallVector<Value> c;
    for (int64_t e = 0; e < 4; ++e)
      c.push_back(vector::ExtractOp::create(b_, loc_, acc, e));
    Type f32 = b_.getF32Type();
    auto resultType =
        LLVM::LLVMStructType::getLiteral(b_.getContext(), {f32, f32, f32, f32});
    NVVM::MMATypes ptx = tf32()               ? NVVM::MMATypes::tf32
                         : p_.input.isBF16() ? NVVM::MMATypes::bf16
                                             : NVVM::MMATypes::f16;
    auto op = NVVM::MmaOp::create(
        b_, loc_, resultType, a, b, c, ArrayRef<int64_t>{16, 8, p_.shape.pieceK}, std::nullopt,
        std::nullopt,
        std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t e = 0; e < 4; ++e)
      d.push_back(LLVM::ExtractValueOp::create(b_, loc_, op.getResult(), e));
    return vector::FromElementsOp::create(b_, loc_, acc.getType(), d);
  }

  Value row0_, col0_, fragRow_, fragCol_, warpRowBase_, warpColBase_, eighth_, half_;
  Value nextPiece_;
  // tf32's K x N B only (flattenB).
  Value t_, gChunk_, gOffset_, bFlat_;
  int64_t bRowAdvance_ = 0;
  SmallVector<Value> bElement_;
};

struct CudaTensorCoreDots : tessel::impl::CudaTensorCoreDotsBase<CudaTensorCoreDots> {
  using Base::Base;
  void runOnOperation() override {
    // mma.sync.m16n8k16 (m16n8k8 for tf32): 16 x 8 pieces, 4 accumulators a lane; ldmatrix.x4
    // reads 16 columns of B.
    auto shape = [](Type input) -> std::optional<tessel::cuda::DotShape> {
      return tessel::cuda::DotShape{16, 8, input.isF32() ? 8 : 16, 4, 16, /*quadRows=*/true};
    };
    int64_t threads = numWarps * 32;
    // TMA where the function is a kernel (its six trailing program arguments).
    func::FuncOp f = getOperation();
    std::optional<tessel::cuda::TmaLoads> tmaLoads;
    if (tma && f.isPublic() && !f.isExternal() && f.getNumArguments() >= 6 &&
        llvm::all_of(f.getArgumentTypes().take_back(6),
                     [](Type t) { return t.isSignlessInteger(32); }))
      tmaLoads = tessel::cuda::TmaLoads{f, Value(), {}, {}, 0, warpSpecialize};
    // The operands' tiles written in 16-byte chunks: asynchronously where a loop writes them
    // for its matmuls only (by TMA where it can), else synchronously.
    auto stage = [&](Value tile, llvm::function_ref<bool(Operation *)> isDot) {
      if (!tessel::cuda::writeTileAsync(tile, threads, isDot,
                                        tmaLoads ? &*tmaLoads : nullptr))
        tessel::cuda::writeTileInChunks(tile, threads, isDot);
    };
    auto make = [](OpBuilder &b, Location loc,
                   const tessel::cuda::DotPlan &p) -> std::unique_ptr<tessel::cuda::DotEmitter> {
      if (p.warpgroups)
        return tessel::cuda::makeWarpgroupEmitter(b, loc, p);
      return std::make_unique<MmaEmitter>(b, loc, p);
    };
    // With wgmma: the plans whose staged tiles a descriptor describes run on warpgroups, and
    // those taking A from another plan's registers where their rows allow (rewriteDots).
    bool anyWarpgroup = false;
    auto regrid = [&](tessel::cuda::DotPlan &p, bool aInRegisters) {
      anyWarpgroup |= tessel::cuda::planWarpgroupDot(p, numWarps, aInRegisters);
    };
    if (warpM < 0) {
      getOperation().emitError() << "warp-m=" << int64_t(warpM) << " is negative";
      return signalPassFailure();
    }
    if (failed(tessel::cuda::rewriteDots(
            getOperation(), numWarps, warpM, shape, stage, make,
            wgmma ? llvm::function_ref<void(tessel::cuda::DotPlan &, bool)>(regrid) : nullptr)))
      return signalPassFailure();
    if (anyWarpgroup)
      tessel::cuda::fenceAsyncProxyAfterWrites(getOperation());
    // The tensor maps' arguments: before their mask (the artifact's "tensor_maps").
    if (tmaLoads && !tmaLoads->maps.empty()) {
      MLIRContext *ctx = &getContext();
      int64_t mask = cast<BlockArgument>(tmaLoads->mask).getArgNumber();
      int64_t count = int64_t(tmaLoads->maps.size());
      SmallVector<Attribute> entries;
      for (auto [i, m] : llvm::enumerate(tmaLoads->maps)) {
        NamedAttrList fields(m);
        fields.set("argument",
                   IntegerAttr::get(IntegerType::get(ctx, 64), mask - count + int64_t(i)));
        entries.push_back(fields.getDictionary(ctx));
      }
      f->setAttr(tessel::cuda::kTensorMapsAttr, ArrayAttr::get(ctx, entries));
    }
  }
};

} // namespace
