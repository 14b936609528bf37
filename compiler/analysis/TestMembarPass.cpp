//===- TestMembarPass.cpp - prints which barriers are needed as remarks (lit tests) -*- C++ -*-===//

#include "compiler/analysis/Membar.h"
#include "compiler/analysis/TestPasses.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestPrintMembarPass : public PassWrapper<TestPrintMembarPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintMembarPass)
  StringRef getArgument() const final { return "test-print-membar"; }
  StringRef getDescription() const final {
    return "Print for each gpu.barrier whether it orders conflicting accesses (remarks); with "
           "remove=1, remove the ones that do not, in program order";
  }
  TestPrintMembarPass() = default;
  TestPrintMembarPass(const TestPrintMembarPass &other) : PassWrapper(other) {}
  Option<bool> remove{*this, "remove", llvm::cl::desc("remove the barriers not needed"),
                      llvm::cl::init(false)};
  void runOnOperation() override {
    if (remove) {
      getOperation().walk([&](FunctionOpInterface func) {
        int n = tessel::removeRedundantBarriers(func);
        func->emitRemark() << n << " barriers removed";
      });
      return;
    }
    getOperation().walk([&](gpu::BarrierOp b) {
      b->emitRemark() << (tessel::barrierNeeded(b) ? "barrier needed" : "barrier not needed");
    });
  }
};
} // namespace

void tessel::registerMembarTestPass() { PassRegistration<TestPrintMembarPass>(); }
