//===- compiler_fuzz_test.cc - the frontend and the TTIR reader on mutated input -*- C++ -*-===//
//
// Triton-language kernels (the corpus's and the zoo's, with their specializations) and TTIR as
// Triton 3.6 prints it, each from valid seeds and their mutations (tools/fuzz/Fuzz.h): the
// frontend generates TTIR or reports an error; the TTIR reader parses and verifies or reports
// an error, and what verifies goes down the structured lowering. Never a crash.
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/frontend/test/CorpusSpecs.h"
#include "compiler/pipeline/Compiler.h"
#include "compiler/pipeline/SourceLimits.h"
#include "compiler/pipeline/StructuredPipeline.h"
#include "tools/fuzz/Fuzz.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Fuzz, TritonLanguageFrontend) {
  // Each corpus specialization; mutations of its source keep its entry and constexprs.
  const auto &specs = tessel::test::corpusSpecs();
  std::vector<std::string> seeds;
  std::vector<const tessel::test::CorpusSpec *> specOfSeed;
  for (const auto &s : specs) {
    seeds.push_back(readFile(s.source));
    specOfSeed.push_back(&s);
    ASSERT_FALSE(seeds.back().empty()) << s.source;
  }
  size_t next = 0;
  int generated = 0;
  tessel::fuzz::Run(
      "triton-language",
      seeds,
      [&](const std::string &source) {
        // A specialization whose kernel the (mutated) source still defines, in turn; else any.
        const tessel::test::CorpusSpec *chosen = nullptr;
        for (size_t k = 0; k < specOfSeed.size() && !chosen; ++k) {
          const tessel::test::CorpusSpec *c = specOfSeed[(next + k) % specOfSeed.size()];
          if (source.find("def " + c->entry + "(") != std::string::npos)
            chosen = c;
        }
        const tessel::test::CorpusSpec &s = chosen ? *chosen : *specOfSeed[next % specOfSeed.size()];
        ++next;
        tessel::frontend::KernelSpec spec;
        spec.entry = s.entry;
        spec.constexprs = s.constexprs;
        spec.signature = tessel::frontend::SplitSignature(s.signature);
        generated += tessel::generateTTIR(source, "fuzz.py", spec).ok();
      },
      10, 300);
  EXPECT_GT(generated, 0);
}

TEST(Fuzz, TtirReaderAndStructuredLowering) {
  std::vector<std::string> seeds;
  for (const auto &s : tessel::test::corpusSpecs())
    if (s.printedByTriton)
      seeds.push_back(
          readFile("compiler/dialect/triton/test/triton_printed/" + s.dump + ".ttir"));
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  registry.insert<tessel::tt::TritonDialect, tessel::tts::StructuredDialect>();
  int verified = 0;
  tessel::fuzz::Run(
      "ttir",
      seeds,
      [&](const std::string &text) {
        if (!tessel::IrNestingProblem(text).empty())
          return; // refused before parsing, as tessel-opt and tessel-compile do
        mlir::MLIRContext context(registry);
        context.loadAllAvailableDialects();
        mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
          return mlir::success();
        });
        mlir::OwningOpRef<mlir::ModuleOp> module =
            mlir::parseSourceString<mlir::ModuleOp>(text, &context);
        if (!module || mlir::failed(mlir::verify(*module)))
          return;
        ++verified;
        mlir::PassManager pm(&context);
        tessel::buildStructuredPipeline(pm);
        (void)pm.run(*module);
      },
      15, 100);
  EXPECT_GT(verified, 0);
}

} // namespace
