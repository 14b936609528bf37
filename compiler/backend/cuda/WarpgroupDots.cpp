//===- WarpgroupDots.cpp - tile matmuls on Hopper's warpgroup tensor cores (wgmma) -*- C++ -*-===//
//
// See WarpgroupDots.h. A plan's warpgroups split C into a wgM x wgN grid; warpgroup w runs,
// per k step of 16 and per 64 rows of its part, one wgmma.mma_async.m64nNk16 (N: its columns)
// whose accumulators are the f32 registers of the 4 warps: warp s of the group holds rows
// 16 s .. 16 s + 15 of each 64, in the m16n8 fragment layout of mma.sync (lane l, g = l / 4,
// t = l % 4: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1) of each 8 columns), so the
// accumulators load and store as mma.sync's do. A is read K-major (its rows are M), or from
// registers in m16n8k16's A fragment layout (each warp its 16 rows; attention's P, handed over
// by the softmax's register steps) by inline PTX; B K-major when stored N x K
// (transposeLoadsOfB) and N-major (transposed by wgmma) when stored K x N.
// The k steps of one matmul are one wgmma group, waited for before the region ends (the
// operand tiles are then free to be overwritten); in a K loop whose operand tiles have a slot
// more than its stages, a step's group stays in flight while the next step's copies are
// issued (tessel-cuda-pipeline-tile-loads), and the accumulators are waited for after the
// loop, before the barrier that precedes their store (C may reuse the tiles' bytes, which
// another warpgroup's wgmma may be reading until its wait).
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/WarpgroupDots.h"
#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/TileCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessel::cuda;

namespace {

/// How a matrix descriptor describes an operand tile as TileCopies stores it swizzled: rows of
/// `rowBytes` (32, 64 or 128), wider rows as column blocks of 64 elements `blockBytes` apart.
struct StoredLayout {
  int64_t mode = 0; ///< the descriptor's swizzle field: 1 = 128-byte, 2 = 64-byte, 3 = 32-byte
  int64_t rowBytes = 0;
  int64_t blockBytes = 0; ///< 0: one block
};

std::optional<StoredLayout> storedLayout(Value tile) {
  auto type = dyn_cast<MemRefType>(tile.getType());
  Operation *def = tile.getDefiningOp();
  if (!type || type.getRank() != 2 || !def || !def->hasAttr(kSwizzledAttr))
    return std::nullopt;
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t bytes = cols * 2;
  if (rows * bytes % kWarpgroupTileAlignment)
    return std::nullopt;
  StoredLayout l;
  if (bytes == 32 || bytes == 64 || bytes == 128) {
    l.mode = bytes == 128 ? 1 : bytes == 64 ? 2 : 3;
    l.rowBytes = bytes;
  } else if (cols % 64 == 0) {
    l.mode = 1;
    l.rowBytes = 128;
    l.blockBytes = rows * 128;
  } else {
    return std::nullopt;
  }
  return l;
}

/// The descriptor's fields other than the start address: leading and stride byte offsets
/// (in 16-byte units) and the swizzle mode.
int64_t descriptorHigh(int64_t leadingBytes, int64_t strideBytes, int64_t mode) {
  return ((leadingBytes >> 4) & 0x3FFF) << 16 | ((strideBytes >> 4) & 0x3FFF) << 32 |
         mode << 62;
}

class WgmmaEmitter : public DotEmitter {
public:
  WgmmaEmitter(OpBuilder &b, Location loc, const DotPlan &p) : DotEmitter(b, loc, p) {}

  void locate() override {
    Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
    Value warp = div(tid, 32);
    Value group = div(warp, 4), sub = rem(warp, 4);
    Value lane = rem(tid, 32);
    groupRow_ = mul(div(group, p_.warpsN), 64 * p_.piecesM());
    groupCol_ = mul(rem(group, p_.warpsN), p_.tileN);
    row0_ = add(add(groupRow_, mul(sub, 16)), div(lane, 4));
    col0_ = add(groupCol_, mul(rem(lane, 4), 2));
  }

