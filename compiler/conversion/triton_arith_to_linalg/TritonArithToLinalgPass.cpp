//===- TritonArithToLinalgPass.cpp - the triton-arith-to-linalg pass -*- C++ -*-===//

#include "compiler/conversion/Passes.h"
#include "compiler/conversion/triton_arith_to_linalg/TritonArithToLinalg.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TRITONARITHTOLINALG
#include "compiler/conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {
struct TritonArithToLinalgPass
    : public tessel::impl::TritonArithToLinalgBase<TritonArithToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(tessel::convertTritonFunctions(module)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    tessel::populateTensorOpConversionPatterns(patterns);
    tessel::populateComputeOpConversionPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      module.emitWarning("triton-arith-to-linalg did not converge");
  }
};
} // namespace
