//===- TestAxisInfoPass.cpp - prints AxisInfo as remarks (lit tests) -*- C++ -*-===//

#include "compiler/analysis/AxisInfo.h"
#include "compiler/analysis/TestPasses.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestPrintAxisInfoPass
    : public PassWrapper<TestPrintAxisInfoPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintAxisInfoPass)
  StringRef getArgument() const final { return "test-print-axis-info"; }
  StringRef getDescription() const final {
    return "Print the contiguity, divisibility and constancy of every integer and pointer "
           "result as a remark";
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    tessel::ModuleAxisInfo info(module);
    if (!info.succeeded())
      return signalPassFailure();
    module.walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        Type elem = getElementTypeOrSelf(result.getType());
        if (!isa<IntegerType, IndexType>(elem) && !isa<tessel::tt::PointerType>(elem))
          continue;
        std::string text;
        llvm::raw_string_ostream os(text);
        info.lookup(result).print(os);
        op->emitRemark() << text;
      }
    });
  }
};
} // namespace

void tessel::registerAnalysisTestPasses() {
  PassRegistration<TestPrintAxisInfoPass>();
  registerAllocationTestPass();
  registerMembarTestPass();
}