  SmallVector<Value> multiply(ValueRange accs) override {
    MLIRContext *ctx = b_.getContext();
    StoredLayout a = p_.aInRegisters ? StoredLayout() : *storedLayout(p_.a);
    StoredLayout b = *storedLayout(p_.b);
    Value aAddr = p_.aInRegisters ? nullptr : address(p_.a), bAddr = address(p_.b);
    Value groupRow = i64(groupRow_), groupCol = i64(groupCol_);
    int64_t aHigh = descriptorHigh(16, 8 * a.rowBytes, a.mode);
    // B stored N x K is K-major like A; stored K x N it is N-major: its column blocks are the
    // leading offset apart, its groups of 8 k rows the stride.
    int64_t bHigh = p_.bTransposed ? descriptorHigh(16, 8 * b.rowBytes, b.mode)
                                   : descriptorHigh(b.blockBytes ? b.blockBytes : 16,
                                                    8 * b.rowBytes, b.mode);
    int64_t pieces = p_.piecesN();
    Type f32 = b_.getF32Type();
    auto structType =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(pieces * 4, f32));
    // A's registers, all made before the fence (a register written between two wgmma makes
    // ptxas wait for the first: C7519).
    SmallVector<SmallVector<Value>> aRegs;
    for (int64_t k = 0; k < p_.k && p_.aInRegisters; k += 16)
      for (int64_t r = 0; r < p_.piecesM(); ++r)
        aRegs.push_back(aFragment(r, k));
    NVVM::WgmmaFenceAlignedOp::create(b_, loc_);
    SmallVector<Value> inFlight;
    for (int64_t r = 0; r < p_.piecesM(); ++r) {
      Value s = LLVM::PoisonOp::create(b_, loc_, structType);
      for (int64_t j = 0; j < pieces; ++j)
        for (int64_t e = 0; e < 4; ++e)
          s = LLVM::InsertValueOp::create(
              b_, loc_, s, vector::ExtractOp::create(b_, loc_, accs[r * pieces + j], e),
              ArrayRef<int64_t>{j * 4 + e});
      inFlight.push_back(s);
    }
    NVVM::WGMMATypes input = p_.input.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, p_.tileN, 16);
    // Each tile's descriptor at the warpgroup's part once; a k step's and a piece's are that
    // many 16-byte units further (the start address field is the shared-memory address / 16:
    // an address in the tile stays in the field, so adding to the descriptor adds to it).
    // K-major: row r, column k at r * rowBytes + (k / 64) * blockBytes + (k % 64) * 2.
    // N-major: k row k of the warpgroup's first column block.
    Value bBase = descriptor(bAddr,
                             p_.bTransposed ? mul64(groupCol, b.rowBytes)
                                            : mul64(div64(groupCol, 64), b.blockBytes),
                             bHigh);
    Value aBase =
        p_.aInRegisters ? nullptr : descriptor(aAddr, mul64(groupRow, a.rowBytes), aHigh);
    for (int64_t k = 0; k < p_.k; k += 16) {
      Value bDesc = add64(bBase, (p_.bTransposed ? (k / 64) * b.blockBytes + (k % 64) * 2
                                                 : k * b.rowBytes) /
                                     16);
      for (int64_t r = 0; r < p_.piecesM() && p_.aInRegisters; ++r)
        inFlight[r] = multiplyFromRegisters(structType, inFlight[r],
                                            aRegs[k / 16 * p_.piecesM() + r], bDesc);
      for (int64_t r = 0; r < p_.piecesM() && !p_.aInRegisters; ++r) {
        Value aDesc = add64(
            aBase, (64 * r * a.rowBytes + (k / 64) * a.blockBytes + (k % 64) * 2) / 16);
        inFlight[r] = NVVM::WgmmaMmaAsyncOp::create(
            b_, loc_, structType, inFlight[r], aDesc, bDesc, shape, input, input,
            NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
            NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
            p_.bTransposed ? NVVM::MMALayout::col : NVVM::MMALayout::row, nullptr);
      }
    }
    // Waited for here; a K loop's step may leave it in flight (kWarpgroupStepAttr).
    NVVM::WgmmaGroupSyncAlignedOp::create(b_, loc_);
    NVVM::WgmmaWaitGroupSyncOp::create(b_, loc_, b_.getI64IntegerAttr(0));
    SmallVector<Value> out;
    auto vector = VectorType::get({4}, f32);
    for (int64_t r = 0; r < p_.piecesM(); ++r)
      for (int64_t j = 0; j < pieces; ++j) {
        SmallVector<Value> d;
        for (int64_t e = 0; e < 4; ++e)
          d.push_back(LLVM::ExtractValueOp::create(b_, loc_, inFlight[r], j * 4 + e));
        out.push_back(vector::FromElementsOp::create(b_, loc_, vector, d));
      }
    return out;
  }

  void settle() override {
    NVVM::WgmmaWaitGroupSyncOp::create(b_, loc_, b_.getI64IntegerAttr(0));
  }

