//===- py_e2e_test.cc - Triton-language kernels compiled from .py and run on the CPU -*- C++ -*-===//
//
// Fresh random inputs each run, outputs poisoned with NaN, sizes not multiples of the block,
// 1 thread and all threads; references in C++.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/test/TestRandom.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "compiler/frontend/test/MathKernelReference.h"
#include "gtest/gtest.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

namespace {

using tessel::test::rng;

struct Loaded {
  std::unique_ptr<tessel::runtime::Module> module;
  std::unique_ptr<tessel::runtime::Kernel> kernel;
};

/// The kernel `entry` of `file` (in compiler/frontend/test/kernels) compiled for the CPU.
absl::StatusOr<std::string> compileFrom(const std::string &file, const std::string &entry,
                                        std::map<std::string, std::string> constexprs,
                                        const std::string &signature) {
  std::string path = "compiler/frontend/test/kernels/" + file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  tessel::frontend::KernelSpec spec;
  spec.constexprs = std::move(constexprs);
  spec.signature = tessel::frontend::SplitSignature(signature);
  tessel::CompileOptions options;
  options.entry = entry;
  options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/" + entry + ".so";
  return tessel::compilePython(text.str(), path, spec, options);
}

Loaded compile(const std::string &entry, std::map<std::string, std::string> constexprs,
               const std::string &signature, const std::string &file = "frontend_kernels.py") {
  absl::StatusOr<std::string> so = compileFrom(file, entry, std::move(constexprs), signature);
  EXPECT_TRUE(so.ok()) << so.status();
  Loaded l;
  if (!so.ok())
    return l;
  auto module = tessel::runtime::Module::Open(*so);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok())
    return l;
  // A nested kernel ("test_add.kernel") is the function of its own name.
  auto kernel = (*module)->GetKernel(entry.substr(entry.rfind('.') + 1));
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  l.module = *std::move(module);
  if (kernel.ok())
    l.kernel = std::make_unique<tessel::runtime::Kernel>(*kernel);
  return l;
}

std::vector<float> randomFloats(size_t n) { return tessel::test::randomFloats(n, -3.f, 3.f); }

class PyEndToEnd : public ::testing::TestWithParam<int> {};

TEST_P(PyEndToEnd, NoinlineTensorArgumentsAndTupleResults) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("noinline_kernel", {{"BLOCK", "64"}}, "*fp32,*fp32,*fp32,*fp32,i32,fp32");
  ASSERT_TRUE(k.kernel);
  int n = 300 + int(rng()() % 200), blocks = (n + 63) / 64;
  float a = std::uniform_real_distribution<float>(-2, 2)(rng());
  std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, NAN), stats(2 * blocks, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1},
                                      {x.data(), y.data(), out.data(), stats.data(), n, a}, pool)
                  .ok());
  for (int i = 0; i < n; ++i)
    ASSERT_NEAR(out[i], a * x[i] + y[i], 1e-5f) << i;
  for (int b = 0; b < blocks; ++b) {
    float lo = INFINITY, hi = -INFINITY;
    for (int i = b * 64; i < b * 64 + 64; ++i) {
      float v = i < n ? a * x[i] + y[i] : 0.0f;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    ASSERT_NEAR(stats[2 * b], lo, 1e-5f) << b;
    ASSERT_NEAR(stats[2 * b + 1], hi, 1e-5f) << b;
  }
}

TEST_P(PyEndToEnd, LoopCarriedPointerAndRuntimeIf) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("loop_kernel", {{"BLOCK", "32"}}, "*fp32,*fp32,i32,i32,i32");
  ASSERT_TRUE(k.kernel);
  int rows = 1 + int(rng()() % 40), cols = 50 + int(rng()() % 70), stride = cols + 3;
  std::vector<float> x = randomFloats(size_t(rows) * stride), out(cols, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {(cols + 31) / 32, 1, 1},
                                      {x.data(), out.data(), rows, cols, stride}, pool)
                  .ok());
  for (int c = 0; c < cols; ++c) {
    double sum = 0;
    for (int r = 0; r < rows; ++r)
      sum += x[size_t(r) * stride + c];
    ASSERT_NEAR(out[c], 2.0 * sum / rows, 1e-4) << c; // SCALE defaults to the module constant 2
  }
}

TEST_P(PyEndToEnd, ReductionsOfABroadcast) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("broadcast_reduce_kernel", {{"N", "16"}}, "*i32,i32");
  ASSERT_TRUE(k.kernel);
  int32_t base = int32_t(rng()() % 1000) - 500;
  std::vector<int32_t> out(16, -7);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {out.data(), base}, pool).ok());
  for (int i = 0; i < 16; ++i)
    ASSERT_EQ(out[i], 4 * (i + base)) << i; // summed over 2 x 2 copies
}

TEST_P(PyEndToEnd, ReturnInOneBranchAndRuntimeValueForAConstexprParameter) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("early_return_kernel", {{"BLOCK", "64"}}, "*fp32,*fp32,i32,fp32,fp32");
  ASSERT_TRUE(k.kernel);
  for (int trial = 0; trial < 4; ++trial) {
    int n = 1 + int(rng()() % 64); // both sides of BLOCK // 2
    float limit = std::uniform_real_distribution<float>(-2, 2)(rng());
    float f = std::uniform_real_distribution<float>(-3, 3)(rng());
    std::vector<float> x = randomFloats(64), out(64, NAN);
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {1, 1, 1},
                                        {x.data(), out.data(), n, limit, f}, pool)
                    .ok());
    for (int i = 0; i < n; ++i) {
      float want = n > 32 ? x[i] * f : (limit < 0 ? x[i] * 0.0f : x[i] * limit);
      ASSERT_NEAR(out[i], want, 1e-5f) << "n " << n << " i " << i;
    }
    for (int i = n; i < 64; ++i)
      ASSERT_TRUE(std::isnan(out[i])) << i; // masked: untouched
  }
}

TEST_P(PyEndToEnd, Interleave) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("interleave_kernel", {{"ROWS", "4"}, {"COLS", "16"}}, "*fp32,*fp32,*fp32");
  ASSERT_TRUE(k.kernel);
  std::vector<float> a = randomFloats(64), b = randomFloats(64), out(128, NAN);
  ASSERT_TRUE(
      tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {a.data(), b.data(), out.data()}, pool).ok());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      ASSERT_EQ(out[r * 32 + 2 * c], a[r * 16 + c]) << r << "," << c;
      ASSERT_EQ(out[r * 32 + 2 * c + 1], b[r * 16 + c]) << r << "," << c;
    }
}

