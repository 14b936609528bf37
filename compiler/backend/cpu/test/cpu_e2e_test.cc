//===- cpu_e2e_test.cc - Triton-printed kernels run natively and correctly -*- C++ -*-===//
//
// Each test compiles a kernel's TTIR (as Triton 3.6 printed it) to a shared object, loads it
// with the runtime, runs it on fresh random inputs with outputs poisoned (NaN / sentinel), at
// sizes that are not multiples of the block (masks on), with 1 thread and with all threads,
// and compares with a C++ reference.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/test/HalfFloats.h"
#include "compiler/backend/cpu/test/TestRandom.h"
#include "compiler/frontend/test/CorpusSpecs.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

namespace {

using tessel::runtime::Arg;
using tessel::runtime::Grid;
using tessel::runtime::Kernel;
using tessel::runtime::ThreadPool;

std::string corpusPath(const std::string &name) {
  if (name.find('/') != std::string::npos)
    return name; // a path of its own (hand-written TTIR)
  return "compiler/dialect/triton/test/triton_printed/" + name + ".ttir";
}

/// Compiles `name`'s TTIR to a shared object and loads its kernel `entry`.
struct Loaded {
  std::unique_ptr<tessel::runtime::Module> module;
  std::unique_ptr<Kernel> kernel;
};

/// Lowering knobs of the current test (set by the fixture).
tessel::KnobMap currentKnobs;
/// Whether the current test compiles the kernels from their Triton-language source (with the
/// same specialization as the TTIR dump) instead of Triton's TTIR.
bool currentFromPython = false;

std::string readText(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << "missing " << path;
  return text.str();
}

Loaded compileAndLoad(const std::string &name, std::string entry) {
  tessel::CompileOptions options;
  options.knobs = currentKnobs;
  options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/" +
                       std::to_string(std::hash<std::string>()(name)) +
                       (currentFromPython ? "_py" : "") + ".so";
  absl::StatusOr<std::string> so;
  if (currentFromPython) {
    const tessel::test::CorpusSpec *spec = tessel::test::findCorpusSpec(name);
    EXPECT_TRUE(spec) << "no Triton-language source recorded for " << name;
    if (!spec)
      return {};
    tessel::frontend::KernelSpec kernel;
    kernel.constexprs = spec->constexprs;
    kernel.signature = tessel::frontend::SplitSignature(spec->signature);
    entry = options.entry = spec->entry;
    so = tessel::compilePython(readText(spec->source), spec->source, kernel, options);
  } else {
    options.entry = entry;
    so = tessel::compileTTIR(readText(corpusPath(name)), name, options);
  }
  EXPECT_TRUE(so.ok()) << so.status();
  Loaded loaded;
  if (!so.ok())
    return loaded;
  auto module = tessel::runtime::Module::Open(*so);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok())
    return loaded;
  auto kernel = (*module)->GetKernel(entry);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  loaded.module = *std::move(module);
  if (kernel.ok())
    loaded.kernel = std::make_unique<Kernel>(*kernel);
  return loaded;
}

using tessel::test::rng;

using tessel::test::randomFloats;

std::vector<float> poisoned(size_t n) {
  return std::vector<float>(n, std::numeric_limits<float>::quiet_NaN());
}

using tessel::test::fromBf16;
using tessel::test::fromHalf;
using tessel::test::toBf16;
using tessel::test::toHalf;

/// Relative-or-absolute closeness; NaN never passes.
::testing::AssertionResult close(const std::vector<float> &got, const std::vector<float> &want,
                                 float atol, float rtol) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    float g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)))
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

/// Threads and lowering knobs of one instantiation.
struct Config {
  unsigned threads;
  tessel::KnobMap knobs;
  std::string name;
  bool fromPython = false;
};

