//===- MatrixCoreDots.cpp - tile matmuls on AMD matrix cores (mfma, wmma) -*- C++ -*-===//
//
// See Passes.td (RocmMatrixCoreDots). The instructions' operand layouts (AMD's CDNA3 ISA
// guide and matrix instruction calculator; the RDNA3 ISA guide), for lane l of a wavefront and
// a 16 x 16 piece of C, 16 deep:
//   mfma 16x16x16 (64 lanes): A (row l % 16, k 4 (l / 16) + e), B (k 4 (l / 16) + e, column
//     l % 16), C (row 4 (l / 16) + e, column l % 16), e < 4;
//   wmma 16x16x16 (32 lanes): A (row l % 16, k e), B (k e, column l % 16), e < 16 (lanes
//     16-31 repeat lanes 0-15); C (row 2 e + l / 16, column l % 16), e < 8.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/rocm/Passes.h"
#include "compiler/backend/cuda/MatrixDots.h"
#include "compiler/backend/cuda/TileCopies.h"
#include "runtime/target/GpuArtifact.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_ROCMMATRIXCOREDOTS
#include "compiler/backend/rocm/Passes.h.inc"
} // namespace tessel

namespace {

/// Where a lane's elements of a piece lie: A's and B's along k from kLaneStride * (l / 16),
/// C's rows from cRowLaneFactor * (l / 16) in steps of cRowStep.
struct MatrixLayout {
  bool wmma;
  int64_t waveSize;
  int64_t abElements, kLaneStride;
  int64_t accElements, cRowLaneFactor, cRowStep;
};

constexpr MatrixLayout kMfma16{false, 64, 4, 4, 4, 4, 1};
constexpr MatrixLayout kWmma16{true, 32, 16, 0, 8, 1, 2};

class MatrixCoreEmitter : public tessel::cuda::DotEmitter {
public:
  MatrixCoreEmitter(OpBuilder &b, Location loc, const tessel::cuda::DotPlan &p,
                    const MatrixLayout &layout)
      : DotEmitter(b, loc, p), l_(layout) {}

  void locate() override {
    Value tid = gpu::ThreadIdOp::create(b_, loc_, gpu::Dimension::x);
    Value wave = cst(l_.waveSize);
    Value warp = arith::RemUIOp::create(b_, loc_, arith::DivUIOp::create(b_, loc_, tid, wave),
                                        cst(p_.activeWarps));
    Value lane = arith::RemUIOp::create(b_, loc_, tid, wave);
    low_ = arith::RemUIOp::create(b_, loc_, lane, cst(16));
    Value high = arith::DivUIOp::create(b_, loc_, lane, cst(16));
    warpRowBase_ = mul(arith::DivUIOp::create(b_, loc_, warp, cst(p_.warpsN)), p_.tileM);
    warpColBase_ = mul(arith::RemUIOp::create(b_, loc_, warp, cst(p_.warpsN)), p_.tileN);
    kLane_ = mul(high, l_.kLaneStride);
    cRow_ = mul(high, l_.cRowLaneFactor);
  }


