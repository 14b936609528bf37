//===- cpu_kernels_benchmark.cc - compiled kernels vs C++ baselines -*- C++ -*-===//
//
// Times Triton-printed kernels compiled by tessel for this CPU against straightforward C++
// implementations of the same computation, in the same run and on the same data:
//
//   bazel run //benchmarks:cpu_kernels_benchmark
//
// Each pair reports time per call; compare BM_Tessel* with the matching BM_Baseline*.
//
//===----------------------------------------------------------------------===//

#include "benchmarks/CompiledKernels.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "benchmark/benchmark.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

namespace {

using namespace tessel::runtime;

const Kernel &kernel(const std::string &dump, const std::string &entry,
                     const tessel::KnobMap &knobs = {}) {
  return tessel::bench::CompiledKernel(
      "compiler/dialect/triton/test/triton_printed/" + dump + ".ttir", entry, knobs);
}

std::vector<float> randomFloats(size_t n) {
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

ThreadPool &pool() {
  static ThreadPool p(0);
  return p;
}

// ---- vector add: 1M floats -------------------------------------------------------------

constexpr int kVaddN = 1 << 20;

/// Argument: the elementwise vector width (0 = LLVM's loop vectorizer).
void BM_TesselVectorAdd(benchmark::State &state) {
  tessel::KnobMap knobs{{"vector_width", state.range(0)}};
  const Kernel &k = kernel("vadd_block128", "vadd", knobs);
  std::vector<float> x = randomFloats(kVaddN), y = randomFloats(kVaddN), out(kVaddN);
  for (auto _ : state) {
    auto s = tessel::bench::CpuDevice().Launch(k, Grid{kVaddN / 128, 1, 1}, {x.data(), y.data(), out.data(), kVaddN});
    benchmark::DoNotOptimize(out.data());
    if (!s.ok())
      state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetBytesProcessed(state.iterations() * int64_t(kVaddN) * 12);
}
BENCHMARK(BM_TesselVectorAdd)->UseRealTime()->ArgName("width")->Arg(0)->Arg(16)->Arg(64);

void BM_BaselineVectorAdd(benchmark::State &state) {
  std::vector<float> x = randomFloats(kVaddN), y = randomFloats(kVaddN), out(kVaddN);
  for (auto _ : state) {
    pool().ParallelFor(kVaddN / 128, [&](int64_t b, int64_t e) {
      for (int64_t i = b * 128; i < e * 128; ++i)
        out[i] = x[i] + y[i];
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * int64_t(kVaddN) * 12);
}
BENCHMARK(BM_BaselineVectorAdd)->UseRealTime();

// ---- softmax: 512 rows of 1000 ---------------------------------------------------------

constexpr int kRows = 512, kCols = 1000, kStride = 1024;

void BM_TesselSoftmax(benchmark::State &state) {
  tessel::KnobMap knobs{{"vector_width", state.range(0)}};
  const Kernel &k = kernel("softmax_block1024", "softmax_kernel", knobs);
  std::vector<float> in = randomFloats(kRows * kStride), out(kRows * kStride);
  for (auto _ : state) {
    auto s = tessel::bench::CpuDevice().Launch(k, Grid{kRows, 1, 1}, {out.data(), in.data(), kStride, kStride, kCols});
    benchmark::DoNotOptimize(out.data());
    if (!s.ok())
      state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetBytesProcessed(state.iterations() * int64_t(kRows) * kCols * 8);
}
BENCHMARK(BM_TesselSoftmax)->UseRealTime()->ArgName("width")->Arg(0)->Arg(16)->Arg(64);

void BM_BaselineSoftmax(benchmark::State &state) {
  std::vector<float> in = randomFloats(kRows * kStride), out(kRows * kStride);
  for (auto _ : state) {
    pool().ParallelFor(kRows, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const float *x = &in[r * kStride];
        float *y = &out[r * kStride];
        float m = -INFINITY, s = 0;
        for (int c = 0; c < kCols; ++c)
          m = std::max(m, x[c]);
        for (int c = 0; c < kCols; ++c)
          s += (y[c] = std::exp(x[c] - m));
        for (int c = 0; c < kCols; ++c)
          y[c] /= s;
      }
    });
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * int64_t(kRows) * kCols * 8);
}
BENCHMARK(BM_BaselineSoftmax)->UseRealTime();

// ---- matmul: f16 inputs, f32 accumulation, 512 x 512 x 512 -----------------------------

constexpr int kM = 512, kN = 512, kK = 512;

uint16_t toHalf(float f) { // truncation is enough for benchmark data
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int e = int((x >> 23) & 0xff) - 127 + 15;
  if (e <= 0)
    return sign;
  return sign | (e << 10) | ((x >> 13) & 0x3ff);
}

float fromHalf(uint16_t h) {
  uint32_t e = (h >> 10) & 0x1f, x = uint32_t(h & 0x8000) << 16;
  if (e)
    x |= (e - 15 + 127) << 23 | uint32_t(h & 0x3ff) << 13;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// Arguments: the matmul register tile (rows, columns, depth); 0 rows = plain loops.
void BM_TesselMatmulF16(benchmark::State &state) {
  tessel::KnobMap knobs{
      {"tile_m", state.range(0)}, {"tile_n", state.range(1)}, {"tile_k", state.range(2)}};
  const Kernel &k = kernel("matmul_128x128x32", "matmul_kernel_base", knobs);
  std::vector<uint16_t> a(kM * kK), b(kK * kN), c(kM * kN);
  std::vector<float> af = randomFloats(kM * kK), bf = randomFloats(kK * kN);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = toHalf(af[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = toHalf(bf[i]);
  const int programs = (kM / 128) * (kN / 128);
  for (auto _ : state) {
    auto s = tessel::bench::CpuDevice().Launch(k, Grid{programs, 1, 1}, {a.data(), b.data(), c.data(), kM, kN, kK, kK, kN, kN});
    benchmark::DoNotOptimize(c.data());
    if (!s.ok())
      state.SkipWithError(std::string(s.message()).c_str());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * kM * kN * kK * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TesselMatmulF16)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->ArgNames({"tileM", "tileN", "tileK"})
    ->Args({0, 0, 0})
    ->Args({4, 32, 1})
    ->Args({8, 32, 1})
    ->Args({16, 32, 1})
    ->Args({8, 64, 1})
    ->Args({4, 64, 1})
    ->Args({8, 16, 1})
    ->Args({8, 32, 2});

void BM_BaselineMatmulF16(benchmark::State &state) {
  std::vector<uint16_t> a(kM * kK), b(kK * kN), c(kM * kN);
  std::vector<float> af = randomFloats(kM * kK), bf = randomFloats(kK * kN);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = toHalf(af[i]);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = toHalf(bf[i]);
  for (auto _ : state) {
    // Rows in parallel; i-k-j order so the inner loop streams B and C rows.
    pool().ParallelFor(kM, [&](int64_t rb, int64_t re) {
      std::vector<float> acc(kN);
      for (int64_t i = rb; i < re; ++i) {
        std::fill(acc.begin(), acc.end(), 0.f);
        for (int l = 0; l < kK; ++l) {
          float av = fromHalf(a[i * kK + l]);
          const uint16_t *brow = &b[l * kN];
          for (int j = 0; j < kN; ++j)
            acc[j] += av * fromHalf(brow[j]);
        }
        for (int j = 0; j < kN; ++j)
          c[i * kN + j] = toHalf(acc[j]);
      }
    });
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * kM * kN * kK * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BaselineMatmulF16)->UseRealTime()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