class CpuEndToEnd : public ::testing::TestWithParam<Config> {
protected:
  void SetUp() override {
    currentKnobs = GetParam().knobs;
    currentFromPython = GetParam().fromPython;
  }
  ThreadPool &pool() {
    if (!pool_)
      pool_ = std::make_unique<ThreadPool>(GetParam().threads);
    return *pool_;
  }
  std::unique_ptr<ThreadPool> pool_;
};

TEST_P(CpuEndToEnd, VectorAdd) {
  Loaded k = compileAndLoad("vadd_block128", "vadd");
  ASSERT_TRUE(k.kernel);
  for (int n : {1, 127, 1000, 4096 + 3}) {
    std::vector<float> x = randomFloats(n), y = randomFloats(n), out = poisoned(n + 8);
    const int blocks = (n + 127) / 128;
    ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{blocks, 1, 1},
                                        {x.data(), y.data(), out.data(), int32_t(n)}, pool())
                    .ok());
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i)
      want[i] = x[i] + y[i];
    // Exact: one float addition per element.
    EXPECT_TRUE(close({out.begin(), out.begin() + n}, want, 0, 0)) << "n = " << n;
    for (int i = n; i < n + 8; ++i)
      EXPECT_TRUE(std::isnan(out[i])) << "wrote past the end at " << i;
  }
}

TEST_P(CpuEndToEnd, FusedSoftmax) {
  Loaded k = compileAndLoad("softmax_block1024", "softmax_kernel");
  ASSERT_TRUE(k.kernel);
  const int rows = 37, cols = 1008, stride = 1024; // cols < BLOCK_SIZE: the mask matters
  std::vector<float> in = randomFloats(rows * stride, -4, 4), out = poisoned(rows * stride);
  ASSERT_TRUE(tessel::runtime::Launch(
                  *k.kernel, Grid{rows, 1, 1},
                  {out.data(), in.data(), int32_t(stride), int32_t(stride), int32_t(cols)},
                  pool())
                  .ok());
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c)
      m = std::max<double>(m, in[r * stride + c]);
    for (int c = 0; c < cols; ++c)
      s += std::exp(double(in[r * stride + c]) - m);
    std::vector<float> got(out.begin() + r * stride, out.begin() + r * stride + cols), want;
    for (int c = 0; c < cols; ++c)
      want.push_back(float(std::exp(double(in[r * stride + c]) - m) / s));
    // float exp and a float sum of ~1000 terms: a few ulps of relative error.
    EXPECT_TRUE(close(got, want, 1e-7f, 1e-4f)) << "row " << r;
    EXPECT_TRUE(std::isnan(out[r * stride + cols])) << "wrote past n_cols in row " << r;
  }
}

/// One matmul kernel run: C = A(MxK) * B(KxN) in element type Elem with f32 accumulation,
/// all row-major and contiguous; the kernel takes (a, b, c, M, N, K, lda, ldb, ldc).
struct MatmulCase {
  std::string dump, entry;
  int M, N, K;
  Grid grid;
  float atol, rtol;
};

/// Runs `kernel` on one MatmulCase's sizes (the case's dump and entry are not looked at).
template <typename Elem>
void runMatmulOn(const Kernel &kernel, ThreadPool &pool, const MatmulCase &mc,
                 float (*load)(Elem), Elem (*store)(float)) {
  const int M = mc.M, N = mc.N, K = mc.K;
  std::vector<float> af = randomFloats(M * K), bf = randomFloats(K * N);
  std::vector<Elem> a(M * K), b(K * N), c(M * N, store(std::numeric_limits<float>::quiet_NaN()));
  for (int i = 0; i < M * K; ++i)
    af[i] = load(a[i] = store(af[i]));
  for (int i = 0; i < K * N; ++i)
    bf[i] = load(b[i] = store(bf[i]));
  ASSERT_TRUE(tessel::runtime::Launch(kernel, mc.grid,
                                      {a.data(), b.data(), c.data(), int32_t(M), int32_t(N),
                                       int32_t(K), int32_t(K), int32_t(N), int32_t(N)},
                                      pool)
                  .ok());
  std::vector<float> got(M * N), want(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int l = 0; l < K; ++l)
        sum += double(af[i * K + l]) * bf[l * N + j];
      want[i * N + j] = load(store(float(sum)));
      got[i * N + j] = load(c[i * N + j]);
    }
  EXPECT_TRUE(close(got, want, mc.atol, mc.rtol))
      << mc.dump << " M=" << M << " N=" << N << " K=" << K;
}