TEST_P(PyEndToEnd, CatKeepsBothOperands) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("cat_kernel", {{"N", "32"}}, "*fp32,*fp32,*fp32");
  ASSERT_TRUE(k.kernel);
  std::vector<float> a = randomFloats(32), b = randomFloats(32), out(64, NAN);
  ASSERT_TRUE(
      tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {a.data(), b.data(), out.data()}, pool).ok());
  std::vector<float> want = a;
  want.insert(want.end(), b.begin(), b.end());
  std::sort(want.begin(), want.end());
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, want); // the same elements (can_reorder leaves their order free)
}

TEST_P(PyEndToEnd, AggregatesFollowPythonIdentity) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("aggregate_kernel", {{"BLOCK", "32"}}, "*fp32,*fp32,i32");
  ASSERT_TRUE(k.kernel);
  int n = 100 + int(rng()() % 200);
  std::vector<float> x = randomFloats(n), out(4, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {x.data(), out.data(), n}, pool).ok());
  double sum = 0;
  for (float v : x)
    sum += v;
  // The count after the last odd block (where the noinline call ran).
  int blocks = (n + 31) / 32, lastOdd = (blocks - 1) % 2 == 1 ? blocks - 1 : blocks - 2;
  int lastCount = std::min(n, (lastOdd + 1) * 32);
  EXPECT_NEAR(out[0], 2 * sum, 1e-3 * (1 + std::fabs(sum)));
  EXPECT_EQ(out[1], float(n));
  EXPECT_NEAR(out[2], 3 * sum, 1e-3 * (1 + std::fabs(sum)));
  EXPECT_EQ(out[3], float(lastOdd >= 1 ? lastCount : 0));
}

TEST_P(PyEndToEnd, Atomics) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("atomics_kernel", {{"BLOCK", "32"}}, "*fp32,*fp32,*i32,*i32,i32");
  ASSERT_TRUE(k.kernel);
  int n = 100 + int(rng()() % 200), blocks = (n + 31) / 32;
  std::vector<float> x = randomFloats(n), maxmin = {-INFINITY, INFINITY};
  std::vector<int32_t> counter = {0, 0}, flag(1 + blocks, -1);
  flag[0] = 0;
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1},
                                      {x.data(), maxmin.data(), counter.data(), flag.data(), n},
                                      pool)
                  .ok());
  EXPECT_EQ(maxmin[0], *std::max_element(x.begin(), x.end()));
  EXPECT_EQ(maxmin[1], *std::min_element(x.begin(), x.end()));
  EXPECT_EQ(counter[0], blocks);
  EXPECT_EQ(counter[1], 7);
  // atomic_cas: one winner saw 0; every other program saw the winner's id + 1.
  int winner = flag[0] - 1;
  ASSERT_GE(winner, 0);
  ASSERT_LT(winner, blocks);
  for (int b = 0; b < blocks; ++b)
    EXPECT_EQ(flag[1 + b], b == winner ? 0 : winner + 1) << b;
}

TEST_P(PyEndToEnd, DevicePrint) {
  if (GetParam() != 1)
    GTEST_SKIP() << "one thread keeps the printed lines in order";
  tessel::runtime::ThreadPool pool(1);
  Loaded k = compile("print_kernel", {}, "*fp32");
  ASSERT_TRUE(k.kernel);
  std::vector<float> x = {1.5f, -2.0f, 0.25f, 8.0f};
  ::testing::internal::CaptureStdout();
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {x.data()}, pool).ok());
  std::fflush(stdout);
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "pid (0, 0, 0) idx (0) x = 1.500000\n"
                 "pid (0, 0, 0) idx (1) x = -2.000000\n"
                 "pid (0, 0, 0) idx (2) x = 0.250000\n"
                 "pid (0, 0, 0) idx (3) x = 8.000000\n"
                 "pid (0, 0, 0) idx () n 41\n"
                 "pid (0, 0, 0) idx (0) pos 1\n" // booleans print as 0 and 1
                 "pid (0, 0, 0) idx (1) pos 0\n"
                 "pid (0, 0, 0) idx (2) pos 1\n"
                 "pid (0, 0, 0) idx (3) pos 1\n");
}

TEST_P(PyEndToEnd, StridedMaskedLoadReadsEveryStrideThElement) {
  // Column maxima: each program loads one column (elements `stride` apart) of a row-major
  // matrix with fewer rows than the block, the rest masked.
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("column_max_kernel", {{"BLOCK", "256"}}, "*fp32,*fp32,i32,i32");
  ASSERT_TRUE(k.kernel);
  int rows = 100 + int(rng()() % 150), cols = 3 + int(rng()() % 40);
  std::vector<float> x = randomFloats(size_t(rows) * cols), out(cols, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {cols, 1, 1}, {x.data(), out.data(), rows, cols},
                                      pool)
                  .ok());
  for (int c = 0; c < cols; ++c) {
    float want = -INFINITY;
    for (int r = 0; r < rows; ++r)
      want = std::max(want, x[size_t(r) * cols + c]);
    ASSERT_EQ(out[c], want) << "column " << c;
  }
}

TEST_P(PyEndToEnd, RowsWrappingAroundAnyNumberOfTimes) {
  // Issue 42: `(pid * BLOCK_M + arange) % M` with M from 1 to 3 * BLOCK_M, so that a block
  // wraps around up to 32 times (M = 1), once, or not at all; every row of every block is
  // stored and checked. A and B are exactly as long as M x K and K x N (no slack to read).
  tessel::runtime::ThreadPool pool(GetParam());
  constexpr int kBlockM = 32, kBlockN = 16, kBlockK = 16;
  Loaded k = compile("wrapped_rows_matmul",
                     {{"BLOCK_M", "32"}, {"BLOCK_N", "16"}, {"BLOCK_K", "16"}},
                     "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32");
  ASSERT_TRUE(k.kernel);
  for (int m = 1; m <= 3 * kBlockM; ++m) {
    int n = 1 + int(rng()() % kBlockN), kk = 1 + int(rng()() % (3 * kBlockK));
    int blocks = (m + kBlockM - 1) / kBlockM, rows = blocks * kBlockM;
    std::vector<float> a = randomFloats(size_t(m) * kk), b = randomFloats(size_t(kk) * n);
    std::vector<float> c(size_t(rows) * n, NAN);
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1},
                                        {a.data(), b.data(), c.data(), m, n, kk, kk, n, n},
                                        pool)
                    .ok());
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < n; ++j) {
        double want = 0, mag = 0;
        for (int p = 0; p < kk; ++p) {
          want += double(a[size_t(r % m) * kk + p]) * b[size_t(p) * n + j];
          mag += std::fabs(double(a[size_t(r % m) * kk + p]) * b[size_t(p) * n + j]);
        }
        // f32 products summed in f32, at most 48 of them: a few ulps of the magnitude.
        ASSERT_NEAR(c[size_t(r) * n + j], want, 1e-5 * mag + 1e-6)
            << "M=" << m << " row " << r << " column " << j;
      }
  }
}

