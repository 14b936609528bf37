//===- cpu_roofline_benchmark.cc - tessel against OpenBLAS and memcpy -*- C++ -*-===//
//
// In one run: tessel's f32 matmul (Triton's grouped matmul, 64x64x32 blocks, default CPU
// knobs) against OpenBLAS cblas_sgemm at n = 512, 1024, 2048; tessel's softmax and row sum
// against a plain copy of the same bytes. Counters: GFLOP/s or GB/s, and the ratio to the
// baseline measured in the same process.
//
//   bazel run //benchmarks:cpu_roofline_benchmark
//
// With --tuned=DIR (a sweep's bundle, e.g. from `bazel run //autotune:sweep -- --shapes=large
// --out=DIR/..`), also the tuned f32 matmul at n = 1024, 2048 and the tuned softmax and row sum
// on the zoo's problems, against the same baselines.
//
//===----------------------------------------------------------------------===//

#include "autotune/OpenBlasCore.h"
#include "benchmarks/CompiledKernels.h"
#include "kernels/Zoo.h"
#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/Module.h"

#include "benchmark/benchmark.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>

namespace {

using namespace tessel::runtime;

Device &device() {
  static std::unique_ptr<Device> d = *Device::Create("cpu");
  return *d;
}

const Kernel &kernel(const std::string &path, const std::string &entry) {
  return tessel::bench::CompiledKernel(path, entry);
}

std::vector<float> randomFloats(size_t n) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// Times `fn` the way Google Benchmark does and returns the median seconds of a few runs, so
/// the ratio counter compares like with like.
template <typename Fn>
double secondsOf(Fn &fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The median of 7 runs of `fn` (no warm-up: Google Benchmark's loop ran it just before).
double medianSeconds(const std::function<void()> &fn) {
  tessel::runtime::TimingOptions seven;
  seven.warmupRuns = 0, seven.minRuns = seven.maxRuns = 7, seven.minSeconds = 0;
  return tessel::runtime::TimeRuns(
             [&] {
               fn();
               return absl::OkStatus();
             },
             seven)
      ->medianSeconds;
}

/// Median times of `a` and `b` run alternately (21 each), so that drift on a shared machine
/// affects both alike.
template <typename A, typename B>
std::pair<double, double> interleavedMedians(A a, B b) {
  std::vector<double> ta, tb;
  for (int i = 0; i < 21; ++i) {
    ta.push_back(secondsOf(a));
    tb.push_back(secondsOf(b));
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

// ---- matmul f32 --------------------------------------------------------------------------

const char *kMatmul = "compiler/dialect/triton/test/triton_printed/matmul_f32_64x64x32.ttir";

struct MatmulData {
  int n;
  std::vector<float> a, b, c;
  explicit MatmulData(int n) : n(n), a(randomFloats(size_t(n) * n)), b(randomFloats(size_t(n) * n)), c(size_t(n) * n) {}
};

void tesselMatmul(MatmulData &d) {
  const Kernel &k = kernel(kMatmul, "matmul_kernel");
  int n = d.n;
  auto s = device().Launch(k, Grid{(n / 64) * (n / 64), 1, 1},
                           {d.a.data(), d.b.data(), d.c.data(), n, n, n, n, n, n});
  if (!s.ok())
    std::abort();
}

void blasMatmul(MatmulData &d) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d.n, d.n, d.n, 1.0f, d.a.data(), d.n,
              d.b.data(), d.n, 0.0f, d.c.data(), d.n);
}

void BM_TesselMatmulF32(benchmark::State &state) {
  MatmulData d(state.range(0));
  double flops = 2.0 * d.n * d.n * d.n;
  tesselMatmul(d); // compiles the kernel outside the timed loop
  for (auto _ : state) {
    tesselMatmul(d);
    benchmark::DoNotOptimize(d.c.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  double tessel = medianSeconds([&] { tesselMatmul(d); });
  double blas = medianSeconds([&] { blasMatmul(d); });
  state.counters["vs_openblas"] = blas / tessel;
}
BENCHMARK(BM_TesselMatmulF32)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_OpenBlasSgemm(benchmark::State &state) {
  MatmulData d(state.range(0));
  double flops = 2.0 * d.n * d.n * d.n;
  for (auto _ : state) {
    blasMatmul(d);
    benchmark::DoNotOptimize(d.c.data());
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_OpenBlasSgemm)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime()->Unit(benchmark::kMillisecond);

// ---- softmax and row sum against a copy of the same bytes ---------------------------------

constexpr int kRows = 4096, kCols = 1000, kStride = 1024;

struct RowData {
  std::vector<float> in = randomFloats(size_t(kRows) * kStride), out = std::vector<float>(size_t(kRows) * kStride);
};

void copyRows(RowData &d) {
  device(); // same threads as the kernels: copy rows in parallel chunks
  static ThreadPool pool(0);
  pool.ParallelFor(kRows, [&](int64_t b, int64_t e) {
    std::memcpy(&d.out[b * kStride], &d.in[b * kStride], size_t(e - b) * kStride * sizeof(float));
  });
}

void BM_Copy(benchmark::State &state) {
  RowData d;
  for (auto _ : state) {
    copyRows(d);
    benchmark::DoNotOptimize(d.out.data());
  }
  // Bytes moved: read and written.
  state.counters["GB/s"] = benchmark::Counter(2.0 * kRows * kStride * 4 * state.iterations() / 1e9,
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Copy)->UseRealTime();

void BM_TesselSoftmax(benchmark::State &state) {
  RowData d;
  const Kernel &k = kernel("compiler/dialect/triton/test/triton_printed/softmax_block1024.ttir",
                           "softmax_kernel");
  auto run = [&] {
    if (!device().Launch(k, Grid{kRows, 1, 1}, {d.out.data(), d.in.data(), kStride, kStride, kCols}).ok())
      std::abort();
  };
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(d.out.data());
  }
  double bytes = 2.0 * kRows * kCols * 4; // each element read once and written once
  state.counters["GB/s"] =
      benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  auto [kernelSeconds, copySeconds] = interleavedMedians(run, [&] { copyRows(d); });
  state.counters["vs_copy"] = (bytes / kernelSeconds) / (2.0 * kRows * kStride * 4 / copySeconds);
}
BENCHMARK(BM_TesselSoftmax)->UseRealTime();

void BM_TesselRowSum(benchmark::State &state) {
  RowData d;
  const Kernel &k = kernel("benchmarks/ttir/row_sum_block1024.ttir", "row_sum");
  auto run = [&] {
    if (!device().Launch(k, Grid{kRows, 1, 1}, {d.in.data(), d.out.data(), kStride, kCols}).ok())
      std::abort();
  };
  for (auto _ : state) {
    run();
    benchmark::DoNotOptimize(d.out.data());
  }
  double bytes = double(kRows) * kCols * 4 + kRows * 4; // read once, one float per row written
  state.counters["GB/s"] =
      benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  auto [kernelSeconds, copySeconds] = interleavedMedians(run, [&] { copyRows(d); });
  state.counters["vs_copy"] = (bytes / kernelSeconds) / (2.0 * kRows * kStride * 4 / copySeconds);
}
BENCHMARK(BM_TesselRowSum)->UseRealTime();

// ---- tuned kernels from a sweep's bundle (--tuned=DIR) -------------------------------------

/// The bundle's entry for the zoo kernel `name` at `shape` (f32), run on the zoo's problem
/// (checked against its C++ reference once, then timed) against the same baseline as the
/// fixed-configuration benchmark above: OpenBLAS for matmul, the copy for row kernels.
void registerTuned(const Bundle &bundle, const std::string &name, const tessel::zoo::Shape &shape) {
  const tessel::zoo::Kernel *zk = tessel::zoo::Find(name);
  std::string title = "BM_Tuned_" + name + "/" + tessel::zoo::ShapeText(shape);
  benchmark::RegisterBenchmark(title.c_str(), [&bundle, zk, name, shape](benchmark::State &state) {
    auto choice = bundle.Find(name, shape, "f32");
    if (!choice.ok())
      return state.SkipWithError(std::string(choice.status().message()).c_str());
    auto module = bundle.Load(*choice->entry, device());
    if (!module.ok())
      return state.SkipWithError(std::string(module.status().message()).c_str());
    auto kernel = (*module)->GetKernel(choice->entry->entry);
    if (!kernel.ok())
      return state.SkipWithError(std::string(kernel.status().message()).c_str());
    absl::StatusOr<tessel::autotune::Point> parsed =
        tessel::autotune::ParsePoint(choice->entry->configJson);
    if (!parsed.ok())
      return state.SkipWithError(std::string(parsed.status().message()).c_str());
    const tessel::autotune::Point &config = *parsed;
    absl::StatusOr<std::unique_ptr<tessel::zoo::Problem>> made =
        zk->makeProblem(shape, "f32", std::random_device{}());
    if (!made.ok())
      return state.SkipWithError(std::string(made.status().message()).c_str());
    std::unique_ptr<tessel::zoo::Problem> problem = *std::move(made);
    absl::StatusOr<Grid> gridOr = problem->GridFor(config);
    if (!gridOr.ok())
      return state.SkipWithError(std::string(gridOr.status().message()).c_str());
    Grid grid = *gridOr;
    if (absl::Status check = problem->RunAndCheck(device(), *kernel, config); !check.ok())
      return state.SkipWithError(std::string(check.message()).c_str());
    absl::StatusOr<std::vector<Arg>> deviceArgs = problem->DeviceArgs();
    if (!deviceArgs.ok())
      return state.SkipWithError(std::string(deviceArgs.status().message()).c_str());
    std::vector<Arg> args = *deviceArgs;
    auto run = [&] {
      if (!device().Launch(*kernel, grid, args).ok())
        std::abort();
    };
    for (auto _ : state) {
      run();
      benchmark::DoNotOptimize(args.data());
    }
    state.SetLabel(choice->explanation + " " + choice->entry->configJson);
    if (zk->flopBound) {
      double flops = zk->flops(shape);
      state.counters["GFLOP/s"] =
          benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
      MatmulData d(int(shape.at("M")));
      double tessel = medianSeconds(run);
      double blas = medianSeconds([&] { blasMatmul(d); });
      // OpenBLAS at the same n (the tuned shape is square).
      state.counters["vs_openblas"] = blas / tessel;
    } else {
      double bytes = zk->bytes(shape, "f32");
      state.counters["GB/s"] =
          benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
      RowData d;
      auto [kernelSeconds, copySeconds] = interleavedMedians(run, [&] { copyRows(d); });
      state.counters["vs_copy"] =
          (bytes / kernelSeconds) / (2.0 * kRows * kStride * 4 / copySeconds);
    }
  })->UseRealTime();
}

} // namespace

int main(int argc, char **argv) {
  tessel::autotune::UseOpenBlasAvx512Kernels(argv);
  // --tuned=DIR: also run the entries of the bundle a sweep wrote (sweep --shapes=large).
  std::string tunedDir;
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--tuned=", 0) == 0)
      tunedDir = a.substr(8);
    else
      rest.push_back(argv[i]);
  }
  std::unique_ptr<Bundle> bundle;
  if (!tunedDir.empty()) {
    if (const char *wd = getenv("BUILD_WORKING_DIRECTORY"); wd && tunedDir[0] != '/')
      tunedDir = std::string(wd) + "/" + tunedDir;
    auto opened = Bundle::Open(tunedDir);
    if (!opened.ok()) {
      std::fprintf(stderr, "cpu_roofline_benchmark: %s\n",
                   std::string(opened.status().message()).c_str());
      return 1;
    }
    bundle = std::move(*opened);
    for (int n : {1024, 2048})
      registerTuned(*bundle, "matmul", {{"M", n}, {"N", n}, {"K", n}});
    registerTuned(*bundle, "softmax", {{"rows", kRows}, {"cols", kCols}});
    registerTuned(*bundle, "row_sum", {{"rows", kRows}, {"cols", kCols}});
  }
  int restCount = int(rest.size());
  benchmark::Initialize(&restCount, rest.data());
  if (benchmark::ReportUnrecognizedArguments(restCount, rest.data()))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
