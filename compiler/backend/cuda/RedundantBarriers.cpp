//===- RedundantBarriers.cpp - barriers that order no conflicting accesses removed -*- C++ -*-===//
//
// See Passes.td (CudaRedundantBarriers) and compiler/analysis/Membar.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/Membar.h"
#include "compiler/backend/cuda/Passes.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDAREDUNDANTBARRIERS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {
struct CudaRedundantBarriers
    : tessel::impl::CudaRedundantBarriersBase<CudaRedundantBarriers> {
  void runOnOperation() override {
    getOperation().walk([](gpu::GPUFuncOp func) { tessel::removeRedundantBarriers(func); });
  }
};
} // namespace