  SmallVector<Value> multiply(ValueRange accs) override {
    auto loop = scf::ForOp::create(b_, loc_, cst(0), cst(p_.k), cst(16), accs);
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToStart(loop.getBody());
    Value k0 = add(loop.getInductionVar(), kLane_);
    auto fragType = VectorType::get({l_.abElements}, p_.input);
    SmallVector<Value> aFrags, bFrags;
    for (int64_t i = 0; i < p_.piecesM(); ++i) {
      Value row = add(warpRowBase_, add(cst(16 * i), low_));
      SmallVector<Value> elements;
      for (int64_t e = 0; e < l_.abElements; ++e)
        elements.push_back(
            memref::LoadOp::create(b_, loc_, p_.a, ValueRange{row, add(k0, cst(e))}));
      aFrags.push_back(vector::FromElementsOp::create(b_, loc_, fragType, elements));
    }
    for (int64_t j = 0; j < p_.piecesN(); ++j) {
      Value col = add(warpColBase_, add(cst(16 * j), low_));
      SmallVector<Value> elements;
      for (int64_t e = 0; e < l_.abElements; ++e) {
        Value k = add(k0, cst(e));
        // B as stored: K x N, or N x K where its loads were transposed.
        SmallVector<Value> at = p_.bTransposed ? SmallVector<Value>{col, k}
                                               : SmallVector<Value>{k, col};
        elements.push_back(memref::LoadOp::create(b_, loc_, p_.b, at));
      }
      bFrags.push_back(vector::FromElementsOp::create(b_, loc_, fragType, elements));
    }
    SmallVector<Value> out;
    ValueRange carried = loop.getRegionIterArgs();
    for (int64_t i = 0; i < p_.piecesM(); ++i)
      for (int64_t j = 0; j < p_.piecesN(); ++j) {
        Value acc = carried[i * p_.piecesN() + j];
        if (l_.wmma)
          out.push_back(amdgpu::WMMAOp::create(b_, loc_, accType(), 16, 16, 16, aFrags[i],
                                               bFrags[j], acc));
        else
          out.push_back(amdgpu::MFMAOp::create(b_, loc_, accType(), 16, 16, 16, /*blocks=*/1,
                                               aFrags[i], bFrags[j], acc));
      }
    scf::YieldOp::create(b_, loc_, out);
    return SmallVector<Value>(loop.getResults());
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b_, loc_, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b_, loc_, x, y); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(b_, loc_, x, cst(y)); }
  VectorType accType() { return VectorType::get({l_.accElements}, b_.getF32Type()); }

  /// The (row, column) elements of piece (i, j) of C this lane holds, in register order.
  SmallVector<std::pair<Value, Value>> pieceElements(int64_t i, int64_t j) override {
    Value row = add(warpRowBase_, add(cst(16 * i), cRow_));
    Value col = add(warpColBase_, add(cst(16 * j), low_));
    SmallVector<std::pair<Value, Value>> elements;
    for (int64_t e = 0; e < l_.accElements; ++e)
      elements.push_back({add(row, cst(e * l_.cRowStep)), col});
    return elements;
  }

  const MatrixLayout &l_;
  Value low_, kLane_, cRow_, warpRowBase_, warpColBase_;
};

struct RocmMatrixCoreDots : tessel::impl::RocmMatrixCoreDotsBase<RocmMatrixCoreDots> {
  using Base::Base;
  void runOnOperation() override {
    absl::StatusOr<tessel::RocmChip> chip = tessel::RocmChipFor(chipset);
    if (!chip.ok()) {
      getOperation().emitError() << std::string(chip.status().message());
      return signalPassFailure();
    }
    if (!chip->mfma && !chip->wmma)
      return;
    const MatrixLayout &layout = chip->mfma ? kMfma16 : kWmma16;
    if (layout.waveSize != chip->waveSize) {
      getOperation().emitError() << "no matrix layout for " << chipset << "'s wave size";
      return signalPassFailure();
    }
    int64_t threads = numWarps * chip->waveSize;
    // 16-bit operands only (no xf32 matrix instructions here: f32 matmuls stay loops).
    auto shape = [&](Type input) -> std::optional<tessel::cuda::DotShape> {
      if (input.isF32())
        return std::nullopt;
      return tessel::cuda::DotShape{16, 16, 16, layout.accElements, 16};
    };
    auto stage = [&](Value tile, llvm::function_ref<bool(Operation *)>) {
      tessel::cuda::writeTileInChunks(tile, threads);
    };
    auto make = [&](OpBuilder &b, Location loc,
                    const tessel::cuda::DotPlan &p) -> std::unique_ptr<tessel::cuda::DotEmitter> {
      return std::make_unique<MatrixCoreEmitter>(b, loc, p, layout);
    };
    if (failed(tessel::cuda::rewriteDots(getOperation(), numWarps, /*warpM=*/0, shape, stage,
                                         make)))
      return signalPassFailure();
  }
};

} // namespace
