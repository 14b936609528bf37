//===- DropTritonAttributes.cpp - drop tt.* argument attributes -*- C++ -*-===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

/// Drops the tt.* argument attributes (analysis hints) that LLVM IR has no meaning for.
static void dropTritonArgumentAttributes(ModuleOp module) {
  module.walk([](FunctionOpInterface fn) {
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      for (NamedAttribute attr : fn.getArgAttrs(i))
        if (attr.getName().getValue().starts_with("tt."))
          fn.removeArgAttr(i, attr.getName());
  });
}


namespace tessel {
#define GEN_PASS_DEF_CPUDROPTRITONATTRIBUTES
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuDropTritonAttributesPass : tessel::impl::CpuDropTritonAttributesBase<CpuDropTritonAttributesPass> {
  using Base::Base;
  void runOnOperation() override {
    dropTritonArgumentAttributes(getOperation());
  }
};
} // namespace