template <typename Elem>
void runMatmul(ThreadPool &pool, const MatmulCase &mc, float (*load)(Elem),
               Elem (*store)(float)) {
  Loaded k = compileAndLoad(mc.dump, mc.entry);
  ASSERT_TRUE(k.kernel);
  runMatmulOn<Elem>(*k.kernel, pool, mc, load, store);
}

float identity(float x) { return x; }

TEST_P(CpuEndToEnd, MatmulF16WithF32Accumulation) {
  // Triton's sample (128x128x32 blocks); sizes are multiples of 16 (the dump's divisibility)
  // but not of the blocks. f32 accumulation of 80 products, then one rounding to f16
  // (2^-11 relative).
  runMatmul<uint16_t>(pool(),
                      {"matmul_128x128x32", "matmul_kernel_base", 144, 272, 80,
                       Grid{2 * 3, 1, 1}, 2e-3f, 2e-3f},
                      fromHalf, toHalf);
}

TEST_P(CpuEndToEnd, MatmulF32) {
  // f32 products accumulated in f32 over K = 80 (the CPU computes full f32, not tf32).
  runMatmul<float>(pool(),
                   {"matmul_f32_64x64x32", "matmul_kernel", 112, 144, 80, Grid{2 * 3, 1, 1},
                    1e-4f, 1e-4f},
                   identity, identity);
}

TEST_P(CpuEndToEnd, MatmulBF16WithF32Accumulation) {
  // One final rounding to bf16: 2^-8 relative.
  runMatmul<uint16_t>(pool(),
                      {"matmul_bf16_64x64x32", "matmul_kernel", 112, 144, 80,
                       Grid{2 * 3, 1, 1}, 1e-2f, 8e-3f},
                      fromBf16, toBf16);
}

TEST_P(CpuEndToEnd, WrappedRowsAndColumnsMatmul) {
  // Rows and columns taken modulo M and N ((pid * BLOCK + arange) % M, Triton's tutorial
  // form), plain and with triton.ops.matmul's hints: every M from 1 to 3 blocks (a block of
  // 32 rows wraps around up to 32 times), then N and K likewise. A and B are exactly M x K
  // and K x N: a wrapped block that left them would read what is not A or B. f16 inputs, f32
  // accumulation, one rounding to f16.
  for (const char *dump : {"wrapped_matmul_plain_32x32x16", "wrapped_matmul_hinted_32x32x16"}) {
    Loaded k = compileAndLoad(dump, "wrapped_matmul");
    ASSERT_TRUE(k.kernel);
    auto run = [&](int m, int n, int kk) {
      runMatmulOn<uint16_t>(*k.kernel, pool(),
                            {dump, "", m, n, kk, Grid{(m + 31) / 32, (n + 31) / 32, 1}, 2e-3f,
                             2e-3f},
                            fromHalf, toHalf);
    };
    for (int m = 1; m <= 96; ++m)
      run(m, 23, 37);
    for (int n = 1; n <= 96; ++n)
      run(15, n, 37);
    for (int kk = 1; kk <= 48; ++kk)
      run(15, 23, kk);
  }
}

