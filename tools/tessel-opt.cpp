//===- tessel-opt.cpp - mlir-opt for tessel's dialects and passes -*- C++ -*-===//
//
// Parses, verifies, transforms and prints IR in the tt and tts dialects and every upstream
// dialect the lowering reaches. Every lit test runs it.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/TestPasses.h"
#include "compiler/backend/cpu/Passes.h"
#include "compiler/backend/cuda/Passes.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/pipeline/StructuredPipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  tessel::registerConversionPasses();
  tessel::registerStructuredPipeline();
  tessel::registerCpuPasses();
  tessel::registerCpuPipeline();
  tessel::registerCudaPasses();
  tessel::registerAnalysisTestPasses();
  registry.insert<tessel::tt::TritonDialect, tessel::tts::StructuredDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tessel optimizer driver\n", registry));
}
