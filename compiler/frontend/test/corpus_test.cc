//===- corpus_test.cc - the frontend on the whole TTIR corpus -*- C++ -*-===//
//
// tools/ttir_corpus/corpus_kernels.py is the source Triton 3.6 compiled into the dumps under
// compiler/dialect/triton/test/triton_printed/. For every specialization there, tessel's
// frontend, given the same constexprs and argument types, produces the same multiset of ops
// after canonicalize + CSE on both sides. (The block-pointer matmul is compared only after
// tessel's own lowering: Triton rewrites block pointers into pointer tensors before printing.)
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/frontend/test/CorpusSpecs.h"
#include "compiler/pipeline/Compiler.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "gtest/gtest.h"

#include <fstream>
#include <map>
#include <sstream>

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Op name -> count after canonicalize + CSE (and, with `inline`, inlining first: noinline
/// callees are specialized under other names by the two compilers).
std::map<std::string, int> opCounts(const std::string &text, std::string &error) {
  mlir::MLIRContext context;
  context.loadDialect<tessel::tt::TTDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                      mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect>();
  std::map<std::string, int> counts;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module) {
    error = "does not parse";
    return counts;
  }
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  if (mlir::failed(pm.run(*module)))
    error = "canonicalize failed";
  module->walk([&](mlir::Operation *op) {
    if (!mlir::isa<mlir::ModuleOp>(op))
      ++counts[op->getName().getStringRef().str()];
  });
  return counts;
}

TEST(Corpus, SameOpsAsTriton) {
  int compared = 0;
  for (const tessel::test::CorpusSpec &s : tessel::test::corpusSpecs()) {
    if (!s.printedByTriton)
      continue;
    SCOPED_TRACE(s.dump);
    std::string source = readFile(s.source);
    ASSERT_FALSE(source.empty()) << s.source;
    tessel::frontend::KernelSpec spec;
    spec.entry = s.entry;
    spec.constexprs = s.constexprs;
    spec.signature = tessel::frontend::SplitSignature(s.signature);
    absl::StatusOr<std::string> ours = tessel::generateTTIR(source, s.source, spec);
    ASSERT_TRUE(ours.ok()) << ours.status();
    std::string e1, e2;
    std::map<std::string, int> mine = opCounts(*ours, e1);
    std::map<std::string, int> theirs = opCounts(
        readFile("compiler/dialect/triton/test/triton_printed/" + s.dump + ".ttir"), e2);
    ASSERT_EQ(e1, "");
    ASSERT_EQ(e2, "");
    ASSERT_FALSE(theirs.empty());
    for (const auto &[name, count] : theirs)
      EXPECT_EQ(mine[name], count) << "op " << name << " (tessel's count first)";
    for (const auto &[name, count] : mine)
      if (!theirs.count(name))
        EXPECT_EQ(count, 0) << "op " << name << " only in tessel's IR";
    ++compared;
  }
  EXPECT_EQ(compared, 19);
}

} // namespace
