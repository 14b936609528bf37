//===- golden_test.cc - the frontend against the IR Triton 3.6 printed -*- C++ -*-===//
//
// samples/kernels.py holds the Triton-language sources of three kernels and samples/*.ttir
// what Triton 3.6 printed for one specialization of each. For each: tessel's frontend output
// and Triton's IR, both canonicalized and CSE'd, have the same multiset of ops; and the two,
// compiled for the CPU, give the same outputs on fresh random inputs.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/test/TestRandom.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "gtest/gtest.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace {

using tessel::test::rng;

const std::string kDir = "compiler/frontend/test/samples/";

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Golden {
  std::string entry, ttir;
  std::map<std::string, std::string> constexprs;
  std::string signature;
};

std::vector<Golden> goldens() {
  return {
      {"vadd", "vadd_block128.ttir", {{"BLOCK", "128"}}, "*fp32:16,*fp32:16,*fp32:16,i32:16"},
      {"softmax_kernel",
       "softmax_block1024.ttir",
       {{"BLOCK_SIZE", "1024"}},
       "*fp32:16,*fp32:16,i32:16,i32:16,i32:16"},
      {"matmul_kernel_base",
       "matmul_128x128x32.ttir",
       {{"BLOCK_SIZE_M", "128"},
        {"BLOCK_SIZE_N", "128"},
        {"BLOCK_SIZE_K", "32"},
        {"GROUP_SIZE_M", "8"},
        {"stride_ak", "1"},
        {"stride_bn", "1"},
        {"stride_cn", "1"}},
       "*fp16:16,*fp16:16,*fp16:16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16"},
  };
}

tessel::frontend::KernelSpec specOf(const Golden &g) {
  tessel::frontend::KernelSpec spec;
  spec.entry = g.entry;
  spec.constexprs = g.constexprs;
  spec.signature = tessel::frontend::SplitSignature(g.signature);
  return spec;
}

/// Op name -> count over the functions of `text` after canonicalize + CSE.
std::map<std::string, int> opCounts(const std::string &text) {
  mlir::MLIRContext context;
  context.loadDialect<tessel::tt::TTDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                      mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  EXPECT_TRUE(module) << text;
  std::map<std::string, int> counts;
  if (!module)
    return counts;
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  EXPECT_TRUE(mlir::succeeded(pm.run(*module)));
  module->walk([&](mlir::Operation *op) {
    if (!mlir::isa<mlir::ModuleOp>(op))
      ++counts[op->getName().getStringRef().str()];
  });
  return counts;
}

TEST(Golden, SameOpsAsTriton) {
  std::string source = readFile(kDir + "kernels.py");
  ASSERT_FALSE(source.empty());
  for (const Golden &g : goldens()) {
    SCOPED_TRACE(g.entry);
    absl::StatusOr<std::string> ours = tessel::generateTTIR(source, "kernels.py", specOf(g));
    ASSERT_TRUE(ours.ok()) << ours.status();
    std::map<std::string, int> mine = opCounts(*ours), theirs = opCounts(readFile(kDir + g.ttir));
    EXPECT_FALSE(theirs.empty());
    for (const auto &[name, count] : theirs)
      EXPECT_EQ(mine[name], count) << "op " << name;
    for (const auto &[name, count] : mine)
      EXPECT_EQ(theirs.count(name) ? theirs[name] : 0, count) << "op " << name;
  }
}

/// Both versions of a kernel compiled to shared objects.
struct Pair {
  std::unique_ptr<tessel::runtime::Module> ours, theirs;
  std::unique_ptr<tessel::runtime::Kernel> oursKernel, theirsKernel;
};

Pair compileBoth(const Golden &g) {
  Pair p;
  std::string tmp = getenv("TEST_TMPDIR");
  tessel::CompileOptions options;
  options.entry = g.entry;
  options.outputPath = tmp + "/" + g.entry + "_py.so";
  absl::StatusOr<std::string> a =
      tessel::compilePython(readFile(kDir + "kernels.py"), "kernels.py", specOf(g), options);
  EXPECT_TRUE(a.ok()) << a.status();
  options.outputPath = tmp + "/" + g.entry + "_ttir.so";
  absl::StatusOr<std::string> b = tessel::compileTTIR(readFile(kDir + g.ttir), g.ttir, options);
  EXPECT_TRUE(b.ok()) << b.status();
  if (!a.ok() || !b.ok())
    return p;
  auto ma = tessel::runtime::Module::Open(*a), mb = tessel::runtime::Module::Open(*b);
  EXPECT_TRUE(ma.ok() && mb.ok());
  if (!ma.ok() || !mb.ok())
    return p;
  p.ours = *std::move(ma);
  p.theirs = *std::move(mb);
  auto ka = p.ours->GetKernel(g.entry), kb = p.theirs->GetKernel(g.entry);
  EXPECT_TRUE(ka.ok() && kb.ok());
  if (ka.ok() && kb.ok()) {
    p.oursKernel = std::make_unique<tessel::runtime::Kernel>(*ka);
    p.theirsKernel = std::make_unique<tessel::runtime::Kernel>(*kb);
  }
  return p;
}

