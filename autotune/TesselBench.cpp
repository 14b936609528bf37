//===- TesselBench.cpp - the runner: measures one compiled candidate -*- C++ -*-===//
//
// tessel-bench --kernel NAME --shape DIM=N,... --dtype DT --so PATH --config JSON
//              [--min-time SECONDS] [--seed N] [--flush on|off] [--device cpu|cuda]
//
// --so names the artifact (a shared object for cpu, a GPU artifact for cuda); --device picks
// the runtime device it runs on.
//
// Links the runtime and the zoo only (no compiler), so a candidate can be measured on another
// machine than the one that built it. Validates the candidate against the zoo's C++ reference on
// fresh random inputs with poisoned outputs (that launch is also the warm-up), then times it:
// launches until --min-time of timed runs has passed (at least 5, at most 1000, and no new one
// after max(--min-time, 0.5 s) of wall time), and prints one JSON object. Between
// timed launches (untimed) it writes a buffer twice the size of the largest CPU cache, so every
// launch starts with its data in memory rather than left in cache by the one before (as a
// kernel's inputs are when another kernel produced them in between); --flush off skips it.
// --spec PATH [--spec-source PY] [--target T]: the kernel is the spec's (kernels/spec), read for
// target T (default: the device's kind); its candidates are checked against the outputs of
// --reference-so PATH --reference-config JSON (another configuration of the same kernel) run
// first on the same fresh inputs.
// --baseline on (no --so, --config) times the problem's reference baseline the same way
// instead (one untimed run first): OpenBLAS sgemm for compute-bound kernels, a memcpy of the
// same bytes otherwise.
//   {"status": "ok" | "mismatch", "median_seconds": ..., "min_seconds": ..., "max_seconds": ...,
//    "repetitions": N, "samples_seconds": [every timed run, in order], "error": "...",
//    "artifact_sha256": "...", "environment": {"host_cpu": ..., "host_cores": ..., "gpu": ...}}
// on one line (the last line of its output).
// Exit status 0 when it measured or found a mismatch, 2 on bad arguments or a candidate that
// cannot be loaded.
//
//===----------------------------------------------------------------------===//

#include "autotune/BuildInfo.h"
#include "kernels/spec/Spec.h"
#include "runtime/target/Knobs.h"
#include "autotune/CublasGemm.h"
#include "autotune/OpenBlasCore.h"
#include "kernels/ProblemData.h"
#include "kernels/Zoo.h"
#include "runtime/Device.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"
#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "tools/cli/Cli.h"
#include <tuple>
#include <thread>
#include <vector>

using namespace tessel;

static int fail(const std::string &message) {
  std::fprintf(stderr, "tessel-bench: %s\n", message.c_str());
  return cli::kUsageError;
}

/// How the sweep times: (caches flushed, untimed) runs until `minTime` of timed runs, at least
/// 5 and at most 1000, no new run after max(minTime, 0.5 s) of wall time (flushing costs far
/// more than a small kernel runs, so small kernels get fewer runs); `warmup` untimed runs
/// first.
runtime::TimingOptions timingOptions(int warmup, double minTime, bool flush) {
  runtime::TimingOptions options;
  options.warmupRuns = warmup;
  options.minRuns = 5;
  options.minSeconds = minTime;
  options.maxRuns = 1000;
  options.maxWallSeconds = std::max(minTime, 0.5);
  options.flushCaches = flush;
  return options;
}

/// The JSON's timing fields.
void report(const absl::StatusOr<runtime::Timing> &timing, bool flush, nlohmann::json &out) {
  if (!timing.ok()) {
    out["status"] = "crash";
    out["error"] = std::string(timing.status().message());
    return;
  }
  out["status"] = "ok";
  out["median_seconds"] = timing->medianSeconds;
  out["min_seconds"] = timing->minSeconds;
  out["max_seconds"] = timing->maxSeconds;
  out["repetitions"] = timing->runs;
  // The raw samples (statistics on two sweeps need them): at most timingOptions' 1000 runs.
  out["samples_seconds"] = timing->samples;
  out["cache_flush"] = flush;
}