TEST_P(PyEndToEnd, NoinlineFunctionsOfTheSameNameInTwoFilesStayTwo) {
  // scaled (x 2) here and h.scaled (x 3) in helpers.py take the same argument types; each
  // call runs its own function: 2x * 10 + 3x.
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("same_name_kernel", {{"BLOCK", "64"}}, "*fp32,*fp32,i32");
  ASSERT_TRUE(k.kernel);
  int n = 50 + int(rng()() % 100), blocks = (n + 63) / 64;
  std::vector<float> x = randomFloats(n), out(n, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1}, {x.data(), out.data(), n}, pool)
                  .ok());
  for (int i = 0; i < n; ++i)
    ASSERT_NEAR(out[i], x[i] * 23.0f, 1e-5f * (1 + std::fabs(x[i]) * 23)) << i;
}

TEST_P(PyEndToEnd, FunctionsImportedFromAnotherFile) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("imported_kernel", {{"BLOCK", "64"}}, "*fp32,*fp32,i32");
  ASSERT_TRUE(k.kernel);
  int n = 100 + int(rng()() % 200), blocks = (n + 63) / 64;
  std::vector<float> x = randomFloats(n), out(n, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1}, {x.data(), out.data(), n}, pool)
                  .ok());
  for (int b = 0; b < blocks; ++b) {
    double sum = 0;
    for (int i = b * 64; i < std::min(n, b * 64 + 64); ++i)
      sum += x[i];
    float sign = sum > 0 ? 1.f : -1.f;
    for (int i = b * 64; i < std::min(n, b * 64 + 64); ++i)
      ASSERT_NEAR(out[i], std::min(x[i] + 0.5f, 1.0f) * sign, 1e-6f) << i;
  }
}

TEST_P(PyEndToEnd, KernelFilesWithHostCode) {
  // host_code.py: kernels among host code of every kind (f-strings, lambdas, comprehensions,
  // try/with/match/async, decorators with arguments, classes), some nested in test functions.
  tessel::runtime::ThreadPool pool(GetParam());
  struct Case {
    std::string entry;
    std::function<float(float)> want;
  } cases[] = {
      {"scaled_add_kernel", nullptr},                                    // 3x + y + 7
      {"test_square.kernel", [](float x) { return x * x * 2; }},        // FACTOR of the test
      {"TestCube.test_cube.kernel", [](float x) { return x * x * x; }}, // qualified
      {"negate_kernel", [](float x) { return -(x + 1); }},              // unique name
  };
  for (const Case &c : cases) {
    bool add = !c.want;
    Loaded k = compile(c.entry, {{"BLOCK", "64"}}, add ? "*fp32,*fp32,*fp32,i32" : "*fp32,*fp32,i32",
                       "host_code.py");
    ASSERT_TRUE(k.kernel) << c.entry;
    int n = 100 + int(rng()() % 200), blocks = (n + 63) / 64;
    std::vector<float> x = randomFloats(n), y = randomFloats(n), out(n, NAN);
    std::vector<tessel::runtime::Arg> args = {x.data()};
    if (add)
      args.push_back(y.data());
    args.push_back(out.data());
    args.push_back(n);
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1}, args, pool).ok()) << c.entry;
    for (int i = 0; i < n; ++i) {
      float want = add ? 3 * x[i] + y[i] + 7 : c.want(x[i]);
      ASSERT_NEAR(out[i], want, 1e-5f * (1 + std::fabs(want))) << c.entry << " " << i;
    }
  }
}

// ---- Philox, written here from the algorithm's definition (Salmon et al., SC'11) --------

template <typename W> W mulhi(W a, W b) {
  if constexpr (sizeof(W) == 4)
    return W((uint64_t(a) * b) >> 32);
  else
    return W((unsigned __int128)a * b >> 64);
}

/// Philox-4xW with `rounds` rounds; the multipliers and Weyl increments of 32- or 64-bit words.
template <typename W> std::array<W, 4> philoxReference(std::array<W, 4> c, std::array<W, 2> k,
                                                       int rounds = 10) {
  const bool w32 = sizeof(W) == 4;
  const W m0 = w32 ? W(0xD2511F53u) : W(0xD2E7470EE14C6C93ull);
  const W m1 = w32 ? W(0xCD9E8D57u) : W(0xCA5A826395121157ull);
  const W weyl0 = w32 ? W(0x9E3779B9u) : W(0x9E3779B97F4A7C15ull);
  const W weyl1 = w32 ? W(0xBB67AE85u) : W(0xBB67AE8584CAA73Bull);
  for (int r = 0; r < rounds; ++r) {
    if (r > 0)
      k = {W(k[0] + weyl0), W(k[1] + weyl1)};
    W hi0 = mulhi(m0, c[0]), lo0 = W(m0 * c[0]), hi1 = mulhi(m1, c[2]), lo1 = W(m1 * c[2]);
    c = {W(hi1 ^ c[1] ^ k[0]), lo1, W(hi0 ^ c[3] ^ k[1]), lo0};
  }
  return c;
}

/// Triton's map of 32 random bits to [0, 1): signed, folded onto [0, 2^31), times a scale.
float uniformReference(uint32_t bits) {
  int32_t s = int32_t(bits);
  int32_t folded = s < 0 ? int32_t(uint32_t(-int64_t(s)) - 1) : s;
  return float(folded) * 4.6566127342e-10f;
}