TEST_P(CpuEndToEnd, EarlyReturnLeavesOddProgramsUnwritten) {
  // `if SKIP_ODD: if pid % 2 == 1: return`: Triton prints a cf.cond_br to a tt.return.
  Loaded k = compileAndLoad("skip_odd_programs_block128", "skip_odd_programs");
  ASSERT_TRUE(k.kernel);
  const int n = 1000;
  std::vector<float> x = randomFloats(n), out = poisoned(n);
  ASSERT_TRUE(
      tessel::runtime::Launch(*k.kernel, Grid{8, 1, 1}, {x.data(), out.data(), int32_t(n)}, pool())
          .ok());
  for (int i = 0; i < n; ++i) {
    if ((i / 128) % 2)
      EXPECT_TRUE(std::isnan(out[i])) << "an odd program wrote element " << i;
    else
      EXPECT_EQ(out[i], 2 * x[i]) << "element " << i;
  }
}

TEST_P(CpuEndToEnd, BlockPointerMatmul) {
  // tt.make_tensor_ptr / tt.advance with boundary checks (hand-written TTIR in Triton's
  // form); sizes not multiples of the 64x64x32 blocks, so the checks matter.
  runMatmul<uint16_t>(pool(),
                      {"compiler/pipeline/test/block_pointer_matmul.mlir", "block_matmul", 100,
                       90, 70, Grid{2, 2, 1}, 2e-3f, 2e-3f},
                      fromHalf, toHalf);
}

TEST_P(CpuEndToEnd, LayerNormForward) {
  Loaded k = compileAndLoad("layer_norm_block256", "layer_norm_fwd");
  ASSERT_TRUE(k.kernel);
  const int rows = 19, n = 1000, stride = 1008;
  std::vector<float> x = randomFloats(rows * stride, -3, 3), w = randomFloats(n),
                     bias = randomFloats(n), y = poisoned(rows * stride), mean = poisoned(rows),
                     rstd = poisoned(rows);
  const float eps = 1e-5f;
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{rows, 1, 1},
                                      {x.data(), y.data(), w.data(), bias.data(), mean.data(),
                                       rstd.data(), int32_t(stride), int32_t(n), eps},
                                      pool())
                  .ok());
  for (int r = 0; r < rows; ++r) {
    double m = 0, v = 0;
    for (int c = 0; c < n; ++c)
      m += x[r * stride + c];
    m /= n;
    for (int c = 0; c < n; ++c)
      v += (x[r * stride + c] - m) * (x[r * stride + c] - m);
    v /= n;
    double rs = 1 / std::sqrt(v + eps);
    EXPECT_TRUE(close({mean[r]}, {float(m)}, 1e-5f, 1e-4f)) << "mean of row " << r;
    EXPECT_TRUE(close({rstd[r]}, {float(rs)}, 1e-5f, 1e-4f)) << "rstd of row " << r;
    std::vector<float> got(y.begin() + r * stride, y.begin() + r * stride + n), want;
    for (int c = 0; c < n; ++c)
      want.push_back(float((x[r * stride + c] - m) * rs * w[c] + bias[c]));
    // Float sums of 1000 terms in blocks of 256.
    EXPECT_TRUE(close(got, want, 1e-4f, 1e-4f)) << "row " << r;
  }
}

TEST_P(CpuEndToEnd, RowArgmaxMaxSum) {
  Loaded k = compileAndLoad("row_argmax_block512", "row_argmax");
  ASSERT_TRUE(k.kernel);
  const int rows = 23, n = 300, stride = 304;
  std::vector<float> x = randomFloats(rows * stride), mx = poisoned(rows), sum = poisoned(rows);
  // Even rows hold only four distinct values: the maximum occurs many times and the first
  // index must win (the reduction runs lane by lane, not in order).
  for (int r = 0; r < rows; r += 2)
    for (int c = 0; c < stride; ++c)
      x[r * stride + c] = std::floor(x[r * stride + c] * 2) / 2;
  std::vector<int32_t> idx(rows, -7);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{rows, 1, 1},
                                      {x.data(), idx.data(), mx.data(), sum.data(), int32_t(n),
                                       int32_t(stride)},
                                      pool())
                  .ok());
  for (int r = 0; r < rows; ++r) {
    int best = 0;
    double s = 0;
    for (int c = 0; c < n; ++c) {
      if (x[r * stride + c] > x[r * stride + best])
        best = c;
      s += x[r * stride + c];
    }
    EXPECT_EQ(idx[r], best) << "row " << r;
    EXPECT_EQ(mx[r], x[r * stride + best]) << "row " << r;
    EXPECT_TRUE(close({sum[r]}, {float(s)}, 1e-4f, 1e-5f)) << "row " << r;
  }
}

