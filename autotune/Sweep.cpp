//===- Sweep.cpp - bazel run //autotune:sweep: tune the zoo, record, bundle -*- C++ -*-===//
//
// sweep [--kernels=a,b] [--shapes=default|large|DIM=N,...;...] [--dtypes=f32,...]
//       [--strategy=exhaustive|random|evolutionary] [--budget=N] [--out=DIR] [--resume]
//       [--shard=I/N] [--timeout=SECONDS] [--min-time=SECONDS]
//
// TESSEL_ZOO_DIR, when set, is read instead of kernels/ for the kernels' sources.
//
// For every kernel x dtype x shape: the configurations the strategy picks (constraints prune
// invalid ones first; --shard keeps every N-th), compiled in parallel (exhaustive / random) or
// one at a time (evolutionary, which needs each result to choose the next), then measured one
// at a time by tessel-bench in a child process with a timeout, nothing else running. Every
// candidate becomes a record in DIR/records.jsonl, appended and flushed at once; --resume skips
// candidates already recorded. At the end: a summary table, DIR/benchmark.json (Google
// Benchmark's format) and DIR/bundle/ with the best entry per kernel, dtype and shape.
//
//===----------------------------------------------------------------------===//

#include "autotune/BundleWriter.h"
#include "autotune/Records.h"
#include "autotune/search/Search.h"
#include "compiler/backend/Registry.h"
#include "compiler/pipeline/Compiler.h"
#include "kernels/Zoo.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "nlohmann/json.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

using namespace tessel;
namespace fs = std::filesystem;

namespace {

const char *kCompilerVersion = "tessel 0.1";

struct Options {
  std::vector<std::string> kernels, dtypes;
  std::string shapes = "default", strategy = "random", out = "sweep-out", seed;
  int budget = 8;
  double timeBudget = 0; ///< seconds; 0: none
  bool resume = false;
  std::string flush = "on"; ///< tessel-bench's cache flush between repetitions
  std::string target = "cpu";
  int shardIndex = 0, shardCount = 1;
  double timeout = 60, minTime = 0.1;
};

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, sep))
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// For each dimension of `kernel`, the values for which its constexprs under `p` (what is
/// compiled into the artifact) stay those of `shape`, all other dimensions as in `shape`: the
/// shapes the artifact computes correctly. Dimensions that change nothing are left out. The
/// values that keep the constexprs are taken to be one interval around `shape`'s (block sizes
/// from next_power_of_2 and fixed dimensions are).
std::map<std::string, std::pair<int64_t, int64_t>>
servedRanges(const zoo::Kernel &kernel, const autotune::Point &p, const zoo::Shape &shape) {
  const std::map<std::string, std::string> compiled = kernel.constexprs(p, shape);
  constexpr int64_t kLimit = int64_t(1) << 40, kNone = std::numeric_limits<int64_t>::max();
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const std::string &dim : kernel.dims) {
    int64_t at = shape.at(dim);
    auto same = [&](int64_t value) {
      zoo::Shape s = shape;
      s[dim] = value;
      return kernel.constexprs(p, s) == compiled;
    };
    // Outward in doubling steps to the first value that differs, then bisect back.
    auto edge = [&](int64_t direction) {
      int64_t good = at;
      for (int64_t step = 1; step <= kLimit; step *= 2) {
        int64_t next = std::max<int64_t>(0, at + direction * step);
        if (next == good)
          return good; // down to 0 and the same all the way
        if (!same(next)) {
          int64_t bad = next;
          while ((bad - good) * direction > 1) {
            int64_t mid = good + (bad - good) / 2;
            (same(mid) ? good : bad) = mid;
          }
          return good;
        }
        good = next;
      }
      return direction > 0 ? kNone : good;
    };
    int64_t lo = edge(-1), hi = edge(1);
    if (lo > 0 || hi != kNone)
      out[dim] = {lo, hi};
  }
  return out;
}

std::string configJson(const autotune::Point &p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[k, v] : p)
    j[k] = v;
  return j.dump();
}

std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string hostName() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

/// A kernel's source as the sweep compiles it, read once at start-up: every candidate and the
/// artifact cache's names (by its checksum) see the same text.
struct KernelSource {
  std::string path, text, digest;
  bool readable = false;
};