/// What the measurement depends on: the host CPU and its cores, the device's own entries (GPU
/// name, driver, clocks), and the baseline library's build and the kernels it picked.
nlohmann::json environment(const runtime::Device &device) {
  nlohmann::json env = device.Environment();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      env["host_cpu"] = line.substr(line.find(':') + 2);
      break;
    }
  env["host_cores"] = std::thread::hardware_concurrency();
  env["baseline_library"] = openblas_get_config();
  env["baseline_kernels"] = openblas_get_corename();
  if (const char *core = std::getenv("OPENBLAS_CORETYPE"))
    env["openblas_coretype"] = core;
  return env;
}

/// Times host work `run` (a baseline) like a launch on `device`, whose FlushCaches runs
/// between the timed runs.
absl::StatusOr<runtime::Timing> timeHostWork(runtime::Device &device,
                                             const std::function<void()> &run,
                                             const runtime::TimingOptions &options) {
  return runtime::TimeRuns(
      [&] {
        run();
        return absl::OkStatus();
      },
      options,
      options.flushCaches ? std::function<void()>([&] { (void)device.FlushCaches(); })
                          : std::function<void()>());
}

/// The reference baseline of a problem: OpenBLAS sgemm for compute-bound kernels (the spec's
/// gemm(M, N, K), else the shape's M, N, K, else an n^3 cube of the kernel's FLOPs), a parallel
/// memcpy moving the kernel's bytes (half read, half written) for memory-bound ones.
void timeBaseline(runtime::Device &device, const zoo::Kernel &kernel, const zoo::Shape &shape,
                  const std::string &dtype, const runtime::TimingOptions &options,
                  nlohmann::json &out) {
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  if (kernel.flopBound) {
    int64_t m, n, k;
    if (kernel.gemmDims) {
      std::tie(m, n, k) = std::tuple_cat(kernel.gemmDims(shape));
    } else if (shape.count("M") && shape.count("N") && shape.count("K")) {
      m = shape.at("M"), n = shape.at("N"), k = shape.at("K");
    } else {
      m = n = k = std::max<int64_t>(1, std::llround(std::cbrt(kernel.flops(shape) / 2)));
    }
    m = std::max<int64_t>(1, m), n = std::max<int64_t>(1, n), k = std::max<int64_t>(1, k);
    std::vector<float> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n));
    for (float &x : a)
      x = d(gen);
    for (float &x : b)
      x = d(gen);
    auto sgemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.f,
                  a.data(), int(k), b.data(), int(n), 0.f, c.data(), int(n));
    };
    report(timeHostWork(device, sgemm, options), options.flushCaches, out);
    out["baseline"] = "openblas_sgemm " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                      std::to_string(k);
    return;
  }
  size_t half = std::max<size_t>(1, size_t(kernel.bytes(shape, dtype) / 2));
  std::vector<char> src(half, 1), dst(half);
  size_t chunk = 1 << 16, chunks = (half + chunk - 1) / chunk;
  runtime::ThreadPool pool(0); // the baseline's own threads: host work, not a launch
  auto copy = [&] {
    pool.ParallelFor(int64_t(chunks), [&](int64_t b, int64_t e) {
      size_t begin = size_t(b) * chunk, end = std::min(half, size_t(e) * chunk);
      std::memcpy(dst.data() + begin, src.data() + begin, end - begin);
    });
  };
  report(timeHostWork(device, copy, options), options.flushCaches, out);
  out["baseline"] = "memcpy " + std::to_string(half) + " bytes";
}

/// `text` as a number of seconds: all of it a finite number in [0, 3600].
bool parseSeconds(const std::string &text, double &out) {
  char *end = nullptr;
  out = text.empty() ? NAN : std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && std::isfinite(out) && out >= 0 && out <= 3600;
}

/// The physical memory of this machine in bytes (0 when unknown).
double physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? double(pages) * double(size) : 0;
}

/// A byte count for messages: "N bytes", or "more than 2^63 bytes" past int64's range (a
/// conversion there would wrap to a negative number).
std::string byteCountText(double bytes) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (std::isnan(bytes) || bytes < 0)
    return "an unknown number of bytes";
  if (bytes >= kTwoTo63)
    return "more than 2^63 bytes";
  return "about " + std::to_string(int64_t(bytes)) + " bytes";
}