TEST(Philox, ReferenceMatchesThePublishedKnownAnswers) {
  // Random123's known-answer vectors for Philox-4x32-10 and Philox-4x64-10.
  using A32 = std::array<uint32_t, 4>;
  using A64 = std::array<uint64_t, 4>;
  EXPECT_EQ(philoxReference<uint32_t>({0, 0, 0, 0}, {0, 0}),
            (A32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philoxReference<uint32_t>({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (A32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philoxReference<uint32_t>({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                                      {0xa4093822, 0x299f31d0}),
            (A32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  EXPECT_EQ(philoxReference<uint64_t>({0, 0, 0, 0}, {0, 0}),
            (A64{0x16554d9eca36314cull, 0xdb20fe9d672d0fdcull, 0xd7e772cee186176bull,
                 0x7e68b68aec7ba23bull}));
}

TEST_P(PyEndToEnd, PhiloxRandomNumbersAreTritons) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("philox_kernel", {{"BLOCK", "64"}}, "*i32,*i32,*fp32,*i32,i64,i32");
  ASSERT_TRUE(k.kernel);
  int n = 100 + int(rng()() % 200), blocks = (n + 63) / 64;
  int64_t seed = int64_t(rng()()) << 32 | rng()();
  std::vector<int32_t> bits(5 * n, 0x5A5A5A5A), hi(2 * n, 0x5A5A5A5A);
  std::vector<int32_t> wide(4 * n, 0x5A5A5A5A);
  std::vector<float> floats(10 * n, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1},
                                      {bits.data(), wide.data(), floats.data(), hi.data(), seed, n},
                                      pool)
                  .ok());
  std::array<uint32_t, 2> key = {uint32_t(seed), uint32_t(uint64_t(seed) >> 32)};
  for (int i = 0; i < n; ++i) {
    std::array<uint32_t, 4> w = philoxReference<uint32_t>({uint32_t(i), 0, 0, 0}, key);
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(uint32_t(bits[5 * i + j]), w[j]) << "offset " << i << " word " << j;
    ASSERT_EQ(uint32_t(bits[5 * i + 4]), w[0]) << "randint at " << i;
    // A 64-bit offset is the counter (low word, high word, 0, 0), as Triton 3.6 builds it.
    std::array<uint32_t, 4> w64 = philoxReference<uint32_t>({uint32_t(i), uint32_t(i), 0, 0}, key);
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(uint32_t(wide[4 * i + j]), w64[j]) << "64-bit offset " << i << " word " << j;
    float u[4];
    for (int j = 0; j < 4; ++j)
      u[j] = uniformReference(w[j]);
    const float *f = &floats[10 * i];
    ASSERT_EQ(f[0], u[0]) << "rand at " << i; // bit for bit
    for (int j = 0; j < 4; ++j)
      ASSERT_EQ(f[2 + j], u[j]) << "rand4x at " << i;
    for (int pair = 0; pair < 2; ++pair) {
      double u1 = std::max(1.0e-7f, u[2 * pair]), th = 6.283185307179586 * u[2 * pair + 1];
      double r = std::sqrt(-2.0 * std::log(u1));
      // Box-Muller in float: the CPU's log, sin and cos are within a few ulps of libm's.
      double tol = 2e-5 * (1 + r);
      ASSERT_NEAR(f[6 + 2 * pair], r * std::cos(th), tol) << "randn4x at " << i;
      ASSERT_NEAR(f[7 + 2 * pair], r * std::sin(th), tol) << "randn4x at " << i;
      if (pair == 0)
        ASSERT_NEAR(f[1], r * std::cos(th), tol) << "randn at " << i;
    }
    ASSERT_EQ(uint32_t(hi[2 * i]), mulhi(w[0], w[1])) << "umulhi at " << i;
    std::array<uint32_t, 4> r7 =
        philoxReference<uint32_t>({uint32_t(i), uint32_t(i + 1), 0, 0}, key, 7);
    ASSERT_EQ(uint32_t(hi[2 * i + 1]), r7[0]) << "7-round philox at " << i;
  }
}

TEST_P(PyEndToEnd, MathFunctions) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("math_kernel", {{"BLOCK", "64"}}, "*fp32,*fp32,*fp32,i32");
  ASSERT_TRUE(k.kernel);
  int n = 100 + int(rng()() % 200), blocks = (n + 63) / 64;
  std::vector<float> x = tessel::test::randomFloats(n, -0.99f, 0.99f),
                     y = tessel::test::randomFloats(n, 1.01f, 4.f), out(20 * n, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {blocks, 1, 1},
                                      {x.data(), y.data(), out.data(), n}, pool)
                  .ok());
  for (int i = 0; i < n; ++i) {
    double want[tessel::test::kMathResults];
    tessel::test::mathReference(x[i], y[i], want);
    for (int j = 0; j < tessel::test::kMathResults; ++j)
      ASSERT_NEAR(out[20 * i + j], want[j], tessel::test::mathTolerance(j, want[j]))
          << tessel::test::kMathNames[j] << " at x=" << x[i] << " y=" << y[i];
  }
}

/// What the descriptor kernels write: out (rows x cols) = 2 x + 1 for x with row stride `ld`,
/// and tiles (tileRows x width, whole blocks) = x inside rows x cols, zero padding outside.
void checkDescriptorResults(const std::vector<float> &x, int ld, const std::vector<float> &out,
                            const std::vector<float> &tiles, int rows, int cols, int tileRows,
                            int width) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      ASSERT_EQ(out[size_t(r) * cols + c], 2 * x[size_t(r) * ld + c] + 1) << r << "," << c;
  for (int r = 0; r < tileRows; ++r)
    for (int c = 0; c < width; ++c) {
      float want = r < rows && c < cols ? x[size_t(r) * ld + c] : 0.0f; // zero padding
      ASSERT_EQ(tiles[size_t(r) * width + c], want) << "tile at " << r << "," << c;
    }
}

TEST_P(PyEndToEnd, TensorDescriptors) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("descriptor_kernel", {{"BM", "16"}, {"BN", "32"}}, "*fp32,*fp32,*fp32,i32,i32");
  ASSERT_TRUE(k.kernel);
  int rows = 1 + int(rng()() % 60), cols = 1 + int(rng()() % 90);
  int gm = (rows + 15) / 16, gn = (cols + 31) / 32, width = gn * 32;
  std::vector<float> x = randomFloats(size_t(rows) * cols), out(x.size(), NAN),
                     tiles(size_t(gm) * 16 * width, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {gm, gn, 1},
                                      {x.data(), out.data(), tiles.data(), rows, cols}, pool)
                  .ok());
  checkDescriptorResults(x, cols, out, tiles, rows, cols, gm * 16, width);
}