std::vector<float> randomFloats(size_t n) { return tessel::test::randomFloats(n, -2.f, 2.f); }

void expectClose(const std::vector<float> &a, const std::vector<float> &b, float tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_FALSE(std::isnan(a[i])) << i;
    ASSERT_NEAR(a[i], b[i], tol * (1 + std::fabs(b[i]))) << i;
  }
}

TEST(Golden, SameOutputsAsTriton) {
  tessel::runtime::ThreadPool pool(0);
  std::vector<Golden> all = goldens();
  { // vadd: n not a multiple of the block
    Pair p = compileBoth(all[0]);
    ASSERT_TRUE(p.oursKernel && p.theirsKernel);
    int n = 1000 + int(rng()() % 500);
    std::vector<float> x = randomFloats(n), y = randomFloats(n), o1(n, NAN), o2(n, NAN);
    ASSERT_TRUE(tessel::runtime::Launch(*p.oursKernel, {(n + 127) / 128, 1, 1},
                                        {x.data(), y.data(), o1.data(), n}, pool).ok());
    ASSERT_TRUE(tessel::runtime::Launch(*p.theirsKernel, {(n + 127) / 128, 1, 1},
                                        {x.data(), y.data(), o2.data(), n}, pool).ok());
    expectClose(o1, o2, 0);
  }
  { // softmax: rows of n_cols < 1024
    Pair p = compileBoth(all[1]);
    ASSERT_TRUE(p.oursKernel && p.theirsKernel);
    int rows = 17, cols = 500 + int(rng()() % 500), stride = 1024;
    std::vector<float> in = randomFloats(size_t(rows) * stride), o1(in.size(), NAN), o2(in.size(), NAN);
    ASSERT_TRUE(tessel::runtime::Launch(*p.oursKernel, {rows, 1, 1},
                                        {o1.data(), in.data(), stride, stride, cols}, pool).ok());
    ASSERT_TRUE(tessel::runtime::Launch(*p.theirsKernel, {rows, 1, 1},
                                        {o2.data(), in.data(), stride, stride, cols}, pool).ok());
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        ASSERT_NEAR(o1[r * stride + c], o2[r * stride + c], 1e-6f) << r << "," << c;
  }
  { // matmul f16 -> f16 with f32 accumulation; sizes not multiples of the blocks
    Pair p = compileBoth(all[2]);
    ASSERT_TRUE(p.oursKernel && p.theirsKernel);
    int m = 130 + int(rng()() % 60), n = 140 + int(rng()() % 60), k = 70 + int(rng()() % 40);
    std::vector<_Float16> a(size_t(m) * k), b(size_t(k) * n), c1(size_t(m) * n), c2(size_t(m) * n);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    for (auto &v : a)
      v = _Float16(d(rng()));
    for (auto &v : b)
      v = _Float16(d(rng()));
    for (auto &v : c1)
      v = _Float16(NAN);
    c2 = c1;
    int grid = ((m + 127) / 128) * ((n + 127) / 128);
    ASSERT_TRUE(tessel::runtime::Launch(*p.oursKernel, {grid, 1, 1},
                                        {a.data(), b.data(), c1.data(), m, n, k, k, n, n}, pool)
                    .ok());
    ASSERT_TRUE(tessel::runtime::Launch(*p.theirsKernel, {grid, 1, 1},
                                        {a.data(), b.data(), c2.data(), m, n, k, k, n, n}, pool)
                    .ok());
    for (size_t i = 0; i < c1.size(); ++i) {
      ASSERT_FALSE(std::isnan(float(c1[i]))) << i;
      ASSERT_EQ(float(c1[i]), float(c2[i])) << i;
    }
  }
}

} // namespace