/// The source of every zoo kernel by name, each file read once: kernels/..., or the copy in
/// TESSEL_ZOO_DIR (to tune edited copies of the zoo's sources).
std::map<std::string, KernelSource> readSources() {
  std::map<std::string, KernelSource> byPath, byKernel;
  for (const zoo::Kernel &k : zoo::Kernels()) {
    std::string path = k.source;
    if (const char *dir = getenv("TESSEL_ZOO_DIR"); dir && path.rfind("kernels/", 0) == 0)
      path = std::string(dir) + "/" + path.substr(8);
    auto it = byPath.find(path);
    if (it == byPath.end()) {
      KernelSource source;
      source.path = path;
      source.readable = runtime::ReadWholeFile(path, source.text);
      source.digest = source.readable ? runtime::Sha256Hex(source.text) : "unreadable";
      it = byPath.emplace(path, std::move(source)).first;
    }
    byKernel[k.name] = it->second;
  }
  return byKernel;
}

/// Compiles one candidate to `out` (atomically written by the compiler).
absl::Status compileCandidate(const zoo::Kernel &k, const KernelSource &source,
                              const std::string &dtype, const zoo::Shape &shape,
                              const autotune::Point &p, const Target &target,
                              const std::string &out) {
  if (!source.readable)
    return absl::NotFoundError("cannot read " + source.path);
  frontend::KernelSpec spec;
  spec.constexprs = k.constexprs(p, shape);
  spec.signature = frontend::SplitSignature(k.signature(dtype));
  CompileOptions options;
  options.entry = k.entry;
  options.target = target;
  options.outputPath = out;
  for (const auto &[name, value] : p)
    if (name.rfind("knob.", 0) == 0)
      options.knobs[name.substr(5)] = value;
  absl::StatusOr<std::string> so = compilePython(source.text, source.path, spec, options);
  return so.ok() ? absl::OkStatus() : so.status();
}

/// Runs tessel-bench with `args` in a child process (killed after --timeout); fills the
/// record's measurement or failure.
void runBench(std::vector<std::string> args, const Options &opt, autotune::Record &r) {
  int pipefd[2];
  if (pipe(pipefd) != 0) {
    r.status = "crash";
    r.error = "cannot create a pipe";
    return;
  }
  std::string bench = args[0];
  pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    r.status = "crash";
    r.error = std::string("cannot start tessel-bench: ") + strerror(errno);
    return;
  }
  if (pid == 0) {
    // The runner dies with the sweep (killed or interrupted): no orphan keeps measuring.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
      _exit(127);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    close(pipefd[0]);
    close(pipefd[1]);
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(bench.c_str(), argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  std::string output;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.timeout);
  bool timedOut = false;
  while (true) {
    double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timedOut = true;
      kill(pid, SIGKILL);
      break;
    }
    struct pollfd pfd = {pipefd[0], POLLIN, 0};
    int ready = poll(&pfd, 1, int(std::min(left, 1.0) * 1000) + 1);
    if (ready > 0) {
      char buf[4096];
      ssize_t n = read(pipefd[0], buf, sizeof buf);
      if (n <= 0)
        break; // the child closed its end (exited)
      output.append(buf, size_t(n));
    }
  }
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timedOut) {
    r.status = "timeout";
    r.error = "no result within " + std::to_string(int(opt.timeout)) + " s";
    return;
  }
  if (WIFSIGNALED(status)) {
    r.status = "crash";
    r.error = std::string("killed by signal ") + strsignal(WTERMSIG(status));
    return;
  }
  size_t brace = output.rfind('{');
  nlohmann::json j = brace == std::string::npos
                         ? nlohmann::json()
                         : nlohmann::json::parse(output.substr(brace), nullptr, false);
  if (WEXITSTATUS(status) != 0 || j.is_discarded() || !j.is_object()) {
    r.status = "crash";
    // The end of its output says why; keep records readable.
    constexpr size_t kMaxError = 2000;
    if (output.size() > kMaxError)
      output = "..." + output.substr(output.size() - kMaxError);
    r.error = "tessel-bench exited with " + std::to_string(WEXITSTATUS(status)) + ": " + output;
    return;
  }
  r.status = j.value("status", "crash");
  r.error = j.value("error", "");
  r.medianSeconds = j.value("median_seconds", 0.0);
  r.minSeconds = j.value("min_seconds", 0.0);
  r.maxSeconds = j.value("max_seconds", 0.0);
  r.repetitions = j.value("repetitions", int64_t(0));
}