private:
  /// A's four fragment registers (32 bits each) of k step `k` of the warp's 16 rows of piece
  /// row `r`: handed over (aRegisters), else read from A's tile (a plan re-planned for the
  /// registers a chain analysis that was then discarded offered), each lane's two adjacent
  /// columns at a time (rows g and g + 8, columns 2t and 2t + 8 of the step).
  SmallVector<Value> aFragment(int64_t r, int64_t k) {
    SmallVector<Value> pairs;
    if (!p_.aRegisters.empty()) {
      pairs = handedFragment(r, k);
    } else {
      Value tile = inSharedMemory(p_.a);
      auto type = cast<MemRefType>(p_.a.getType());
      bool swizzled = p_.a.getDefiningOp()->hasAttr(kSwizzledAttr);
      Value row = add(row0_, cst(64 * r));
      // The lane's pair (columns 2t, 2t + 1) of the 16-byte chunk (8 elements) at column c.
      Value within = arith::SubIOp::create(b_, loc_, col0_, groupCol_);
      for (int64_t c : {k, k + 8})
        for (Value at : {row, add(row, cst(8))}) {
          auto [sr, sc] = swizzled ? swizzledPosition(b_, loc_, at, cst(c), type)
                                   : std::pair<Value, Value>{at, cst(c)};
          Value first = add(sc, within);
          pairs.push_back(vector::FromElementsOp::create(
              b_, loc_, VectorType::get({2}, p_.input),
              ValueRange{memref::LoadOp::create(b_, loc_, tile, ValueRange{sr, first}),
                         memref::LoadOp::create(b_, loc_, tile,
                                                ValueRange{sr, add(first, cst(1))})}));
        }
    }
    return llvm::map_to_vector(pairs, [&](Value pair) -> Value {
      Value word =
          vector::BitCastOp::create(b_, loc_, VectorType::get({1}, b_.getI32Type()), pair);
      return vector::ExtractOp::create(b_, loc_, word, 0);
    });
  }

  /// One wgmma.mma_async.m64nNk16 with A from the registers `a` (MLIR's nvvm op takes
  /// descriptors only): inline PTX, the accumulators tied to its results, B's descriptor.
  Value multiplyFromRegisters(Type structType, Value acc, ArrayRef<Value> a, Value bDesc) {
    int64_t n = p_.tileN / 2;
    std::string type = p_.input.isBF16() ? "bf16" : "f16";
    std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(2 * n + 5) +
                       ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(p_.tileN) +
                       "k16.f32." + type + "." + type + " {";
    std::string constraints;
    SmallVector<Value> operands;
    for (int64_t e = 0; e < n; ++e) {
      text += (e ? ", $" : "$") + std::to_string(e);
      constraints += "=f,";
    }
    for (int64_t e = 0; e < n; ++e) {
      operands.push_back(LLVM::ExtractValueOp::create(b_, loc_, acc, e));
      constraints += std::to_string(e) + ",";
    }
    text += "}, {";
    for (int64_t e = 0; e < 4; ++e) {
      text += (e ? ", $" : "$") + std::to_string(2 * n + e);
      operands.push_back(a[e]);
      constraints += "r,";
    }
    // B stored N x K is K-major (not transposed); K x N is transposed by wgmma.
    text += "}, $" + std::to_string(2 * n + 4) + ", p, 1, 1, " +
            (p_.bTransposed ? "0" : "1") + ";\n}\n";
    operands.push_back(bDesc);
    operands.push_back(LLVM::ConstantOp::create(b_, loc_, b_.getI32Type(), 1));
    constraints += "l,n";
    auto wgmma = LLVM::InlineAsmOp::create(b_, loc_, structType, operands, text, constraints,
                                           /*has_side_effects=*/true, /*is_align_stack=*/false,
                                           LLVM::tailcallkind::TailCallKind::None,
                                           LLVM::AsmDialectAttr(), ArrayAttr());
    wgmma->setAttr(tessel::kRegistersOnlyAttr, b_.getUnitAttr());
    return wgmma.getResult(0);
  }

  /// Piece (i, j): the m16n8 fragment at 64 i rows and 8 j columns of the warp's part.
  SmallVector<std::pair<Value, Value>> pieceElements(int64_t i, int64_t j) override {
    return m16n8Elements(add(row0_, cst(64 * i)), add(col0_, cst(8 * j)));
  }

  /// The shared-memory address (bytes) of `tile`'s first element, as i64.
  Value address(Value tile) {
    Value shared = inSharedMemory(tile);
    auto meta = memref::ExtractStridedMetadataOp::create(b_, loc_, shared);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b_, loc_, shared);
    return i64(add(base, mul(meta.getOffset(), 2)));
  }

  /// A matrix descriptor: the start address `base + offset` (bytes, i64) and `high`.
  Value descriptor(Value base, Value offset, int64_t high) {
    Value start = arith::AddIOp::create(b_, loc_, base, offset);
    Value field = arith::ShRUIOp::create(
        b_, loc_, arith::AndIOp::create(b_, loc_, start, cst64(0x3FFFF)), cst64(4));
    return arith::OrIOp::create(b_, loc_, field, cst64(high));
  }

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b_, loc_, v); }
  Value cst64(int64_t v) { return arith::ConstantIntOp::create(b_, loc_, v, 64); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b_, loc_, x, y); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b_, loc_, x, cst(y)); }
  Value div(Value x, int64_t y) { return arith::DivUIOp::create(b_, loc_, x, cst(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b_, loc_, x, cst(y)); }
  Value i64(Value index) {
    return arith::IndexCastUIOp::create(b_, loc_, b_.getI64Type(), index);
  }
  Value add64(Value x, int64_t y) { return arith::AddIOp::create(b_, loc_, x, cst64(y)); }
  Value mul64(Value x, int64_t y) { return arith::MulIOp::create(b_, loc_, x, cst64(y)); }
  Value div64(Value x, int64_t y) { return arith::DivUIOp::create(b_, loc_, x, cst64(y)); }

  Value groupRow_, groupCol_, row0_, col0_;
};

} // namespace