/// Runs `entry` (descriptor_arg_kernel's work) on descriptors made by the host, as Triton's
/// TensorDescriptor.from_tensor: each is a base pointer, its shape (i32 each) and its strides
/// (i64 each). The source is a view with a row stride wider than its columns (a slice of a
/// larger matrix).
void runOnHostDescriptors(const std::string &entry, int threads) {
  tessel::runtime::ThreadPool pool(threads);
  Loaded k = compile(entry, {{"BM", "16"}, {"BN", "32"}},
                     "tensordesc<fp32[16, 32]>, tensordesc<fp32[16, 32]>, *fp32");
  ASSERT_TRUE(k.kernel);
  ASSERT_EQ(k.kernel->signature().size(), 11u);
  int rows = 1 + int(rng()() % 60), cols = 1 + int(rng()() % 90), ld = cols + 1 + int(rng()() % 9);
  int gm = (rows + 15) / 16, gn = (cols + 31) / 32, width = gn * 32;
  std::vector<float> x = randomFloats(size_t(rows) * ld), out(size_t(rows) * cols, NAN),
                     tiles(size_t(gm) * 16 * width, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {gm, gn, 1},
                                      {x.data(), rows, cols, int64_t(ld), int64_t(1),
                                       out.data(), rows, cols, int64_t(cols), int64_t(1),
                                       tiles.data()},
                                      pool)
                  .ok());
  checkDescriptorResults(x, ld, out, tiles, rows, cols, gm * 16, width);
}

TEST_P(PyEndToEnd, TensorDescriptorArguments) {
  runOnHostDescriptors("descriptor_arg_kernel", GetParam());
}

TEST_P(PyEndToEnd, IntegerToPointerCasts) {
  // Arrays found through their addresses (int64 tables, as a grouped GEMM passes them), each
  // converted back with .to(tl.pointer_type(tl.float32)).
  tessel::runtime::ThreadPool pool(GetParam());
  {
    Loaded k = compile("grouped_scale_kernel", {{"BLOCK", "16"}}, "*i64,*i64,*i32,fp32");
    ASSERT_TRUE(k.kernel);
    const int G = 4;
    std::vector<std::vector<float>> xs(G), ys(G);
    std::vector<int64_t> xAddrs(G), yAddrs(G);
    std::vector<int32_t> sizes(G);
    for (int g = 0; g < G; ++g) {
      sizes[g] = 1 + int(rng()() % 70);
      xs[g] = randomFloats(sizes[g]);
      ys[g].assign(sizes[g], NAN);
      xAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(xs[g].data()));
      yAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(ys[g].data()));
    }
    float alpha = randomFloats(1)[0];
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {G, 1, 1},
                                        {xAddrs.data(), yAddrs.data(), sizes.data(), alpha}, pool)
                    .ok());
    for (int g = 0; g < G; ++g)
      for (int i = 0; i < sizes[g]; ++i)
        ASSERT_EQ(ys[g][i], xs[g][i] * alpha) << "member " << g << " element " << i;
  }
  {
    Loaded k = compile("grouped_matmul_kernel", {{"BM", "32"}, {"BN", "32"}, {"BK", "16"}},
                       "*i64,*i64,*i64,*i32");
    ASSERT_TRUE(k.kernel);
    const int G = 3;
    std::vector<std::vector<float>> as(G), bs(G), cs(G);
    std::vector<int64_t> aAddrs(G), bAddrs(G), cAddrs(G);
    std::vector<int32_t> dims(3 * G);
    for (int g = 0; g < G; ++g) {
      int m = 1 + int(rng()() % 32), n = 1 + int(rng()() % 32), kk = 1 + int(rng()() % 70);
      dims[3 * g] = m, dims[3 * g + 1] = n, dims[3 * g + 2] = kk;
      as[g] = randomFloats(size_t(m) * kk);
      bs[g] = randomFloats(size_t(kk) * n);
      cs[g].assign(size_t(m) * n, NAN);
      aAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(as[g].data()));
      bAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(bs[g].data()));
      cAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(cs[g].data()));
    }
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {G, 1, 1},
                                        {aAddrs.data(), bAddrs.data(), cAddrs.data(),
                                         dims.data()},
                                        pool)
                    .ok());
    for (int g = 0; g < G; ++g) {
      int m = dims[3 * g], n = dims[3 * g + 1], kk = dims[3 * g + 2];
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double ref = 0, mag = 0;
          for (int p = 0; p < kk; ++p) {
            ref += double(as[g][i * kk + p]) * bs[g][p * n + j];
            mag += std::fabs(double(as[g][i * kk + p]) * bs[g][p * n + j]);
          }
          ASSERT_NEAR(cs[g][i * n + j], ref, 1e-5 * mag + 1e-6)
              << "member " << g << " (" << m << "x" << n << "x" << kk << ") at " << i << "," << j;
        }
    }
  }
}

TEST_P(PyEndToEnd, ExperimentalDescriptorLoadStore) {
  // Triton 3.2's tl._experimental_descriptor_load / _store on host-made descriptors.
  runOnHostDescriptors("legacy_descriptor_kernel", GetParam());
}

/// The value of an e2m1 (fp4) code: sign, 2 exponent bits, 1 mantissa bit.
double e2m1(int v) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (v & 8 ? -1 : 1) * mag[v & 7];
}

/// The value of an OCP fp8 byte: e4m3 (bias 7, no infinities) or e5m2 (bias 15).
double fp8(int v, bool e4m3) {
  int mbits = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  int e = (v & 0x7f) >> mbits, m = v & ((1 << mbits) - 1);
  double mag = e == 0 ? std::ldexp(m, 1 - bias - mbits)
                      : std::ldexp((1 << mbits) + m, e - bias - mbits);
  return v & 0x80 ? -mag : mag;
}

