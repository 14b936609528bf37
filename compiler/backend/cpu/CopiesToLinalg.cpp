//===- CopiesToLinalg.cpp - memref.copy as linalg.copy -*- C++ -*-===//

#include "compiler/backend/cpu/Passes.h"

using namespace mlir;

/// memref.copy would lower to a call into MLIR's C runner library, which shared objects must
/// not depend on; as linalg.copy it becomes plain loops.
static void copiesToLinalg(ModuleOp module) {
  module.walk([](memref::CopyOp copy) {
    OpBuilder b(copy);
    linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(), copy.getTarget());
    copy.erase();
  });
}


namespace tessel {
#define GEN_PASS_DEF_CPUCOPIESTOLINALG
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuCopiesToLinalgPass : tessel::impl::CpuCopiesToLinalgBase<CpuCopiesToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    copiesToLinalg(getOperation());
  }
};
} // namespace
