//===- math_accuracy_test.cc - exp/exp2 lowered for the CPU, checked against libm -*- C++ -*-===//
//
// Elementwise math.exp / math.exp2 kernels compiled for this machine (AVX-512 hosts take the
// ldexp-based sequence of FastExp.cpp) and for an AVX2 CPU (MLIR's polynomial approximation),
// run on special values and on fresh random inputs over the whole finite range, against
// double-precision libm. Results below FLT_MIN flush to zero, as Triton's ex2.approx.ftz does.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/test/TestRandom.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

namespace {

constexpr int kBlock = 256;

std::string unaryKernel(const std::string &op) {
  return R"(
tt.func public @unary(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id x : i32
  %c = arith.constant 256 : i32
  %base = arith.muli %pid, %c : i32
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %bs = tt.splat %base : i32 -> tensor<256xi32>
  %offs = arith.addi %bs, %r : tensor<256xi32>
  %ns = tt.splat %n : i32 -> tensor<256xi32>
  %m = arith.cmpi slt, %offs, %ns : tensor<256xi32>
  %xp = tt.splat %x : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %xa = tt.addptr %xp, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %v = tt.load %xa, %m : tensor<256x!tt.ptr<f32>>
  %e = )" + op + R"( %v : tensor<256xf32>
  %yp = tt.splat %y : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %ya = tt.addptr %yp, %offs : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  tt.store %ya, %e, %m : tensor<256x!tt.ptr<f32>>
  tt.return
}
)";
}

using tessel::test::rng;

struct Case {
  const char *op;
  const char *cpu; // "" = this machine
};

class MathAccuracy : public ::testing::TestWithParam<Case> {};

TEST_P(MathAccuracy, MatchesLibm) {
  const Case &c = GetParam();
  bool base2 = std::string(c.op) == "math.exp2";
  tessel::CompileOptions options;
  options.entry = "unary";
  options.target.cpu = c.cpu;
  options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/" + (base2 ? "exp2" : "exp") +
                       (*c.cpu ? "_" + std::string(c.cpu) : "") + ".so";
  absl::StatusOr<std::string> so = tessel::compileTTIR(unaryKernel(c.op), "unary.ttir", options);
  ASSERT_TRUE(so.ok()) << so.status();
  auto module = tessel::runtime::Module::Open(*so);
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = (*module)->GetKernel("unary");
  ASSERT_TRUE(kernel.ok()) << kernel.status();

  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Special values, then random ones over the range where the result is a normal float.
  // Near the smallest normal result: ln FLT_MIN = -87.3365, log2 FLT_MIN = -126.
  std::vector<float> x = {0.0f, -0.0f, 1.0f, -1.0f, inf, -inf, nan, -1000.0f, 1000.0f,
                          -87.336f, -87.33f, -87.3f, -87.34f, -125.999f, -126.0f, -126.01f,
                          // Far below the range (no longer clamped before the reduction).
                          -3.0e7f, -1.0e30f, -FLT_MAX, 3.0e7f, FLT_MAX};
  float lo = base2 ? -126.0f : -87.336f, hi = base2 ? 127.9f : 88.7f;
  std::uniform_real_distribution<float> wide(lo, hi), narrow(-1.0f, 1.0f);
  while (x.size() < 3000)
    x.push_back(x.size() % 2 ? wide(rng()) : narrow(rng()));
  int n = int(x.size()); // not a multiple of the block: the last program is masked
  std::vector<float> y(x.size(), -12345.0f);
  tessel::runtime::ThreadPool pool(0);
  ASSERT_TRUE(tessel::runtime::Launch(*kernel, {(n + kBlock - 1) / kBlock, 1, 1},
                                      {x.data(), y.data(), n}, pool)
                  .ok());

  int checked = 0;
  for (int i = 0; i < n; ++i) {
    double want = base2 ? std::exp2(double(x[i])) : std::exp(double(x[i]));
    SCOPED_TRACE(::testing::Message() << c.op << "(" << x[i] << ") on cpu '" << c.cpu << "'");
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i])) << y[i];
    } else if (want > double(FLT_MAX)) {
      EXPECT_EQ(y[i], inf);
    } else if (want < double(FLT_MIN)) {
      // Flushed to zero (or, with MLIR's approximation, a tiny value).
      EXPECT_GE(y[i], 0.0f);
      EXPECT_LE(y[i], FLT_MIN);
    } else {
      // Within 4 ulp of the correctly rounded result.
      EXPECT_NEAR(y[i], want, 4 * std::abs(want) * FLT_EPSILON) << y[i];
      ++checked;
    }
  }
  EXPECT_GT(checked, 2900);
}

INSTANTIATE_TEST_SUITE_P(Targets, MathAccuracy,
                         ::testing::Values(Case{"math.exp", ""}, Case{"math.exp2", ""},
                                           Case{"math.exp", "haswell"},
                                           Case{"math.exp2", "haswell"}),
                         [](const auto &info) {
                           std::string name = std::string(info.param.op).substr(5);
                           return name + (*info.param.cpu ? "_" + std::string(info.param.cpu)
                                                           : std::string("_host"));
                         });

} // namespace