TEST_P(PyEndToEnd, DotScaled) {
  // Triton's microscaling semantics, against a double reference decoded here: e2m1 packed two
  // a byte along K (first in the low nibble), fp8 bytes, e8m0 scales one per 32 of K.
  tessel::runtime::ThreadPool pool(GetParam());
  const int M = 16, N = 16, K = 64;
  struct Case {
    const char *a, *b;
    bool scaledA;
    bool nvfp4 = false; // e4m3 scales (fp8e4nv), one per 16 of K; else e8m0, one per 32
  };
  for (Case c : {Case{"e2m1", "e2m1", true}, Case{"e4m3", "e5m2", true},
                 Case{"e5m2", "e2m1", true}, Case{"e4m3", "e4m3", false},
                 Case{"e2m1", "e2m1", true, true}, Case{"e4m3", "e2m1", false, true}}) {
    SCOPED_TRACE(std::string(c.a) + " x " + c.b + (c.scaledA ? "" : ", a unscaled") +
                 (c.nvfp4 ? ", e4m3 scales per 16" : ""));
    const int group = c.nvfp4 ? 16 : 32;
    int aPer = std::string(c.a) == "e2m1" ? 2 : 1, bPer = std::string(c.b) == "e2m1" ? 2 : 1;
    Loaded k = compile("dot_scaled_kernel",
                       {{"M", "16"}, {"N", "16"}, {"K", "64"}, {"A_FORMAT", std::string("'") + c.a + "'"},
                        {"B_FORMAT", std::string("'") + c.b + "'"}, {"A_PER_BYTE", std::to_string(aPer)},
                        {"B_PER_BYTE", std::to_string(bPer)}, {"SCALED_A", c.scaledA ? "True" : "False"},
                        {"GROUP", std::to_string(group)}},
                       c.nvfp4 ? "*u8,*fp8e4nv,*u8,*fp8e4nv,*fp32" : "*u8,*u8,*u8,*u8,*fp32");
    ASSERT_TRUE(k.kernel);
    // Random codes, fp8 NaN/infinity codes left out; scales near 127 (factors 1/16 .. 16).
    auto code = [&](const char *format) {
      for (;;) {
        int v = int(rng()() % 256);
        if (std::string(format) == "e4m3" && (v & 0x7f) == 0x7f)
          continue;
        if (std::string(format) == "e5m2" && (v & 0x7c) == 0x7c)
          continue;
        return uint8_t(v);
      }
    };
    std::vector<uint8_t> a(size_t(M) * K / aPer), b(size_t(K) / bPer * N), sa(M * K / group),
        sb(N * K / group);
    for (uint8_t &v : a)
      v = code(c.a);
    for (uint8_t &v : b)
      v = code(c.b);
    // e8m0 scales near 127 (factors 1/16 .. 16); e4m3 scales of either sign, exponent fields
    // 3 to 11 (about 1/16 .. 16, normal), any mantissa.
    auto scaleCode = [&] {
      if (!c.nvfp4)
        return uint8_t(123 + rng()() % 9);
      return uint8_t((rng()() % 2) << 7 | (3 + rng()() % 9) << 3 | rng()() % 8);
    };
    for (uint8_t &v : sa)
      v = scaleCode();
    for (uint8_t &v : sb)
      v = scaleCode();
    auto factor = [&](uint8_t s) { return c.nvfp4 ? fp8(s, true) : std::ldexp(1.0, s - 127); };
    std::vector<float> out(size_t(M) * N, NAN);
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {1, 1, 1},
                                        {a.data(), sa.data(), b.data(), sb.data(), out.data()}, pool)
                    .ok());
    auto value = [&](const char *format, const std::vector<uint8_t> &data, int per, size_t at,
                     int shift) {
      int byte = data[at / per];
      if (per == 2)
        return e2m1(shift ? byte >> 4 : byte & 15);
      return fp8(byte, std::string(format) == "e4m3");
    };
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = c.scaledA ? 0 : 1; // the unscaled case adds an accumulator of ones
        double magnitude = 1;            // f32 accumulation: its error grows with the terms
        for (int kk = 0; kk < K; ++kk) {
          // a: row i, k kk (packed along K); b: row kk, column j (packed along K).
          double x = aPer == 2 ? e2m1(kk % 2 ? a[size_t(i) * K / 2 + kk / 2] >> 4
                                             : a[size_t(i) * K / 2 + kk / 2] & 15)
                               : value(c.a, a, 1, size_t(i) * K + kk, 0);
          double y = bPer == 2 ? e2m1(kk % 2 ? b[size_t(kk / 2) * N + j] >> 4
                                             : b[size_t(kk / 2) * N + j] & 15)
                               : value(c.b, b, 1, size_t(kk) * N + j, 0);
          if (c.scaledA)
            x *= factor(sa[size_t(i) * K / group + kk / group]);
          y *= factor(sb[size_t(j) * K / group + kk / group]);
          want += x * y;
          magnitude += std::fabs(x * y);
        }
        ASSERT_NEAR(out[size_t(i) * N + j], want, 1e-5 * magnitude) << "at " << i << "," << j;
      }
  }
}

TEST(FrontendSignature, TensorDescriptorEntries) {
  using tessel::frontend::SplitSignature;
  std::vector<std::string> want = {"tensordesc<fp16[64, 64]>", "*fp32:16", "i32"};
  EXPECT_EQ(SplitSignature("tensordesc<fp16[64, 64]>, *fp32:16, i32"), want);
  EXPECT_TRUE(tessel::frontend::parseTensorDescType(want[0]).ok);
  tessel::frontend::TensorDescType d =
      tessel::frontend::parseTensorDescType("tensordesc<bf16[128,32],NVMMASharedLayout(x, y)>");
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.dtype, "bf16");
  EXPECT_EQ(d.block, (std::vector<int64_t>{128, 32}));
  for (const char *bad : {"tensordesc<fp16>", "tensordesc<fp16[]>", "tensordesc<fp16[64,x]>",
                          "tensordesc<fp16[0]>", "tensordesc<fp16[64]", "tensordesc<[64]>",
                          "tensordesc<fp16[64]]>", "tensordesc<fp16[32 64]>", "tensordesc<fp16[48,64]>",
                          "tensordesc<fp16[1048576,1048576]>"})
    EXPECT_FALSE(tessel::frontend::parseTensorDescType(bad).ok) << bad;
}

