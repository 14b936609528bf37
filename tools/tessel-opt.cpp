//===- tessel-opt.cpp - mlir-opt for tessel's dialects and passes -*- C++ -*-===//
//
// Parses, verifies, transforms and prints IR in the tt and tts dialects and every upstream
// dialect the lowering reaches. Every lit test runs it.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/TestPasses.h"
#include "compiler/backend/cpu/Passes.h"
#include "compiler/backend/cuda/Passes.h"
#include "compiler/backend/rocm/Passes.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/pipeline/SourceLimits.h"
#include "compiler/pipeline/StructuredPipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

/// True while LLVM's option parser runs (see main).
static bool parsingCommandLine = false;

int main(int argc, char **argv) {
  // Input files nested deeper than the parser can recurse are refused before it sees them
  // (IR on standard input is not checked).
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o") { // the output file
      ++i;
      continue;
    }
    if (arg.empty() || arg[0] == '-')
      continue;
    std::ifstream in(arg, std::ios::binary);
    if (!in)
      continue; // MlirOptMain reports what it cannot open
    std::stringstream text;
    text << in.rdbuf();
    if (std::string why = tessel::IrNestingProblem(text.str()); !why.empty()) {
      std::fprintf(stderr, "%s:%s\n", arg.c_str(), why.c_str());
      return 1;
    }
  }
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  tessel::registerConversionPasses();
  tessel::registerStructuredPipeline();
  tessel::registerCpuPasses();
  tessel::registerCpuPipeline();
  tessel::registerCudaPasses();
  tessel::registerRocmPasses();
  tessel::registerAnalysisTestPasses();
  registry.insert<tessel::tt::TritonDialect, tessel::tts::StructuredDialect>();
  // A bad command line exits 2, as every tessel tool's does; LLVM's parser exits 1 itself, so
  // while it parses, an exit is turned into 2 (--help and --version exit 0 and are left alone).
  bool informational = false;
  for (int i = 1; i < argc; ++i)
    for (const char *flag : {"-help", "--help", "-help-hidden", "--help-hidden", "-help-list",
                             "--help-list", "-version", "--version", "-h"})
      informational = informational || std::strcmp(argv[i], flag) == 0;
  std::atexit([] {
    if (parsingCommandLine)
      std::_Exit(2);
  });
  parsingCommandLine = !informational;
  auto [input, output] =
      mlir::registerAndParseCLIOptions(argc, argv, "tessel optimizer driver\n", registry);
  parsingCommandLine = false;
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry));
}