TEST_P(CpuEndToEnd, RowCumsum) {
  Loaded k = compileAndLoad("row_cumsum_block512", "row_cumsum");
  ASSERT_TRUE(k.kernel);
  const int rows = 9, n = 300, stride = 304;
  std::vector<float> x = randomFloats(rows * stride), out = poisoned(rows * stride);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{rows, 1, 1},
                                      {x.data(), out.data(), int32_t(n), int32_t(stride)},
                                      pool())
                  .ok());
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    std::vector<float> want;
    for (int c = 0; c < n; ++c)
      want.push_back(float(s += x[r * stride + c]));
    std::vector<float> got(out.begin() + r * stride, out.begin() + r * stride + n);
    // A sequential float sum of up to 300 terms in [-1, 1].
    EXPECT_TRUE(close(got, want, 1e-4f, 1e-5f)) << "row " << r;
    EXPECT_TRUE(std::isnan(out[r * stride + n]));
  }
}

TEST_P(CpuEndToEnd, AtomicHistogram) {
  Loaded k = compileAndLoad("atomic_histogram_block128", "atomic_histogram");
  ASSERT_TRUE(k.kernel);
  const int n = 1000, bins = 16;
  std::uniform_int_distribution<int32_t> dist(0, bins - 1);
  std::vector<int32_t> x(n), hist(bins, 0), want(bins, 0);
  for (int32_t &v : x) {
    v = dist(rng());
    ++want[v];
  }
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{(n + 127) / 128, 1, 1},
                                      {x.data(), hist.data(), int32_t(n)}, pool())
                  .ok());
  EXPECT_EQ(hist, want);
}

TEST_P(CpuEndToEnd, NoinlineCall) {
  Loaded k = compileAndLoad("noinline_axpy_block128", "noinline_axpy");
  ASSERT_TRUE(k.kernel);
  const int n = 999;
  const float alpha = 1.75f;
  std::vector<float> x = randomFloats(n), y = randomFloats(n), out = poisoned(n);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{(n + 127) / 128, 1, 1},
                                      {x.data(), y.data(), out.data(), int32_t(n), alpha},
                                      pool())
                  .ok());
  std::vector<float> want(n);
  // The noinline callee scale_add(x, y, a) = x * a + y, called as scale_add(alpha, 2.0, 0.5).
  const float coef = alpha * 0.5f + 2.0f;
  for (int i = 0; i < n; ++i)
    want[i] = x[i] * coef + y[i];
  EXPECT_TRUE(close(out, want, 1e-6f, 1e-6f));
}

TEST_P(CpuEndToEnd, ColumnSum) {
  Loaded k = compileAndLoad("col_sum_32x64", "col_sum");
  ASSERT_TRUE(k.kernel);
  const int M = 48, N = 300, stride = 304;
  std::vector<float> x = randomFloats(M * stride), out = poisoned(N);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{(N + 63) / 64, 1, 1},
                                      {x.data(), out.data(), int32_t(M), int32_t(N),
                                       int32_t(stride)},
                                      pool())
                  .ok());
  std::vector<float> want(N);
  for (int c = 0; c < N; ++c) {
    double s = 0;
    for (int r = 0; r < M; ++r)
      s += x[r * stride + c];
    want[c] = float(s);
  }
  EXPECT_TRUE(close(out, want, 1e-5f, 1e-5f));
}

