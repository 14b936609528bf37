//===- StructuredPipeline.cpp - the structured lowering as one pipeline -*- C++ -*-===//

#include "compiler/pipeline/StructuredPipeline.h"

#include "compiler/conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tessel::buildStructuredPipeline(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTritonToStructured());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createTritonArithToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createStructuredToMemref());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

LogicalResult tessel::runStructuredPipeline(ModuleOp module) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildStructuredPipeline(pm);
  return pm.run(module);
}

void tessel::registerStructuredPipeline() {
  PassPipelineRegistration<>(
      "tessel-structured-pipeline",
      "Lower tt IR to memref/linalg/scf: inline, triton-to-structured, triton-arith-to-linalg, "
      "structured-to-memref, with canonicalization and CSE in between",
      [](OpPassManager &pm) { buildStructuredPipeline(pm); });
}