int main(int argc, char **argv) {
  autotune::UseOpenBlasAvx512Kernels(argv);
  const std::string usage = "see tessel-bench --help";
  // Every option as text, checked below where its meaning is known (a kernel's dims, a spec).
  static const std::vector<std::pair<const char *, const char *>> kOptions = {
      {"kernel", "The kernel: a zoo kernel, or the --spec's"},
      {"shape", "Its shape: DIM=N,... (each of its dims once)"},
      {"dtype", "Its dtype"},
      {"so", "The candidate's artifact"},
      {"config", "The candidate's configuration (JSON, as the sweep records it)"},
      {"min-time", "Seconds of timed runs (0 to 3600)"},
      {"seed", "The inputs' seed (a non-negative integer; default: drawn)"},
      {"flush", "Flush the caches between runs: on or off"},
      {"baseline", "on: time the kernel's baseline (GEMM, copy), not a candidate"},
      {"device", "cpu, cuda or hip"},
      {"spec", "A kernel spec (TOML) defining --kernel"},
      {"spec-source", "The spec's kernel file, where it is not beside the spec"},
      {"target", "The target the spec's host code is evaluated for (default: the device's)"},
      {"reference-so", "An artifact whose results check the candidate's (with --reference-config)"},
      {"reference-config", "That artifact's configuration (JSON)"}};
  std::map<std::string, std::string> flags = {
      {"min-time", "0.2"}, {"seed", ""}, {"flush", "on"}, {"baseline", "off"}, {"device", "cpu"}};
  cli::Command c("tessel-bench",
                 "Measures one candidate (or the baseline) of a kernel on one shape: fresh "
                 "inputs, outputs poisoned, checked against the reference, then timed; one JSON "
                 "line on stdout.");
  for (const auto &[name, help] : kOptions)
    c.Text(std::string("--") + name, &flags[name], help, "VALUE");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  std::set<std::string> given;
  for (const auto &[name, help] : kOptions)
    if (c.Given(std::string("--") + name))
      given.insert(name);
    else if (flags[name].empty())
      flags.erase(name);
  bool baseline = flags["baseline"] == "on";
  // The baseline measures no artifact: one given beside it would be silently ignored.
  for (const char *candidate : {"so", "config"})
    if (baseline && given.count(candidate))
      return fail(std::string("--baseline on times the reference, not a candidate: give it "
                              "without --") + candidate + "; " + usage);
  // A dimension named twice would silently take its last value.
  {
    std::set<std::string> dims;
    for (size_t start = 0; start <= flags["shape"].size();) {
      size_t comma = flags["shape"].find(',', start);
      std::string item = flags["shape"].substr(start, comma - start);
      std::string dim = item.substr(0, item.find('='));
      if (!dims.insert(dim).second)
        return fail("--shape " + flags["shape"] + " gives " + dim + " twice; give each dimension once");
      if (comma == std::string::npos)
        break;
      start = comma + 1;
    }
  }
  for (const char *required : {"kernel", "shape", "dtype", "so", "config"})
    if (!flags.count(required) && !(baseline && (required == std::string("so") ||
                                                 required == std::string("config"))))
      return fail(std::string("--") + required + " is required");
  if (absl::Status zoo = zoo::ZooStatus(); !zoo.ok())
    return fail("the kernel zoo did not load: " + std::string(zoo.message()));
  if (given.count("spec")) {
    // The target the spec's host code is evaluated for: --target, else the device's kind.
    std::string targetText = given.count("target") ? flags["target"]
                             : flags["device"] == "hip" ? "rocm:gfx942"
                             : flags["device"] == "cuda" ? "cuda:sm_90a"
                                                         : "cpu";
    absl::StatusOr<Target> target = ParseTarget(targetText);
    if (!target.ok())
      return fail("--target: " + std::string(target.status().message()));
    absl::StatusOr<zoo::Kernel> loaded =
        spec::LoadSpec(flags["spec"], *target, KnobNames(target->kind), nullptr,
                       flags["spec-source"]);
    if (!loaded.ok())
      return fail(std::string(loaded.status().message()));
    if (loaded->name != flags["kernel"])
      return fail("--spec " + flags["spec"] + " defines kernel '" + loaded->name + "', not '" +
                  flags["kernel"] + "'");
    if (absl::Status s = zoo::AddSpecKernel(*std::move(loaded)); !s.ok())
      return fail(std::string(s.message()));
  } else {
    for (const char *specOnly : {"spec-source", "target", "reference-so", "reference-config"})
      if (given.count(specOnly))
        return fail(std::string("--") + specOnly + " goes with --spec; " + usage);
  }
  if (given.count("reference-so") != given.count("reference-config"))
    return fail("--reference-so and --reference-config go together; " + usage);
  const zoo::Kernel *kernel = zoo::Find(flags["kernel"]);
  if (!kernel)
    return fail("no zoo kernel named '" + flags["kernel"] + "' (a spec's kernel needs --spec)");
  absl::StatusOr<zoo::Shape> shape = zoo::ParseShape(*kernel, flags["shape"]);
  if (!shape.ok())
    return fail(std::string(shape.status().message()));
  double minTime = 0;
  if (!parseSeconds(flags["min-time"], minTime))
    return fail("--min-time takes seconds between 0 and 3600, not '" + flags["min-time"] + "'");
  if (flags["flush"] != "on" && flags["flush"] != "off")
    return fail("--flush takes on or off");
  if (flags["baseline"] != "on" && flags["baseline"] != "off")
    return fail("--baseline takes on or off");
  bool flush = flags["flush"] == "on";
  absl::StatusOr<std::unique_ptr<runtime::Device>> device =
      runtime::Device::Create(flags["device"]);
  if (!device.ok())
    return fail(std::string(device.status().message()));
  // What the kernel is tuned in on this kind of device: its dtypes and its space.
  // The device's kind names its target kind ("hip" is rocm).
  absl::StatusOr<TargetKind> targetKind = ParseTargetKind((*device)->kind());
  if (!targetKind.ok())
    return fail(std::string(targetKind.status().message()));
  const zoo::TargetSpec spec = kernel->For(*targetKind);
  const std::string dtype = flags["dtype"];
  if (std::find(spec.dtypes.begin(), spec.dtypes.end(), dtype) == spec.dtypes.end()) {
    std::string dtypes;
    for (const std::string &d : spec.dtypes)
      dtypes += (dtypes.empty() ? "" : ", ") + d;
    return fail("--dtype '" + dtype + "' is not one " + kernel->name + " runs in on " +
                (*device)->kind() + " (" + (dtypes.empty() ? "none" : dtypes) + ")");
  }
  // Problems that cannot fit are refused before allocating (the buffers, the reference's copy).
  double bytes = kernel->bytes(*shape, dtype), memory = physicalMemoryBytes();
  if (!std::isfinite(bytes) || bytes < 0 || (memory > 0 && 2 * bytes > memory))
    return fail("shape " + flags["shape"] + " needs " + byteCountText(2 * bytes) +
                " with its reference; this machine has " + byteCountText(memory));
  nlohmann::json out;
  out["device"] = (*device)->name();
  out["environment"] = environment(**device);
  if (baseline && kernel->noBaseline)
    return fail(kernel->name + "'s spec has baseline = \"none\"");
  if (baseline && (*device)->kind() != "cpu") {
    // A GPU's memory-bound baseline: a device-to-device copy of the kernel's bytes (half read,
    // half written), timed like a candidate.
    if (kernel->flopBound) {
      // cuBLAS for a GEMM (C = A B of the problem's M, N, K and dtype, f32 accumulation).
      if (!kernel->gemmDims && (!shape->count("M") || !shape->count("N") || !shape->count("K")))
        return fail("no GPU baseline for " + kernel->name +
                    ": its spec's baseline names no GEMM (baseline = \"gemm(M, N, K)\")");
      if ((*device)->kind() != "cuda")
        return fail("no " + (*device)->kind() + " baseline for " + kernel->name +
                    " in tessel-bench: it times cuBLAS on cuda devices only (rocBLAS is not "
                    "wired in yet)");
      absl::StatusOr<std::unique_ptr<autotune::CublasGemm>> gemm = autotune::CublasGemm::Open();
      if (!gemm.ok())
        return fail(std::string(gemm.status().message()));
      int64_t m, n, k;
      if (kernel->gemmDims)
        std::tie(m, n, k) = std::tuple_cat(kernel->gemmDims(*shape));
      else
        m = shape->at("M"), n = shape->at("N"), k = shape->at("K");
      if (m <= 0 || n <= 0 || k <= 0)
        return fail("the baseline GEMM of " + kernel->name + " at " + flags["shape"] +
                    " is empty or did not evaluate");
      size_t bytes = zoo::elementBytes(dtype);
      auto a = (*device)->Allocate(size_t(m * k) * bytes);
      auto b = (*device)->Allocate(size_t(k * n) * bytes);
      auto c = (*device)->Allocate(size_t(m * n) * bytes);
      for (auto *buffer : {&a, &b, &c})
        if (!buffer->ok())
          return fail(std::string(buffer->status().message()));
      std::mt19937_64 gen(1);
      for (auto [buffer, count] : {std::pair{&a, m * k}, std::pair{&b, k * n}}) {
        zoo::TypedBuffer host(dtype, size_t(count));
        zoo::fillRandom(host, gen);
        if (absl::Status s = (**buffer)->CopyFromHost(host.data(), host.bytes.size()); !s.ok())
          return fail(std::string(s.message()));
      }
      // f32 as tf32 on tensor cores: tl.dot allows it (its default precision), and so does the
      // baseline a kernel is measured against.
      bool tf32 = dtype == "f32";
      auto run = [&] {
        return (*gemm)->Run(dtype, tf32, m, n, k, (*a)->data(), (*b)->data(), (*c)->data());
      };
      if (absl::Status s = run(); !s.ok())
        return fail(std::string(s.message()));
      report(runtime::TimeOnDevice(**device, run, timingOptions(1, minTime, flush)), flush, out);
      out["baseline"] = "cublas_gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                        std::to_string(k) + " " + dtype + (tf32 ? " (tf32)" : "");
      out["environment"]["baseline_library"] = (*gemm)->library();
      std::printf("%s\n", out.dump().c_str());
      return 0;
    }
    size_t half = std::max<size_t>(1, size_t(kernel->bytes(*shape, flags["dtype"]) / 2));
    auto src = (*device)->Allocate(half), dst = (*device)->Allocate(half);
    if (!src.ok() || !dst.ok())
      return fail(std::string((src.ok() ? dst.status() : src.status()).message()));
    report(runtime::TimeOnDevice(**device, [&] { return (*dst)->CopyFrom(**src, half); },
                                 timingOptions(1, minTime, flush)),
           flush, out);
    out["baseline"] = "device copy " + std::to_string(half) + " bytes";
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  if (baseline) {
    // One untimed run first, as the candidate's validation launch warms the candidate.
    timeBaseline(**device, *kernel, *shape, flags["dtype"], timingOptions(1, minTime, flush),
                 out);
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }

  absl::StatusOr<autotune::Point> parsed = autotune::ParsePoint(flags["config"]);
  if (!parsed.ok())
    return fail("--config: " + std::string(parsed.status().message()));
  autotune::Point point = *parsed;
  // Knobs the kernel's space does not vary (a sweep's --where may add one of the compiler's)
  // went into the artifact; the rest must be a point of the space.
  autotune::Space space = spec.space;
  for (const auto &[name, value] : point)
    if (name.rfind("knob.", 0) == 0 && !space.Values(name))
      space.params.push_back({name, {value}});
  if (std::string why = space.Validate(point); !why.empty())
    return fail("--config " + flags["config"] + " is not a configuration of " + kernel->name +
                ": " + why);
  uint64_t seed = std::random_device{}();
  if (!flags["seed"].empty()) {
    const std::string &text = flags["seed"];
    char *end = nullptr;
    errno = 0;
    seed = std::strtoull(text.c_str(), &end, 10);
    if (text[0] == '-' || *end != '\0' || errno == ERANGE)
      return fail("--seed takes a non-negative integer, not '" + text + "'");
  }

  // Read once: the bytes hashed into the record are the bytes loaded.
  absl::StatusOr<std::string> artifactBytes = runtime::ReadRegularFile(flags["so"]);
  if (!artifactBytes.ok())
    return fail(std::string(artifactBytes.status().message()));
  out["artifact_sha256"] = runtime::Sha256Hex(*artifactBytes);
  absl::StatusOr<std::unique_ptr<runtime::Executable>> module =
      (*device)->LoadBytes(*artifactBytes, flags["so"]);
  if (!module.ok())
    return fail(std::string(module.status().message()));
  absl::StatusOr<runtime::Kernel> k = (*module)->GetKernel(kernel->entry);
  if (!k.ok())
    return fail(std::string(k.status().message()));
  // The artifact must take the problem's arguments: a kernel compiled for another dtype would
  // read or write buffers of the wrong size.
  std::string signature;
  for (const runtime::ArgType &t : k->signature())
    signature += (signature.empty() ? "" : ",") + t.str();
  const std::string expected = zoo::RuntimeSignature(kernel->signature(dtype));
  if (signature != expected)
    return fail(flags["so"] + ": the kernel's signature is " + signature + ", but " +
                kernel->name + " in " + dtype + " passes " + expected);
  // The artifact must be the configuration it is measured as: its recorded constexprs (block
  // sizes, shape-derived values) and knobs are those of --config at --shape.
  if (std::string why = autotune::BuildInfoMismatch((*module)->buildInfo(), *kernel, point, *shape);
      !why.empty())
    return fail(flags["so"] + ": " + why);

  std::unique_ptr<zoo::Problem> problem;
  try {
    absl::StatusOr<std::unique_ptr<zoo::Problem>> made = kernel->makeProblem(*shape, dtype, seed);
    if (!made.ok())
      return fail(std::string(made.status().message()));
    problem = *std::move(made);
  } catch (const std::bad_alloc &) {
    return fail("cannot allocate the buffers of shape " + flags["shape"]);
  }
  // A spec kernel's check: the reference configuration's outputs on the same inputs first.
  std::unique_ptr<runtime::Executable> referenceModule;
  if (problem->NeedsReference()) {
    if (!given.count("reference-so"))
      return fail(kernel->name + " is checked against a reference configuration: give "
                                 "--reference-so and --reference-config");
    absl::StatusOr<autotune::Point> refPoint = autotune::ParsePoint(flags["reference-config"]);
    if (!refPoint.ok())
      return fail("--reference-config: " + std::string(refPoint.status().message()));
    absl::StatusOr<std::string> refBytes = runtime::ReadRegularFile(flags["reference-so"]);
    if (!refBytes.ok())
      return fail(std::string(refBytes.status().message()));
    absl::StatusOr<std::unique_ptr<runtime::Executable>> ref =
        (*device)->LoadBytes(*refBytes, flags["reference-so"]);
    if (!ref.ok())
      return fail(std::string(ref.status().message()));
    referenceModule = *std::move(ref);
    absl::StatusOr<runtime::Kernel> refKernel = referenceModule->GetKernel(kernel->entry);
    if (!refKernel.ok())
      return fail(std::string(refKernel.status().message()));
    if (std::string why = autotune::BuildInfoMismatch(referenceModule->buildInfo(), *kernel,
                                                      *refPoint, *shape);
        !why.empty())
      return fail(flags["reference-so"] + ": " + why);
    if (absl::Status s = problem->RunReference(**device, *refKernel, *refPoint); !s.ok())
      return fail("the reference configuration " + flags["reference-config"] + ": " +
                  std::string(s.message()));
  }
  if (absl::Status check = problem->RunAndCheck(**device, *k, point); !check.ok()) {
    // A launch the runtime refuses (wrong arguments) is not a wrong result.
    if (!absl::IsDataLoss(check))
      return fail(std::string(check.message()));
    out["status"] = "mismatch";
    out["error"] = std::string(check.message());
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  absl::StatusOr<std::vector<runtime::Arg>> args = problem->DeviceArgs();
  if (!args.ok())
    return fail(std::string(args.status().message()));
  // The validation launch above was the warm-up.
  absl::StatusOr<runtime::Grid> grid = problem->GridFor(point);
  if (!grid.ok())
    return fail(std::string(grid.status().message()));
  report(runtime::TimeLaunches(**device, *k, *grid, *args,
                               timingOptions(0, minTime, flush)),
         flush, out);
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