/// Measures one compiled candidate.
void measure(const std::string &bench, const zoo::Kernel &k, const std::string &dtype,
             const zoo::Shape &shape, const autotune::Point &p, const std::string &so,
             const Options &opt, autotune::Record &r) {
  runBench({bench, "--kernel", k.name, "--shape", zoo::ShapeText(shape), "--dtype", dtype,
            "--so", so, "--config", configJson(p), "--min-time", std::to_string(opt.minTime), "--flush", opt.flush},
           opt, r);
  if (r.status == "ok" && r.medianSeconds > 0) {
    r.tflops = k.flops(shape) / r.medianSeconds / 1e12;
    r.gbps = k.bytes(shape, dtype) / r.medianSeconds / 1e9;
  }
}

/// The median seconds of the problem's reference baseline (OpenBLAS sgemm or a memcpy of the
/// same bytes, timed by tessel-bench the same way), or 0 when it could not be measured.
double measureBaseline(const std::string &bench, const zoo::Kernel &k, const std::string &dtype,
                       const zoo::Shape &shape, const Options &opt) {
  autotune::Record r;
  runBench({bench, "--kernel", k.name, "--shape", zoo::ShapeText(shape), "--dtype", dtype,
            "--baseline", "on", "--min-time", std::to_string(opt.minTime), "--flush", opt.flush},
           opt, r);
  return r.status == "ok" ? r.medianSeconds : 0;
}