/// Flash-attention forward (online softmax) over a [Z, H, S, D] f16 layout; H = 3 and the block
/// sizes are baked into the dump (BLOCK_M = 64, BLOCK_N = 32).
void runAttention(ThreadPool &pool, int headDim, bool causal) {
  std::string name = "attn_fwd_d" + std::to_string(headDim) + (causal ? "_causal" : "_full");
  Loaded k = compileAndLoad(name, "attention");
  ASSERT_TRUE(k.kernel);
  const int Z = 2, H = 3, S = 200, D = headDim; // S is not a multiple of the blocks
  const float scale = 1.0f / std::sqrt(float(D));
  const size_t n = size_t(Z) * H * S * D;
  auto halves = [&](std::vector<float> &f) {
    std::vector<uint16_t> h(f.size());
    for (size_t i = 0; i < f.size(); ++i) {
      h[i] = toHalf(f[i]);
      f[i] = fromHalf(h[i]);
    }
    return h;
  };
  std::vector<float> qf = randomFloats(n), kf = randomFloats(n), vf = randomFloats(n);
  std::vector<uint16_t> q = halves(qf), kk = halves(kf), v = halves(vf), out(n, 0x7e00);
  ASSERT_TRUE(tessel::runtime::Launch(*k.kernel, Grid{(S + 63) / 64, Z * H, 1},
                                      {q.data(), kk.data(), v.data(), out.data(), scale,
                                       int32_t(H * S * D), int32_t(S * D), int32_t(D),
                                       int32_t(S)},
                                      pool)
                  .ok());
  std::vector<float> got(n), want(n);
  for (int zh = 0; zh < Z * H; ++zh)
    for (int i = 0; i < S; ++i) {
      const float *qi = &qf[(size_t(zh) * S + i) * D];
      int last = causal ? i : S - 1;
      std::vector<double> p(last + 1);
      double m = -INFINITY, sum = 0;
      for (int j = 0; j <= last; ++j) {
        double dot = 0;
        for (int d = 0; d < D; ++d)
          dot += double(qi[d]) * kf[(size_t(zh) * S + j) * D + d];
        p[j] = dot * scale;
        m = std::max(m, p[j]);
      }
      for (int j = 0; j <= last; ++j)
        sum += (p[j] = std::exp(p[j] - m));
      for (int d = 0; d < D; ++d) {
        double o = 0;
        for (int j = 0; j <= last; ++j)
          o += p[j] * vf[(size_t(zh) * S + j) * D + d];
        size_t at = (size_t(zh) * S + i) * D + d;
        want[at] = float(o / sum);
        got[at] = fromHalf(out[at]);
      }
    }
  // The kernel rounds the probabilities to f16 before the second dot and the output to f16.
  EXPECT_TRUE(close(got, want, 4e-3f, 1e-2f)) << name;
}

TEST_P(CpuEndToEnd, FlashAttentionHead64) { runAttention(pool(), 64, false); }
TEST_P(CpuEndToEnd, FlashAttentionHead64Causal) { runAttention(pool(), 64, true); }
TEST_P(CpuEndToEnd, FlashAttentionHead128) { runAttention(pool(), 128, false); }
TEST_P(CpuEndToEnd, FlashAttentionHead128Causal) { runAttention(pool(), 128, true); }

tessel::KnobMap otherKnobs() {
  // Every lowering knob away from its default: another register tile, explicit vectors for
  // elementwise ops, unrolled rows.
  return {{"tile_m", 2}, {"tile_n", 16}, {"tile_k", 2}, {"vector_width", 16}, {"unroll", 2}};
}

INSTANTIATE_TEST_SUITE_P(Configs, CpuEndToEnd,
                         ::testing::Values(Config{1, {}, "OneThread"},
                                           Config{0, {}, "AllThreads"},
                                           Config{0, otherKnobs(), "AllThreadsOtherKnobs"},
                                           // The same kernels from their .py source.
                                           Config{1, {}, "OneThreadFromPython", true},
                                           Config{0, {}, "AllThreadsFromPython", true}),
                         [](const ::testing::TestParamInfo<Config> &info) {
                           return info.param.name;
                         });

} // namespace
