//===- TtirFuzzer.cpp - fuzz entry: bytes as TTIR -*- C++ -*-===//
//
// Refused like tessel-opt and tessel-compile refuse it (nesting beyond the limit) or parsed,
// verified and lowered by the structured pipeline.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/frontend/fuzz/Fuzzers.h"
#include "compiler/pipeline/SourceLimits.h"
#include "compiler/pipeline/StructuredPipeline.h"
#include "tools/fuzz/Fuzz.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <algorithm>
#include <filesystem>

namespace tessel::fuzz {

bool FuzzTtir(const std::string &bytes) {
  if (!IrNestingProblem(bytes).empty())
    return false;
  static const mlir::DialectRegistry &registry = *[] {
    auto *r = new mlir::DialectRegistry;
    mlir::registerAllDialects(*r);
    r->insert<tt::TritonDialect, tts::StructuredDialect>();
    return r;
  }();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(bytes, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return false;
  mlir::PassManager pm(&context);
  buildStructuredPipeline(pm);
  (void)pm.run(*module);
  return true;
}

std::vector<std::string> TtirSeeds() {
  // TTIR as Triton 3.6 prints it (the corpus tessel must read unchanged).
  std::vector<std::string> paths;
  for (const auto &e :
       std::filesystem::directory_iterator("compiler/dialect/triton/test/triton_printed"))
    if (e.path().extension() == ".ttir")
      paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> seeds;
  for (const std::string &p : paths)
    seeds.push_back(ReadFileBytes(p));
  Check(!seeds.empty(), "no TTIR seeds under compiler/dialect/triton/test/triton_printed");
  return seeds;
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzTtir, tessel::fuzz::TtirSeeds)
