//===- ApproximateMath.cpp - math functions as polynomials LLVM vectorizes -*- C++ -*-===//
//
// exp, log, tanh, erf, ... become polynomial approximations in arith ops: no libm calls in the
// loops, so LLVM vectorizes them (softmax's exp, layer norm's rsqrt). Where ldexp is one
// instruction (AVX-512; the fast-exp option), exp/exp2 on f32 use a shorter sequence built on
// it (FastExp.cpp).
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATH
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuApproximateMathPass : tessel::impl::CpuApproximateMathBase<CpuApproximateMathPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    if (fastExp)
      tessel::populateFastExpPatterns(patterns);
    // Hyperbolic functions, tan and round become exp / sin / cos / floor first.
    math::populateExpansionPatterns(patterns,
                                    {"sinh", "cosh", "tan", "asinh", "acosh", "atanh", "round"});
    populateMathPolynomialApproximationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
