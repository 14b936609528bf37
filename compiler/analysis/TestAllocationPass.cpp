//===- TestAllocationPass.cpp - prints shared-memory allocation as remarks (lit tests) -*- C++ -*-===//

#include "compiler/analysis/Allocation.h"
#include "compiler/analysis/TestPasses.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestPrintAllocationPass
    : public PassWrapper<TestPrintAllocationPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintAllocationPass)
  StringRef getArgument() const final { return "test-print-allocation"; }
  StringRef getDescription() const final {
    return "Print each function's shared-memory total and each tile buffer's and call's "
           "offset, size and lifetime as remarks";
  }
  void runOnOperation() override {
    FailureOr<tessel::SharedAllocation> allocation =
        tessel::SharedAllocation::analyze(getOperation());
    if (failed(allocation))
      return signalPassFailure();
    for (auto func : getOperation().getOps<FunctionOpInterface>()) {
      if (func.isExternal())
        continue;
      func->emitRemark() << "shared memory: " << allocation->totalBytes(func) << " bytes";
      for (const tessel::SharedAllocation::Buffer &b : allocation->buffers(func))
        b.op->emitRemark() << (b.isVirtual ? "virtual buffer" : "buffer") << " at " << b.offset
                           << ", " << b.bytes << " bytes, live " << b.firstUse << ".."
                           << b.lastUse;
    }
  }
};
} // namespace

void tessel::registerAllocationTestPass() { PassRegistration<TestPrintAllocationPass>(); }
