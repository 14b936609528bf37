//===- many_functions_test.cc - modules of many kernels through the structured lowering -===//
//
// Issue 16 reported a module of five public functions that crashed the structured lowering
// while each function alone lowered. Here modules are assembled from the kernels Triton 3.6
// printed (every function of a file, its symbols renamed apart, helpers and their calls
// included): 2 to 24 kernels drawn at random, duplicates included, in random order. Each module
// must lower, every public kernel to the same code as in a module of its own, and leave no tt
// operation. A fresh seed
// per run, printed (TESSEL_MANY_FUNCTIONS_SEED=N repeats one).
//
//===----------------------------------------------------------------------===//

#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/frontend/fuzz/Fuzzers.h"
#include "compiler/pipeline/StructuredPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

class ManyFunctions : public ::testing::Test {
protected:
  ManyFunctions() : context_(registry()) { context_.loadAllAvailableDialects(); }

  static const mlir::DialectRegistry &registry() {
    static const mlir::DialectRegistry &r = *[] {
      auto *reg = new mlir::DialectRegistry;
      mlir::registerAllDialects(*reg);
      reg->insert<tessel::tt::TritonDialect, tessel::tts::StructuredDialect>();
      return reg;
    }();
    return r;
  }

  /// TTIR text parsed, every symbol renamed with `suffix` (uses follow).
  mlir::OwningOpRef<mlir::ModuleOp> load(const std::string &text, const std::string &suffix) {
    mlir::OwningOpRef<mlir::ModuleOp> m = mlir::parseSourceString<mlir::ModuleOp>(text, &context_);
    if (!m)
      return m;
    mlir::SymbolTable table(*m);
    std::vector<mlir::Operation *> symbols;
    for (mlir::Operation &op : m->getBody()->getOperations())
      if (mlir::SymbolTable::getSymbolName(&op))
        symbols.push_back(&op);
    for (mlir::Operation *op : symbols) {
      std::string renamed = (mlir::SymbolTable::getSymbolName(op).getValue() + suffix).str();
      if (mlir::failed(table.rename(op, renamed)))
        return nullptr;
    }
    return m;
  }

  /// `f` as text, with the names of module-level constants (which a module makes unique among
  /// its own) replaced by one name.
  static std::string printed(mlir::func::FuncOp f) {
    std::string text;
    llvm::raw_string_ostream os(text);
    f.print(os);
    return std::regex_replace(text, std::regex("@__constant[A-Za-z0-9_]*"), "@__constant");
  }

  /// Whether `module` lowers through the whole structured pipeline.
  bool lowers(mlir::ModuleOp module) {
    mlir::PassManager pm(&context_);
    tessel::buildStructuredPipeline(pm);
    return mlir::succeeded(pm.run(module));
  }

  mlir::MLIRContext context_;
};

TEST_F(ManyFunctions, ModulesAssembledFromPrintedKernelsLowerAsTheirParts) {
  uint64_t seed = std::random_device{}();
  if (const char *s = std::getenv("TESSEL_MANY_FUNCTIONS_SEED"))
    seed = std::strtoull(s, nullptr, 10);
  std::printf("TESSEL_MANY_FUNCTIONS_SEED=%llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);

  // The printed corpus, in file name order.
  std::vector<std::string> corpus = tessel::fuzz::TtirSeeds();
  ASSERT_GE(corpus.size(), 10u) << "the printed corpus is missing";
  // Each part alone: the premise of the combined runs.
  for (size_t i = 0; i < corpus.size(); ++i) {
    mlir::OwningOpRef<mlir::ModuleOp> alone = load(corpus[i], "_alone");
    ASSERT_TRUE(alone) << "corpus file " << i;
    ASSERT_TRUE(lowers(*alone)) << "corpus file " << i << " does not lower alone";
  }

  // Remarks (a load left unstructured) are how the parts lower too; an error is not.
  mlir::ScopedDiagnosticHandler report(&context_, [](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      ADD_FAILURE() << d.str();
    return mlir::success();
  });
  for (int trial = 0; trial < 60; ++trial) {
    int count = std::uniform_int_distribution<int>(2, 24)(rng);
    auto module = mlir::ModuleOp::create(mlir::UnknownLoc::get(&context_));
    mlir::OwningOpRef<mlir::ModuleOp> owner(module);
    std::set<std::string> kernels;
    std::map<std::string, std::string> aloneText; // each public kernel lowered in its own module
    std::string parts;
    for (int k = 0; k < count; ++k) {
      size_t pick = rng() % corpus.size();
      parts += " " + std::to_string(pick);
      mlir::OwningOpRef<mlir::ModuleOp> part = load(corpus[pick], "_" + std::to_string(k));
      ASSERT_TRUE(part) << "corpus file " << pick;
      mlir::OwningOpRef<mlir::ModuleOp> alone = load(corpus[pick], "_" + std::to_string(k));
      ASSERT_TRUE(alone && lowers(*alone));
      for (auto f : alone->getOps<mlir::func::FuncOp>())
        if (f.isPublic())
          aloneText[f.getName().str()] = printed(f);
      for (mlir::Operation &op :
           llvm::make_early_inc_range(part->getBody()->getOperations())) {
        if (auto f = llvm::dyn_cast<tessel::tt::FuncOp>(op); f && f.isPublic())
          kernels.insert(f.getName().str());
        op.moveBefore(module.getBody(), module.getBody()->end());
      }
    }
    // Random order of the functions (a callee may come before or after its callers).
    std::vector<mlir::Operation *> ops;
    for (mlir::Operation &op : module.getBody()->getOperations())
      ops.push_back(&op);
    std::shuffle(ops.begin(), ops.end(), rng);
    for (mlir::Operation *op : ops)
      op->moveBefore(module.getBody(), module.getBody()->end());
    SCOPED_TRACE("trial " + std::to_string(trial) + ", corpus files (by name order):" + parts);
    ASSERT_TRUE(mlir::succeeded(mlir::verify(module)));

    ASSERT_TRUE(lowers(module));
    std::set<std::string> lowered;
    bool tritonLeft = false;
    module.walk([&](mlir::Operation *op) {
      if (auto f = llvm::dyn_cast<mlir::func::FuncOp>(op); f && f.isPublic()) {
        lowered.insert(f.getName().str());
        EXPECT_EQ(printed(f), aloneText[f.getName().str()])
            << f.getName().str() << " lowers differently among the others";
      }
      llvm::StringRef ns = op->getName().getDialectNamespace();
      tritonLeft |= ns == "tt" || ns == "tts";
    });
    EXPECT_EQ(lowered, kernels);
    EXPECT_FALSE(tritonLeft);
  }
}

} // namespace