TEST_P(PyEndToEnd, IsinstanceDecidedAtCompileTime) {
  // Tensors, descriptors, dtypes, tuples and Python numbers; a helper that takes a pointer or
  // a descriptor (as Triton's tutorials write them). The checks that hold weigh 1 + 10 + 1000 +
  // 10000.
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("isinstance_kernel", {{"BLOCK", "16"}}, "*fp32,*fp32,i32");
  ASSERT_TRUE(k.kernel);
  int n = 1 + int(rng()() % 100), programs = (n + 15) / 16;
  std::vector<float> x = randomFloats(size_t(n)), out(size_t(n) + 1, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {programs, 1, 1}, {x.data(), out.data(), n},
                                      pool)
                  .ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(i)], x[size_t(i)] + 11011.0f) << i;
  EXPECT_TRUE(std::isnan(out[size_t(n)])) << "written past the descriptor's shape";
}

TEST_P(PyEndToEnd, Flip) {
  tessel::runtime::ThreadPool pool(GetParam());
  Loaded k = compile("flip_kernel", {{"R", "4"}, {"C", "16"}}, "*fp32,*fp32,i32");
  ASSERT_TRUE(k.kernel);
  std::vector<float> x = randomFloats(64), out(2 * 64 + 16, NAN);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {x.data(), out.data(), 1}, pool).ok());
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 16; ++c) {
      ASSERT_EQ(out[r * 16 + c], x[(3 - r) * 16 + c]) << "rows flipped at " << r << "," << c;
      ASSERT_EQ(out[64 + r * 16 + c], x[r * 16 + 15 - c]) << "columns flipped at " << r << "," << c;
    }
  for (int c = 0; c < 16; ++c)
    ASSERT_EQ(out[128 + c], x[15 - c]) << "1-D flip at " << c;
}

/// Runs sort_kernel on R x C values of type T and checks each row against std::sort.
template <typename T>
void checkSort(const std::string &pointer, int threads, std::vector<T> x, int R, int C) {
  tessel::runtime::ThreadPool pool(threads);
  for (bool descending : {false, true}) {
    SCOPED_TRACE(pointer + (descending ? " descending" : " ascending"));
    Loaded k = compile("sort_kernel",
                       {{"R", std::to_string(R)}, {"C", std::to_string(C)},
                        {"DESCENDING", descending ? "True" : "False"}},
                       pointer + "," + pointer);
    ASSERT_TRUE(k.kernel);
    std::vector<T> out(size_t(R + 1) * C, T(7));
    ASSERT_TRUE(
        tessel::runtime::Launch(*k.kernel, {1, 1, 1}, {x.data(), out.data()}, pool).ok());
    for (int r = 0; r <= R; ++r) {
      // Row R: the first row, sorted ascending.
      std::vector<T> want(x.begin() + size_t(r < R ? r : 0) * C,
                          x.begin() + size_t(r < R ? r : 0) * C + C);
      std::sort(want.begin(), want.end());
      if (descending && r < R)
        std::reverse(want.begin(), want.end());
      for (int c = 0; c < C; ++c)
        ASSERT_EQ(out[size_t(r) * C + c], want[c]) << "row " << r << " column " << c;
    }
  }
}

TEST_P(PyEndToEnd, Sort) {
  // Fresh values with repeats (small ranges), negative and, for u32, above 2^31.
  std::uniform_int_distribution<int> small(-20, 20);
  std::vector<float> f(4 * 64);
  for (float &v : f)
    v = small(rng()) * 0.5f;
  checkSort<float>("*fp32", GetParam(), f, 4, 64);
  std::vector<int32_t> i(8 * 16);
  for (int32_t &v : i)
    v = small(rng()) * 100000;
  checkSort<int32_t>("*i32", GetParam(), i, 8, 16);
  std::vector<uint32_t> u(2 * 128);
  for (uint32_t &v : u)
    v = uint32_t(rng()()) | (rng()() % 2 ? 0x80000000u : 0u);
  checkSort<uint32_t>("*u32", GetParam(), u, 2, 128);
}

/// An 8-bit float format as Triton names it and as LLVM's APFloat knows it (the reference).
struct Fp8Case {
  std::string dtype, signature;
  const llvm::fltSemantics &semantics;
  uint8_t largest; ///< positive largest finite encoding
};

/// `x` (in `from` semantics) to `to` as Triton does on NVIDIA (cvt.rn.satfinite): correctly
/// rounded by APFloat, then infinities and overflow (APFloat's inf or NaN from a number)
/// saturated to the largest finite value of x's sign; NaN is any NaN (returned as 0xff-marked
/// -1).
int refFp8(llvm::APFloat x, const Fp8Case &c, bool towardZero) {
  if (x.isNaN())
    return -1;
  bool lost = false;
  llvm::APFloat y = x;
  y.convert(c.semantics,
            towardZero ? llvm::APFloat::rmTowardZero : llvm::APFloat::rmNearestTiesToEven, &lost);
  if (y.isInfinity() || y.isNaN())
    return c.largest | (x.isNegative() ? 0x80 : 0);
  return int(y.bitcastToAPInt().getZExtValue());
}

bool isNaNCode(uint8_t code, const Fp8Case &c) {
  return llvm::APFloat(c.semantics, llvm::APInt(8, code)).isNaN();
}