int usage(const std::string &why) {
  std::fprintf(stderr,
               "sweep: %s\nusage: sweep [--kernels=a,b] [--shapes=default|large|DIM=N,...;...] "
               "[--dtypes=f32,...] [--strategy=exhaustive|random|evolutionary] [--budget=N] "
               "[--time-budget=S] [--seed=N] [--target=cpu[:NAME]] [--out=DIR] [--resume] "
               "[--shard=I/N] [--timeout=S] "
               "[--min-time=S] [--flush=on|off]\n",
               why.c_str());
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    size_t eq = a.find('=');
    std::string key = a.substr(0, eq), value = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (key == "--kernels")
      opt.kernels = split(value, ',');
    else if (key == "--dtypes")
      opt.dtypes = split(value, ',');
    else if (key == "--shapes")
      opt.shapes = value;
    else if (key == "--strategy")
      opt.strategy = value;
    else if (key == "--budget")
      opt.budget = std::atoi(value.c_str());
    else if (key == "--time-budget")
      opt.timeBudget = std::atof(value.c_str());
    else if (key == "--seed")
      opt.seed = value;
    else if (key == "--target")
      opt.target = value;
    else if (key == "--flush" && (value == "on" || value == "off"))
      opt.flush = value;
    else if (key == "--out")
      opt.out = value;
    else if (key == "--resume")
      opt.resume = true;
    else if (key == "--timeout")
      opt.timeout = std::atof(value.c_str());
    else if (key == "--min-time")
      opt.minTime = std::atof(value.c_str());
    else if (key == "--shard") {
      auto shard = autotune::ParseShard(value);
      if (!shard.ok())
        return usage(std::string(shard.status().message()));
      std::tie(opt.shardIndex, opt.shardCount) = *shard;
    } else
      return usage("unknown argument '" + a + "'");
  }
  if (opt.strategy != "exhaustive" && opt.strategy != "random" && opt.strategy != "evolutionary")
    return usage("unknown --strategy '" + opt.strategy + "'");
  if (opt.budget <= 0 || opt.timeout <= 0 || opt.timeBudget < 0)
    return usage("--budget and --timeout must be positive, --time-budget not negative");

  // `bazel run` starts us in the runfiles tree; a relative --out means the user's directory.
  if (const char *wd = getenv("BUILD_WORKING_DIRECTORY"); wd && !opt.out.empty() && opt.out[0] != '/')
    opt.out = std::string(wd) + "/" + opt.out;
  // Where the runner is: next to this binary's runfiles (bazel run) or given by TESSEL_BENCH.
  std::string bench = getenv("TESSEL_BENCH") ? getenv("TESSEL_BENCH") : "autotune/tessel-bench";
  if (access(bench.c_str(), X_OK) != 0)
    return usage("cannot find tessel-bench at " + bench + " (set TESSEL_BENCH)");

  std::vector<const zoo::Kernel *> kernels;
  if (opt.kernels.empty())
    for (const zoo::Kernel &k : zoo::Kernels())
      kernels.push_back(&k);
  for (const std::string &name : opt.kernels) {
    const zoo::Kernel *k = zoo::Find(name);
    if (!k)
      return usage("no zoo kernel named '" + name + "'");
    kernels.push_back(k);
  }

  fs::create_directories(opt.out + "/artifacts-cache");
  std::string recordsPath = opt.out + "/records.jsonl";
  if (!opt.resume && fs::exists(recordsPath))
    fs::remove(recordsPath);
  // What earlier runs measured (--resume): skipped, and their costs feed the search.
  std::map<std::string, double> done;
  if (fs::exists(recordsPath)) {
    std::string warning;
    auto earlier = autotune::ReadRecords(recordsPath, &warning);
    if (!earlier.ok())
      return usage(std::string(earlier.status().message()));
    if (!warning.empty())
      std::fprintf(stderr, "sweep: %s\n", warning.c_str());
    for (const autotune::Record &r : *earlier)
      done[r.key()] = r.status == "ok" ? r.medianSeconds : std::numeric_limits<double>::infinity();
  }
  auto writer = autotune::RecordWriter::Open(recordsPath);
  if (!writer.ok())
    return usage(std::string(writer.status().message()));
  // What the candidates are built for: this machine's CPU and features (the bundle names them
  // all, so it is refused on a machine that lacks any), or --target=cpu:NAME, LLVM's CPU and its
  // features. Candidates are measured here either way.
  Target host = Target::Host();
  absl::StatusOr<Target> parsedTarget = ParseTarget(opt.target);
  if (!parsedTarget.ok())
    return usage(std::string(parsedTarget.status().message()));
  Target cpu = *parsedTarget;
  if (cpu.kind != TargetKind::Cpu)
    return usage("the sweep measures on this machine: --target must be cpu or cpu:<name>");
  absl::StatusOr<const Backend *> backend = lookupBackend(cpu.kind);
  if (!backend.ok())
    return usage(std::string(backend.status().message()));
  if (absl::Status s = (*backend)->validateTarget(cpu); !s.ok())
    return usage(std::string(s.message()));
  {
    std::set<std::string> have(host.features.begin(), host.features.end()); // this machine's
    host = (*backend)->describeTarget(cpu);
    for (const std::string &f : host.features)
      if (!have.count(f)) {
        std::printf("sweep: building for %s, which has %s that this machine lacks: candidates "
                    "that use it are recorded as crashes\n",
                    cpu.cpu.c_str(), f.c_str());
        break;
      }
  }

  // The work: (kernel, dtype, shape) groups and their candidate points.
  struct Group {
    const zoo::Kernel *kernel;
    std::string dtype;
    zoo::Shape shape;
    std::vector<autotune::Point> points;
  };
  std::vector<Group> groups;
  // The random and evolutionary choices follow one seed, kept in OUT/seed so that --resume
  // continues the same search rather than drawing another sample.
  uint64_t seed = 0;
  std::string seedPath = opt.out + "/seed", seedText = opt.seed;
  if (seedText.empty() && opt.resume)
    runtime::ReadWholeFile(seedPath, seedText);
  if (seedText.empty())
    seedText = std::to_string(std::random_device{}() * 4294967296ull + std::random_device{}());
  try {
    size_t used = 0;
    seed = std::stoull(seedText, &used);
    if (used != seedText.size() && seedText.find_first_not_of(" \n", used) != std::string::npos)
      throw std::invalid_argument(seedText);
  } catch (const std::exception &) {
    return usage("the seed '" + seedText + "' (--seed or " + seedPath + ") is not a number");
  }
  if (absl::Status s = runtime::WriteFileAtomically(seedPath, std::to_string(seed) + "\n"); !s.ok())
    return usage(std::string(s.message()));
  for (const zoo::Kernel *k : kernels) {
    std::vector<zoo::Shape> shapes;
    if (opt.shapes == "default")
      shapes = k->For(cpu.kind).defaultShapes;
    else if (opt.shapes == "large")
      shapes = k->For(cpu.kind).largeShapes;
    else
      for (const std::string &s : split(opt.shapes, ';')) {
        auto shape = zoo::ParseShape(*k, s);
        if (!shape.ok())
          return usage(std::string(shape.status().message()));
        shapes.push_back(*shape);
      }
    const std::vector<autotune::Point> space =
        autotune::Shard(k->For(cpu.kind).space.Enumerate(), opt.shardIndex, opt.shardCount);
    for (const std::string &dtype : k->For(cpu.kind).dtypes) {
      if (!opt.dtypes.empty() && std::find(opt.dtypes.begin(), opt.dtypes.end(), dtype) == opt.dtypes.end())
        continue;
      for (const zoo::Shape &shape : shapes) {
        std::vector<autotune::Point> points = space;
        if (opt.strategy == "random") {
          std::mt19937_64 gen(seed);
          std::shuffle(points.begin(), points.end(), gen);
          if (int(points.size()) > opt.budget)
            points.resize(opt.budget);
        }
        groups.push_back({k, dtype, shape, points});
      }
    }
  }

  auto start = std::chrono::steady_clock::now();
  size_t measured = 0;
  std::map<std::string, double> bestSoFar;
  const std::string thisHost = hostName();
  auto candidateRecord = [&](const Group &g, const autotune::Point &p) {
    autotune::Record r;
    r.kernel = g.kernel->name;
    r.shape = g.shape;
    r.dtype = g.dtype;
    r.target = host;
    r.configJson = configJson(p);
    r.compilerVersion = kCompilerVersion;
    r.host = thisHost;
    return r;
  };
  // What is left to measure (earlier runs' records excluded).
  size_t total = 0, skipped = 0;
  for (const Group &g : groups) {
    size_t left = 0;
    for (const autotune::Point &p : g.points)
      left += !done.count(candidateRecord(g, p).key());
    skipped += g.points.size() - left;
    // The evolutionary search replays what was measured (same seed) within its budget.
    total += opt.strategy == "evolutionary"
                 ? std::min<size_t>(left, std::max<int64_t>(
                                              0, opt.budget - int64_t(g.points.size() - left)))
                 : left;
  }
  std::printf("sweep: %zu candidates in %zu kernel/dtype/shape groups (%s, seed %llu)%s, "
              "records in %s\n",
              total, groups.size(), opt.strategy.c_str(), (unsigned long long)seed,
              skipped ? (", " + std::to_string(skipped) + " measured before").c_str() : "",
              recordsPath.c_str());
  // --time-budget: no candidate starts compiling or measuring after it; --resume goes on.
  auto outOfTime = [&] {
    return opt.timeBudget > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
               opt.timeBudget;
  };
  // Cached artifacts are named by the candidate, the compiler's version and the kernel
  // source's checksum: after an edit of the source or a new tessel, a resumed sweep rebuilds
  // what it puts in the bundle instead of shipping a stale object.
  const std::map<std::string, KernelSource> sources = readSources();
  auto artifactPath = [&](const autotune::Record &r) {
    auto source = sources.find(r.kernel);
    return opt.out + "/artifacts-cache/" +
           runtime::Sha256Hex(r.key() + "|" + kCompilerVersion + "|" +
                              (source == sources.end() ? "" : source->second.digest))
               .substr(0, 24) +
           ".so";
  };
  // Measures one compiled (or failed) candidate and appends its record.
  auto finish = [&](const Group &g, const autotune::Point &p, autotune::Record r,
                    const absl::Status &compiled, double compileSeconds) -> double {
    r.compileSeconds = compileSeconds;
    if (!compiled.ok()) {
      r.status = "compile_error";
      r.error = std::string(compiled.message());
    } else {
      measure(bench, *g.kernel, g.dtype, g.shape, p, artifactPath(r), opt, r);
    }
    r.timestamp = nowUtc();
    if (absl::Status s = (*writer)->Append(r); !s.ok())
      std::fprintf(stderr, "sweep: %s\n", std::string(s.message()).c_str());
    ++measured;
    std::string group = g.kernel->name + " " + g.dtype + " " + zoo::ShapeText(g.shape);
    double cost = r.status == "ok" ? r.medianSeconds : std::numeric_limits<double>::infinity();
    if (std::isfinite(cost) && (!bestSoFar.count(group) || cost < bestSoFar[group]))
      bestSoFar[group] = cost;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double eta = measured ? elapsed / measured * (total - std::min(total, measured)) : 0;
    int bar = total ? int(30.0 * measured / total) : 30;
    std::printf("[%-30s] %zu/%zu %s %s: %s%s, best %.3f ms, ETA %.0f s\n",
                std::string(std::min(bar, 30), '#').c_str(), measured, total, group.c_str(),
                r.configJson.c_str(), r.status.c_str(),
                r.status == "ok" ? (" " + std::to_string(r.medianSeconds * 1e3) + " ms").c_str() : "",
                bestSoFar.count(group) ? bestSoFar[group] * 1e3 : NAN, eta);
    std::fflush(stdout);
    return cost;
  };

  for (const Group &g : groups) {
    if (opt.strategy == "evolutionary") {
      auto objective = [&](const autotune::Point &p) {
        autotune::Record r = candidateRecord(g, p);
        if (auto it = done.find(r.key()); it != done.end())
          return it->second; // measured in an earlier run
        if (outOfTime())
          return std::numeric_limits<double>::infinity();
        auto t0 = std::chrono::steady_clock::now();
        absl::Status s = compileCandidate(*g.kernel, sources.at(g.kernel->name), g.dtype, g.shape, p,
                                          cpu, artifactPath(r));
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return finish(g, p, r, s, secs);
      };
      autotune::EvolutionarySearch(g.kernel->For(cpu.kind).space, g.points, objective, opt.budget, seed);
      continue;
    }
    // Builder: compile the group's candidates in parallel; runner: measure them one by one.
    std::vector<autotune::Point> todo;
    for (const autotune::Point &p : g.points)
      if (!done.count(candidateRecord(g, p).key()))
        todo.push_back(p);
    std::vector<absl::Status> compiled(todo.size());
    std::vector<double> seconds(todo.size());
    std::atomic<size_t> next{0};
    unsigned workers = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
    std::vector<std::thread> threads;
    for (unsigned w = 0; w < workers; ++w)
      threads.emplace_back([&] {
        for (size_t i; (i = next++) < todo.size();) {
          if (outOfTime()) {
            compiled[i] = absl::DeadlineExceededError("--time-budget");
            continue;
          }
          auto t0 = std::chrono::steady_clock::now();
          compiled[i] = compileCandidate(*g.kernel, sources.at(g.kernel->name), g.dtype,
                                         g.shape, todo[i], cpu,
                                         artifactPath(candidateRecord(g, todo[i])));
          seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
      });
    for (std::thread &t : threads)
      t.join();
    for (size_t i = 0; i < todo.size() && !outOfTime(); ++i)
      if (!absl::IsDeadlineExceeded(compiled[i]))
        finish(g, todo[i], candidateRecord(g, todo[i]), compiled[i], seconds[i]);
  }
  writer->reset();
  if (measured < total && outOfTime())
    std::printf("sweep: --time-budget of %.0f s reached with %zu of %zu candidates left; "
                "--resume goes on\n",
                opt.timeBudget, total - measured, total);

  // Summary, Google Benchmark JSON and the bundle, from every record (earlier runs included).
  auto records = autotune::ReadRecords(recordsPath);
  if (!records.ok())
    return usage(std::string(records.status().message()));
  std::map<std::string, const autotune::Record *> best;
  std::map<std::string, std::pair<int, int>> counts; // tried, failed
  for (const autotune::Record &r : *records) {
    std::string group = r.kernel + " " + r.dtype + " " + zoo::ShapeText(r.shape);
    counts[group].first++;
    if (r.status != "ok") {
      counts[group].second++;
      continue;
    }
    if (!best.count(group) || r.medianSeconds < best[group]->medianSeconds)
      best[group] = &r;
  }
  std::printf("\n%-40s %-60s %12s %14s %11s %8s\n", "kernel / dtype / shape", "best config",
              "time", "rate", "vs baseline", "tried/failed");
  nlohmann::json benchmarks = nlohmann::json::array();
  std::vector<autotune::TunedEntry> entries;
  for (const auto &[group, countPair] : counts) {
    const autotune::Record *r = best.count(group) ? best[group] : nullptr;
    if (!r) {
      std::printf("%-40s %-60s %12s %14s %11s %5d/%d\n", group.c_str(), "(none succeeded)", "-",
                  "-", "-", countPair.first, countPair.second);
      continue;
    }
    const zoo::Kernel *k = zoo::Find(r->kernel);
    bool flopBound = k && k->flopBound;
    char rate[32];
    std::snprintf(rate, sizeof rate, flopBound ? "%.1f GFLOP/s" : "%.1f GB/s",
                  flopBound ? r->tflops * 1e3 : r->gbps);
    // % of the reference baseline's rate (OpenBLAS sgemm or a copy of the same bytes), timed
    // now the same way as the candidates.
    double baseline = k ? measureBaseline(bench, *k, r->dtype, r->shape, opt) : 0;
    char versus[32] = "-";
    if (baseline > 0)
      std::snprintf(versus, sizeof versus, "%.0f%%", 100 * baseline / r->medianSeconds);
    std::printf("%-40s %-60s %9.3f ms %14s %11s %5d/%d\n", group.c_str(), r->configJson.c_str(),
                r->medianSeconds * 1e3, rate, versus, countPair.first, countPair.second);
    benchmarks.push_back({{"name", r->kernel + "/" + r->dtype + "/" + zoo::ShapeText(r->shape)},
                          {"run_type", "iteration"},
                          {"iterations", r->repetitions},
                          {"real_time", r->medianSeconds * 1e9},
                          {"cpu_time", r->medianSeconds * 1e9},
                          {"time_unit", "ns"},
                          {"GFLOP/s", r->tflops * 1e3},
                          {"GB/s", r->gbps},
                          {"baseline_seconds", baseline},
                          {"vs_baseline", baseline > 0 ? baseline / r->medianSeconds : 0.0},
                          {"config", nlohmann::json::parse(r->configJson, nullptr, false)}});
    // The bundle entry: the cached artifact, rebuilt if a resumed record's is gone.
    std::string so = artifactPath(*r);
    absl::StatusOr<autotune::Point> p = autotune::ParsePoint(r->configJson);
    if (!p.ok())
      continue;
    if (!fs::exists(so) && k && !compileCandidate(*k, sources.at(k->name), r->dtype, r->shape, *p, cpu, so).ok())
      continue;
    autotune::TunedEntry e;
    e.kernel = r->kernel;
    e.signature = k ? zoo::RuntimeSignature(k->signature(r->dtype)) : "";
    e.dtype = r->dtype;
    e.entry = k ? k->entry : r->kernel;
    e.shape = r->shape;
    if (k)
      e.serves = servedRanges(*k, *p, r->shape);
    e.sharedObject = so;
    // The configuration with the constexprs as the kernel sees them (block sizes, ...).
    nlohmann::json config = *p;
    if (k)
      for (const auto &[name, value] : k->constexprs(*p, r->shape))
        if (name.rfind("stride_", 0) != 0) {
          // Constexprs are ints or bools ("True" / "False"); keep other text as a string.
          nlohmann::json v = nlohmann::json::parse(value, nullptr, false);
          config[name] = value == "True"    ? nlohmann::json(true)
                         : value == "False" ? nlohmann::json(false)
                         : v.is_number()    ? v
                                            : nlohmann::json(value);
        }
    e.configJson = config.dump();
    e.metricsJson = nlohmann::json{{"median_seconds", r->medianSeconds},
                                   {"gflops", r->tflops * 1e3},
                                   {"gbps", r->gbps}}
                        .dump();
    entries.push_back(e);
  }
  nlohmann::json gb = {{"context", {{"date", nowUtc()}, {"host_name", thisHost},
                                    {"library_version", kCompilerVersion}}},
                       {"benchmarks", benchmarks}};
  if (absl::Status s = runtime::WriteFileAtomically(opt.out + "/benchmark.json", gb.dump(2) + "\n");
      !s.ok())
    std::fprintf(stderr, "sweep: %s\n", std::string(s.message()).c_str());
  if (absl::Status s = autotune::WriteBundle(opt.out + "/bundle", host, kCompilerVersion, entries);
      !s.ok()) {
    std::fprintf(stderr, "sweep: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nsweep: %zu measured in %.0f s; records %s, benchmark JSON %s/benchmark.json, "
              "bundle %s/bundle (%zu entries)\n",
              measured, elapsed, recordsPath.c_str(), opt.out.c_str(), opt.out.c_str(),
              entries.size());
  return 0;
}