bool tessel::cuda::planWarpgroupDot(DotPlan &p, int64_t warps, bool aInRegisters) {
  // 16-bit operands (tf32 stays on mma.sync: wgmma reads tf32 K-major only).
  if (warps % 4 || p.m % 64 || !(p.input.isF16() || p.input.isBF16()))
    return false;
  std::optional<StoredLayout> a = storedLayout(p.a), b = storedLayout(p.b);
  if ((!a && !aInRegisters) || !b)
    return false;
  int64_t groups = warps / 4;
  // A warpgroup's 4 warps stack along M: the knob's rows of warps (p.warpM) are its rows of
  // warpgroups times 4; other values leave the matmul on mma.sync.
  if (p.warpM % 4)
    return false;
  // The widest part of N a warpgroup can take (fewest reads of A), all warpgroups busy.
  for (int64_t wgN = 1; wgN <= groups; wgN *= 2) {
    int64_t wgM = groups / wgN;
    if (p.m % (64 * wgM) || p.n % wgN || (p.warpM && p.warpM != 4 * wgM))
      continue;
    int64_t tileN = p.n / wgN, reps = p.m / (64 * wgM);
    if (tileN % 8 || tileN > 256 || reps * tileN / 2 > 128)
      continue;
    // N-major B: a warpgroup's columns are whole column blocks (or the whole row).
    if (!p.bTransposed && (b->blockBytes ? tileN % 64 != 0 : wgN != 1))
      continue;
    for (Value tile : {p.a, p.b})
      if (tile != p.a || !aInRegisters)
        tile.getDefiningOp()->setAttr(
            kTileAlignmentAttr,
            IntegerAttr::get(IntegerType::get(tile.getContext(), 64), kWarpgroupTileAlignment));
    p.warpgroups = true;
    p.aInRegisters = aInRegisters;
    p.activeWarps = warps;
    p.warpsM = wgM;
    p.warpsN = wgN;
    p.tileM = 16 * reps;
    p.tileN = tileN;
    return true;
  }
  return false;
}

std::unique_ptr<DotEmitter> tessel::cuda::makeWarpgroupEmitter(OpBuilder &b, Location loc,
                                                               const DotPlan &p) {
  return std::make_unique<WgmmaEmitter>(b, loc, p);
}

void tessel::cuda::fenceAsyncProxyAfterWrites(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto fence = [&](OpBuilder &b, Location loc) {
    NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
                               NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  };
  // The copies a thread issued have landed after its wait.
  func.walk([&](NVVM::CpAsyncWaitGroupOp wait) {
    if (!wait->getParentOp()->hasAttr(kAsyncWaitAttr))
      return;
    OpBuilder after(wait->getBlock(), std::next(wait->getIterator()));
    fence(after, wait.getLoc());
  });
  // A thread's synchronous stores into a tile wgmma reads: at the end of their region.
  auto intoWarpgroupTile = [](Operation *op) {
    Value target;
    if (auto store = dyn_cast<vector::StoreOp>(op))
      target = store.getBase();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      target = store.getMemRef();
    Operation *def = target ? viewedBuffer(target).getDefiningOp() : nullptr;
    return def && def->hasAttr(kTileAlignmentAttr);
  };
  func.walk([&](scf::ExecuteRegionOp region) {
    if (!region->hasAttr(kPerThreadAttr) || region->hasAttr(kAsyncCopyAttr) ||
        region->hasAttr(kAsyncWaitAttr) || region->hasAttr(kAsyncCommitAttr))
      return;
    if (!region
             ->walk([&](Operation *op) {
               return intoWarpgroupTile(op) ? WalkResult::interrupt() : WalkResult::advance();
             })
             .wasInterrupted())
      return;
    for (Block &block : region.getRegion()) {
      OpBuilder before(block.getTerminator());
      fence(before, region.getLoc());
    }
  });
}