float decode(uint8_t code, const Fp8Case &c) {
  llvm::APFloat v(c.semantics, llvm::APInt(8, code));
  bool lost = false;
  v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v.convertToFloat();
}

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST_P(PyEndToEnd, Fp8ConversionsAreCorrectlyRoundedAndSaturate) {
  tessel::runtime::ThreadPool pool(GetParam());
  const Fp8Case cases[] = {
      {"tl.float8e5", "*fp8e5", llvm::APFloat::Float8E5M2(), 0x7b},
      {"tl.float8e4nv", "*fp8e4nv", llvm::APFloat::Float8E4M3FN(), 0x7e},
      {"tl.float8e5b16", "*fp8e5b16", llvm::APFloat::Float8E5M2FNUZ(), 0x7f},
      {"tl.float8e4b8", "*fp8e4b8", llvm::APFloat::Float8E4M3FNUZ(), 0x7f},
  };
  // Every float16 and bfloat16 bit pattern; float32: the same count of fresh random values
  // around the 8-bit range (normal, subnormal, beyond), the exact midpoints between
  // neighbouring 8-bit values (ties), and specials.
  const int n = 65536;
  std::vector<uint16_t> h(n), bf(n);
  for (int k = 0; k < n; ++k)
    h[k] = bf[k] = uint16_t(k);
  std::vector<float> x(n);
  std::uniform_int_distribution<int> exponent(-22, 18);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  for (int k = 0; k < n; ++k)
    x[k] = std::ldexp(mantissa(rng()), exponent(rng())) * (rng()() % 2 ? -1.f : 1.f);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1.0625f, 1.1875f,
                            500.0f, 448.0f, 464.0f, 57344.0f, 61440.0f, 1e30f, -1e30f,
                            1e-30f, -1e-30f, 240.0f, 248.0f};
  for (size_t k = 0; k < std::size(specials); ++k)
    x[k] = specials[k];
  for (const Fp8Case &c : cases) {
    // Ties between neighbouring positive values, after the specials.
    for (int code = 0; code + 1 < 0x7f; ++code) {
      size_t at = std::size(specials) + size_t(code);
      float lo = decode(uint8_t(code), c), hi = decode(uint8_t(code + 1), c);
      if (!std::isnan(lo) && !std::isnan(hi))
        x[at] = (lo + hi) / 2 * (code % 2 ? -1.f : 1.f);
    }
    for (const char *round : {"'rtne'", "'rtz'"}) {
      SCOPED_TRACE(c.dtype + std::string(" ") + round);
      Loaded k = compile("fp8_kernel", {{"FP8", c.dtype}, {"ROUND", round}, {"BLOCK", "256"}},
                         "*fp32,*fp16,*bf16," + c.signature + "," + c.signature + "," +
                             c.signature + ",*fp32,*fp32,i32");
      ASSERT_TRUE(k.kernel);
      std::vector<uint8_t> q(n, 0x55), qh(n, 0x55), qb(n, 0x55);
      std::vector<float> back(n, NAN), twice(n, NAN);
      ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, {n / 256, 1, 1},
                                          {x.data(), h.data(), bf.data(), q.data(), qh.data(),
                                           qb.data(), back.data(), twice.data(), n},
                                          pool)
                      .ok());
      bool rtz = std::string(round) == "'rtz'";
      auto expectCode = [&](uint8_t got, int want, const std::string &what) {
        if (want < 0)
          ASSERT_TRUE(isNaNCode(got, c)) << what << " gives " << int(got) << ", not NaN";
        else
          ASSERT_EQ(int(got), want) << what;
      };
      for (int i = 0; i < n; ++i) {
        std::string at = " at " + std::to_string(i);
        expectCode(q[i], refFp8(llvm::APFloat(x[i]), c, rtz),
                   "float32 " + std::to_string(x[i]) + " (bits " + std::to_string(bitsOf(x[i])) +
                       ")" + at);
        expectCode(qh[i], refFp8(llvm::APFloat(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h[i])),
                                 c, false),
                   "float16 bits " + std::to_string(h[i]));
        expectCode(qb[i], refFp8(llvm::APFloat(llvm::APFloat::BFloat(), llvm::APInt(16, bf[i])),
                                 c, false),
                   "bfloat16 bits " + std::to_string(bf[i]));
        float want = decode(q[i], c);
        if (std::isnan(want))
          ASSERT_TRUE(std::isnan(back[i])) << "widening code " << int(q[i]) << at;
        else
          ASSERT_EQ(bitsOf(back[i]), bitsOf(want)) << "widening code " << int(q[i]) << at;
        // q + q in 8-bit arithmetic: the f32 sum rounded back (to nearest even, saturating).
        int sum = refFp8(llvm::APFloat(2 * want), c, false);
        float wantTwice = sum < 0 ? NAN : decode(uint8_t(sum), c);
        if (std::isnan(wantTwice))
          ASSERT_TRUE(std::isnan(twice[i])) << "doubling code " << int(q[i]) << at;
        else
          ASSERT_EQ(bitsOf(twice[i]), bitsOf(wantTwice)) << "doubling code " << int(q[i]) << at;
      }
      // What an H100 gives (cvt.rn.satfinite), for the two formats it has.
      if (c.dtype == "tl.float8e4nv" && !rtz) {
        EXPECT_EQ(int(q[6]), 0x38) << "1.0625 rounds to even (1.0)";
        EXPECT_EQ(int(q[7]), 0x3a) << "1.1875 rounds to even (1.25)";
        EXPECT_EQ(int(q[8]), 0x7e) << "500 saturates to 448";
        EXPECT_EQ(int(q[3]), 0xfe) << "-inf saturates to -448";
        EXPECT_EQ(int(q[4]) & 0x7f, 0x7f) << "NaN stays NaN";
      }
      if (c.dtype == "tl.float8e5" && !rtz) {
        EXPECT_EQ(int(q[2]), 0x7b) << "inf saturates to 57344";
        EXPECT_EQ(int(q[12]), 0x7b) << "61440 saturates to 57344";
      }
    }
  }
}

TEST(PyErrors, HostCodeNamesAreErrorsInKernels) {
  struct Case {
    std::string entry, message;
  } cases[] = {
      {"kernel", "several kernels are named 'kernel' (TestCube.test_cube.kernel, "
                 "test_parameters.kernel, test_square.kernel): name one as --entry SCOPE.NAME"},
      {"run", "no @triton.jit function named 'run' in this file"},
      {"not_a_kernel", "no @triton.jit function named 'not_a_kernel' in this file"},
      {"uses_host_value_kernel",
       "host_code.py:78:23: error: 'BLOCK_DEFAULT' is assigned by host code (line 33), which "
       "tessel does not run"},
      // A parameter of the enclosing host function, not a module constant of that name.
      {"test_parameters.kernel",
       "host_code.py:166:27: error: 'SCALE' is a parameter of a host function (line 160)"},
  };
  for (const Case &c : cases) {
    absl::StatusOr<std::string> so = compileFrom("host_code.py", c.entry, {}, "*i32");
    ASSERT_FALSE(so.ok()) << c.entry;
    EXPECT_NE(so.status().message().find(c.message), std::string::npos)
        << "expected '" << c.message << "' in:\n" << so.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, PyEndToEnd, ::testing::Values(1, 0),
                         [](const auto &info) {
                           return std::string(info.param == 1 ? "OneThread" : "AllThreads");
                         });

} // namespace
