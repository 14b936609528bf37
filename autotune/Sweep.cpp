//===- Sweep.cpp - bazel run //autotune:sweep: tune the zoo, record, bundle -*- C++ -*-===//
//
// sweep [--spec=PATH.toml|DIR ...] [--kernels=a,b] [--shapes=default|large|DIM=N,...;...] [--dtypes=f32,...]
//       [--strategy=exhaustive|random|evolutionary] [--budget=N] [--out=DIR] [--resume]
//       [--shard=I/N] [--where=NAME=V|V,...] [--timeout=SECONDS] [--min-time=SECONDS]
//       [--build-only] [--overwrite]
// sweep --ingest=DIR   (DIR: a --build-only output whose run.sh ran; see Ingest.h)
// sweep --list-kernels | --list-shapes[=KERNEL] | --list-space=KERNEL [--target=T]; sweep --help
//
// --spec tunes the kernels of kernel specs (a file, or a folder of *.toml; repeatable, or
// comma-separated): a user's Triton kernel file and its spec (docs/kernel-specs.md). Without
// --kernels, only the specs' kernels are tuned; --kernels may add zoo kernels.
//
// TESSEL_ZOO_DIR, when set, is read instead of kernels/ for the kernels' sources.
//
// For every kernel x dtype x shape: the configurations the strategy picks (constraints prune
// invalid ones first; --where keeps those whose named parameters take the listed values;
// --shard keeps every N-th), compiled in parallel (exhaustive / random) or
// one at a time (evolutionary, which needs each result to choose the next), then measured one
// at a time by tessel-bench in a child process with a timeout, nothing else running. Every
// candidate becomes a record in DIR/records.jsonl, appended and flushed at once; --resume skips
// candidates already recorded. At the end: a summary table, DIR/benchmark.json (Google
// Benchmark's format) and DIR/bundle/ with the best entry per kernel, dtype and shape, each
// written under a temporary name and renamed into place. A DIR holding an earlier sweep's
// outputs is refused unless --resume goes on with it or --overwrite replaces it; --overwrite
// removes them first, so that a sweep killed on the way never leaves the earlier bundle beside
// its own records.
//
//===----------------------------------------------------------------------===//

#include "autotune/Builder.h"
#include "autotune/BundleWriter.h"
#include "autotune/Ingest.h"
#include "autotune/Records.h"
#include "autotune/Report.h"
#include "autotune/Runner.h"
#include "autotune/search/Search.h"
#include "compiler/backend/Registry.h"
#include "kernels/Zoo.h"
#include "kernels/spec/Spec.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "nlohmann/json.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "tools/cli/Cli.h"

using namespace tessel;
namespace fs = std::filesystem;

namespace {

struct Options {
  std::vector<std::string> kernels, dtypes, specs;
  std::string shapes = "default", strategy = "random", out = "sweep-out", seed;
  int budget = 8;
  double timeBudget = 0; ///< seconds; 0: none
  bool resume = false;
  bool overwrite = false; ///< replace an earlier sweep's outputs in --out
  bool buildOnly = false; ///< build the candidates for a runner on another machine
  std::string ingest;     ///< a --build-only directory whose results.jsonl came back
  std::string pack;       ///< --build-only into a folder that measures itself on a GPU host
  std::string flush = "on"; ///< tessel-bench's cache flush between repetitions
  std::string target = "cpu";
  int shardIndex = 0, shardCount = 1;
  autotune::Where where; ///< parameters restricted to some of their values
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

/// When measured configurations count as equally fast (--tie; the U test by default).
autotune::TieRule tieRule;
/// --mixed-devices: a group's candidates may come from different GPU models.
bool mixedDevices = false;

int usage(const std::string &why) {
  std::fprintf(stderr, "sweep: %s\nRun sweep --help for its options.\n", why.c_str());
  return cli::kUsageError;
}

/// --list-kernels / --list-shapes / --list-space for `target` (stdout); 2 for an unknown kernel.
int list(const std::string &what, const std::string &kernel,
         const std::vector<const zoo::Kernel *> &kernels, const Target &target) {
  std::vector<const zoo::Kernel *> chosen;
  for (const zoo::Kernel *k : kernels)
    if (kernel.empty() || k->name == kernel)
      chosen.push_back(k);
  if (chosen.empty())
    return usage("no kernel named '" + kernel + "' (--list-kernels lists them)");
  for (const zoo::Kernel *k : chosen) {
    const zoo::TargetSpec spec = k->For(target.kind);
    std::string dims, dtypes;
    for (const std::string &d : k->dims)
      dims += (dims.empty() ? "" : ",") + d;
    for (const std::string &d : spec.dtypes)
      dtypes += (dtypes.empty() ? "" : ",") + d;
    if (what == "kernels") {
      std::printf("%-20s dims %-20s dtypes %-16s %s\n", k->name.c_str(), dims.c_str(),
                  dtypes.empty() ? "-" : dtypes.c_str(),
                  (k->specPath.empty() ? k->source : k->specPath).c_str());
    } else if (what == "shapes") {
      for (const auto &[set, shapes] : {std::pair{"default", &spec.defaultShapes},
                                         std::pair{"large", &spec.largeShapes}})
        for (const zoo::Shape &s : *shapes)
          std::printf("%-20s %-8s %s\n", k->name.c_str(), set, zoo::ShapeText(s).c_str());
    } else {
      std::printf("%s on %s: %zu valid points\n", k->name.c_str(), target.str().c_str(),
                  spec.space.Enumerate().size());
      for (const auto &[name, values] : spec.space.params) {
        std::string text;
        for (int64_t v : values)
          text += (text.empty() ? "" : " ") + std::to_string(v);
        std::printf("  %-20s %s\n", name.c_str(), text.c_str());
      }
      std::printf("  %zu constraints\n", spec.space.constraints.size());
    }
  }
  return 0;
}

/// The end of a sweep, local or ingested: the summary table of `records`, DIR/benchmark.json
/// and DIR/bundle. `baseline` gives the best record's group baseline in seconds (0: none),
/// `artifact` the best record's artifact (an error: no bundle entry). Returns the entries
/// written, or the bundle's error.
absl::StatusOr<size_t> writeOutputs(
    const std::string &dir, const std::vector<autotune::Record> &records, const Target &bundleTarget,
    const std::function<double(const zoo::Kernel &, const autotune::Record &)> &baseline,
    const std::function<absl::StatusOr<std::string>(const zoo::Kernel &, const autotune::Record &,
                                                    const autotune::Point &)> &artifact) {
  std::vector<autotune::GroupSummary> summary = autotune::Summarize(records, tieRule);
  std::vector<autotune::TunedEntry> entries;
  std::vector<double> entrySeconds; // each entry's median
  for (autotune::GroupSummary &g : summary) {
    if (!g.best)
      continue;
    const autotune::Record &r = *g.best;
    const zoo::Kernel *k = zoo::Find(r.kernel);
    absl::StatusOr<autotune::Point> p = autotune::ParsePoint(r.configJson);
    if (!k || !p.ok())
      continue;
    g.baselineSeconds = baseline(*k, r);
    if (absl::StatusOr<std::string> path = artifact(*k, r, *p); path.ok()) {
      autotune::TunedEntry e = autotune::TunedEntryFor(*k, r, *p, *path);
      for (const autotune::Record *t : g.ties)
        e.ties.push_back(t->configJson);
      // Groups that differ only outside a kernel's dispatch dims share an entry: the faster.
      auto same = std::find_if(entries.begin(), entries.end(), [&](const autotune::TunedEntry &x) {
        return x.kernel == e.kernel && x.dtype == e.dtype && x.shape == e.shape;
      });
      if (same == entries.end())
        entries.push_back(e), entrySeconds.push_back(r.medianSeconds);
      else if (r.medianSeconds < entrySeconds[size_t(same - entries.begin())])
        *same = e, entrySeconds[size_t(same - entries.begin())] = r.medianSeconds;
    }
  }
  autotune::PrintSummaryTable(stdout, summary);
  nlohmann::json gb = autotune::GoogleBenchmarkJson(summary, nowUtc(), hostName());
  if (absl::Status s = runtime::WriteFileAtomically(dir + "/benchmark.json", gb.dump(2) + "\n");
      !s.ok())
    std::fprintf(stderr, "sweep: %s\n", std::string(s.message()).c_str());
  if (absl::Status s =
          autotune::WriteBundle(dir + "/bundle", bundleTarget, autotune::kCompilerVersion, entries);
      !s.ok())
    return s;
  return entries.size();
}

/// DIR/run: measures the candidates of the folder it is in on this host's GPUs, one worker
/// (run.sh I N) a device, then the results of all in results.jsonl.
constexpr const char *kPackRun = R"SH(#!/bin/sh
# Measures the candidates of this folder (sweep --build-only --pack) on this host's GPUs:
#   run [--devices=all|0,2,...] [--no-tests]
# --devices: the GPUs to measure on (default all: CUDA_VISIBLE_DEVICES's, else nvidia-smi's);
# one tessel-bench worker a GPU, each measuring whole groups (kernel, dtype, shape). The GPU
# end-to-end tests run first on the first GPU (--no-tests: not). Results: results.jsonl here,
# read back by `sweep --ingest=THIS_FOLDER` where it was built.
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
devices=all tests=1
for a in "$@"; do
  case "$a" in
    --devices=*) devices="${a#--devices=}" ;;
    --no-tests) tests=0 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "run: unknown argument '$a' (run --help)" >&2; exit 2 ;;
  esac
done
if [ "$devices" = all ]; then
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    devices="$CUDA_VISIBLE_DEVICES"
  elif command -v nvidia-smi >/dev/null 2>&1; then
    devices="$(nvidia-smi --query-gpu=index --format=csv,noheader | tr -d ' ' | paste -sd, -)"
  fi
  [ -n "$devices" ] && [ "$devices" != all ] || { echo "run: no GPU found (give --devices=)" >&2; exit 1; }
fi
case "$devices" in *[!0-9a-zA-Z,:-]*|,*|*,|*,,*) echo "run: bad --devices '$devices'" >&2; exit 2 ;; esac
n=$(echo "$devices" | tr ',' ' ' | wc -w)
first="${devices%%,*}"
if [ "$tests" = 1 ] && [ -x "$here/tests/gpu_e2e_tests" ]; then
  (cd "$here/tests" && CUDA_VISIBLE_DEVICES="$first" ./gpu_e2e_tests) || echo "run: gpu_e2e_tests FAILED"
fi
start=$(date +%s)
rm -f "$here"/results.jsonl "$here"/results.*.jsonl
i=0
for d in $(echo "$devices" | tr ',' ' '); do
  CUDA_VISIBLE_DEVICES="$d" sh "$here/run.sh" "$here/bin/tessel-bench" "$i" "$n" &
  i=$((i + 1))
done
wait
if [ "$n" -gt 1 ]; then
  for k in $(seq 0 $((n - 1))); do cat "$here/results.$k.jsonl" 2>/dev/null; done > "$here/results.jsonl"
fi
echo "run: $(grep -c '"status"' "$here/results.jsonl" 2>/dev/null || echo 0) results on $n GPU(s) ($devices) in $(( $(date +%s) - start )) s: $here/results.jsonl"
)SH";

/// gpu_checks/run-philox-check.sh OUTDIR: tessel-run's philox_kernel against Triton's.
constexpr const char *kPhiloxCheck = R"SH(#!/bin/sh
# tessel's random numbers against Triton's own on this GPU host (needs Triton and PyTorch):
# tessel-run runs philox_kernel's cuda artifact, philox_vs_triton.py runs the same source with
# Triton. Usage: run-philox-check.sh OUTDIR
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: run-philox-check.sh OUTDIR}"
seed=81985529216486895 n=300
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$here/../bin/tessel-run" \
  "$here/philox.artifact" --device cuda --entry philox_kernel --grid 5 --arg out:1500:i32 \
  --arg out:1200:i32 --arg out:3000:f32 --arg out:600:i32 --arg scalar:i64:$seed \
  --arg scalar:i32:$n --out-dir "$out" && python3 "$here/philox_vs_triton.py" "$out" $seed $n
)SH";

/// The shared libraries `binary` needs that a GPU host with only the driver may lack
/// (Debian's Abseil), found with ldd.
std::vector<std::string> librariesToCarry(const std::string &binary) {
  std::vector<std::string> out;
  std::string command = "ldd '" + binary + "' 2>/dev/null";
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return out;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string text = line;
    size_t arrow = text.find("=> /");
    if (arrow == std::string::npos || text.find("libabsl_") == std::string::npos)
      continue;
    std::string path = text.substr(arrow + 3);
    path = path.substr(0, path.find(' '));
    out.push_back(path);
  }
  pclose(pipe);
  return out;
}

/// Copies `from` to `to`, making `to`'s folder.
absl::Status copyFile(const std::string &from, const std::string &to) {
  std::error_code ec;
  fs::create_directories(fs::path(to).parent_path(), ec);
  if (!ec)
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec)
    return absl::InternalError("cannot copy " + from + " to " + to + ": " + ec.message());
  return absl::OkStatus();
}

/// The zoo's specs and sources at their paths under `dir`, where tessel-bench and the GPU
/// tests read them (their working directory).
absl::Status copyZoo(const std::string &dir) {
  for (const zoo::Kernel &k : zoo::Kernels())
    for (const std::string &file : {k.specPath, k.source})
      if (absl::Status s = copyFile(file, dir + "/" + file); !s.ok())
        return s;
  return absl::OkStatus();
}

/// Makes the --build-only output `dir` self-contained for a GPU host: bin/ (tessel-bench,
/// tessel-run, bundle_consumer), lib/ (the Abseil they need), tests/ (the GPU end-to-end tests,
/// their artifacts and the zoo they read), gpu_checks/ and the `run` script.
absl::Status writePack(const std::string &dir, const Target &target) {
  std::error_code ec;
  std::set<std::string> libraries;
  for (const char *binary :
       {"autotune/tessel-bench", "tools/tessel-run", "runtime/examples/bundle_consumer"}) {
    if (access(binary, X_OK) != 0)
      return absl::NotFoundError(std::string(binary) + " is not beside sweep (run it with bazel run)");
    if (absl::Status s = copyFile(binary, dir + "/bin/" + fs::path(binary).filename().string()); !s.ok())
      return s;
    for (const std::string &lib : librariesToCarry(binary))
      libraries.insert(lib);
  }
  for (const std::string &lib : libraries)
    if (absl::Status s = copyFile(lib, dir + "/lib/" + fs::path(lib).filename().string()); !s.ok())
      return s;
  if (target.kind == TargetKind::Cuda) {
    const std::string tests = "compiler/backend/cuda/test";
    if (absl::Status s = copyFile(tests + "/gpu_e2e_tests", dir + "/tests/gpu_e2e_tests"); !s.ok())
      return s;
    for (const auto &e : fs::directory_iterator(tests, ec))
      if (e.path().extension() == ".artifact")
        if (absl::Status s = copyFile(e.path().string(), dir + "/tests/" + e.path().string()); !s.ok())
          return s;
    if (absl::Status s = copyZoo(dir + "/tests"); !s.ok())
      return s;
  }
  // The checks, with the sources they give Triton beside them (gpu_checks/zoo.py).
  std::vector<std::string> checks = {"compiler/frontend/test/kernels/frontend_kernels.py",
                                     "compiler/frontend/test/kernels/helpers.py"};
  for (const auto &e : fs::directory_iterator("tools/gpu_checks", ec))
    checks.push_back(e.path().string());
  for (const zoo::Kernel &k : zoo::Kernels())
    checks.push_back(k.source);
  for (const std::string &file : checks)
    if (absl::Status s = copyFile(file, dir + "/gpu_checks/" + fs::path(file).filename().string());
        !s.ok())
      return s;
  if (target.kind == TargetKind::Cuda) {
    // tessel's random numbers against Triton's own: philox_kernel's cuda artifact for
    // tessel-run, the same source for Triton (gpu_checks/run-philox-check.sh OUTDIR there).
    std::string compile = "tools/tessel-compile compiler/frontend/test/kernels/frontend_kernels.py "
                          "--entry philox_kernel --target cuda:sm_90 --signature "
                          "'*i32,*i32,*fp32,*i32,i64,i32' --constexpr BLOCK=64 --emit artifact "
                          "-o '" + dir + "/gpu_checks/philox.artifact' > /dev/null 2>&1";
    if (std::system(compile.c_str()) != 0)
      return absl::InternalError("tessel-compile could not build gpu_checks/philox.artifact");
    if (absl::Status s = runtime::WriteFileAtomically(dir + "/gpu_checks/run-philox-check.sh",
                                                      kPhiloxCheck);
        !s.ok())
      return s;
  }
  if (absl::Status s = runtime::WriteFileAtomically(dir + "/run", kPackRun); !s.ok())
    return s;
  for (const std::string &script : {dir + "/run", dir + "/gpu_checks/run-philox-check.sh"})
    if (fs::exists(script, ec))
      fs::permissions(script, fs::perms::owner_all | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read |
                                  fs::perms::others_exec, ec);
  return absl::OkStatus();
}

/// sweep --ingest=DIR: the runner's results of a --build-only directory become DIR's records,
/// summary, Google Benchmark JSON (baselines from the same run) and bundle.
int ingest(const std::string &dir) {
  absl::StatusOr<autotune::Ingested> in = autotune::IngestRunnerResults(dir, nowUtc());
  if (!in.ok())
    return usage(std::string(in.status().message()));
  // One group's candidates measured on different GPU models cannot be ranked against each
  // other: refused unless --mixed-devices says that is meant.
  if (!mixedDevices) {
    std::map<std::string, std::set<std::string>> models;
    for (const autotune::Record &r : in->records) {
      nlohmann::json env = nlohmann::json::parse(r.environmentJson, nullptr, false);
      if (env.is_object() && env.contains("gpu") && env["gpu"].is_string())
        models[autotune::GroupOf(r)].insert(env["gpu"].get<std::string>());
    }
    for (const auto &[group, names] : models)
      if (names.size() > 1) {
        std::string list;
        for (const std::string &n : names)
          list += (list.empty() ? "" : ", ") + n;
        return usage("the candidates of " + group + " were measured on different GPU models (" +
                     list + "): their times do not compare; measure on one model (run "
                     "--devices=...) or give --mixed-devices");
      }
  }
  std::string lines;
  for (const autotune::Record &r : in->records)
    lines += autotune::ToJsonLine(r) + "\n";
  if (absl::Status s = runtime::WriteFileAtomically(dir + "/records.jsonl", lines); !s.ok())
    return usage(std::string(s.message()));
  // A cpu bundle names this machine's CPU, as a local sweep's does.
  Target bundleTarget = in->target.kind == TargetKind::Cpu && in->target.cpu.empty()
                            ? Target::Host()
                            : in->target;
  absl::StatusOr<size_t> entries = writeOutputs(
      dir, in->records, bundleTarget,
      [&](const zoo::Kernel &, const autotune::Record &r) {
        auto b = in->baselineSeconds.find(autotune::GroupOf(r));
        return b == in->baselineSeconds.end() ? 0.0 : b->second;
      },
      [&](const zoo::Kernel &, const autotune::Record &r,
          const autotune::Point &) -> absl::StatusOr<std::string> {
        auto a = in->artifactOf.find(r.key());
        if (a == in->artifactOf.end())
          return absl::NotFoundError("no artifact");
        return a->second;
      });
  if (!entries.ok())
    return usage(std::string(entries.status().message()));
  std::printf("\nsweep: ingested %zu records for %s from %s (%zu built candidates had no result); "
              "records.jsonl, benchmark.json, bundle (%zu entries)\n",
              in->records.size(), in->target.str().c_str(), dir.c_str(), in->unmeasured,
              *entries);
  return 0;
}

/// `space` with each knob that --where names, the space does not vary and `backend` declares
/// (knob.tma=0|1 for cuda), at the values listed; an error names a value the knob does not
/// take. Other names are left for autotune::Restrict to judge.
absl::StatusOr<autotune::Space> withWhereKnobs(autotune::Space space, const autotune::Where &where,
                                               const Backend &backend) {
  for (const auto &[name, values] : where) {
    if (name.rfind("knob.", 0) != 0 || space.Values(name))
      continue;
    auto knob = std::find_if(backend.knobs().begin(), backend.knobs().end(),
                             [&](const KnobInfo &k) { return "knob." + k.name == name; });
    if (knob == backend.knobs().end())
      continue;
    for (int64_t v : values)
      if (!knob->allows(v))
        return absl::InvalidArgumentError("--where: " + name + " takes " + knob->allowedText() +
                                          ", not " + std::to_string(v));
    space.params.push_back({name, std::vector<int64_t>(values.begin(), values.end())});
  }
  return space;
}

/// What a sweep writes in its output directory (a --build-only one included): a directory
/// holding any of them holds an earlier sweep.
constexpr const char *kSweepOutputs[] = {
    "bundle", "benchmark.json", "records.jsonl", "candidates.jsonl", "run.sh",
    "results.jsonl", "candidates", "kernels", "specs"};

/// The earlier sweep's outputs in `dir`, removed unless `remove` is false: the bundle and
/// benchmark JSON before the records they came from, so that an interrupted removal never
/// leaves them beside other records. Returns the names found.
absl::StatusOr<std::vector<std::string>> earlierOutputs(const std::string &dir, bool remove) {
  std::vector<std::string> found;
  for (const char *name : kSweepOutputs) {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(dir + "/" + name, ec)))
      continue;
    found.push_back(name);
    if (remove && (fs::remove_all(dir + "/" + name, ec), ec))
      return absl::FailedPreconditionError("cannot remove the earlier " + dir + "/" + name +
                                           ": " + ec.message());
  }
  return found;
}

/// Takes DIR/.sweep.lock for as long as this process lives (not inherited by tessel-bench):
/// one sweep or ingest per output directory, since a second one would delete or double what
/// the first appends. Returns the lock's descriptor; the error names the holder.
absl::StatusOr<int> lockOutputDirectory(const std::string &dir) {
  int lock = open((dir + "/.sweep.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (lock < 0)
    return absl::FailedPreconditionError("cannot open " + dir + "/.sweep.lock: " +
                                         std::strerror(errno));
  if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
    std::string holder;
    runtime::ReadWholeFile(dir + "/.sweep.lock", holder);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r'))
      holder.pop_back();
    close(lock);
    return absl::FailedPreconditionError(
        dir + " is in use by another sweep (" +
        (holder.empty() ? std::string("holder unknown") : holder.substr(0, 200)) +
        "); wait for it or give another --out");
  }
  std::string holder = "pid " + std::to_string(getpid()) + " on " + hostName() + " since " +
                       nowUtc() + "\n";
  if (ftruncate(lock, 0) != 0 || write(lock, holder.data(), holder.size()) < 0)
    std::fprintf(stderr, "sweep: cannot note this sweep in %s/.sweep.lock\n", dir.c_str());
  return lock;
}

/// Reads the kernel specs `paths` (files or folders; relative to `cwd`) for `target` and makes
/// their kernels findable; returns them in order. Notes (dropped options) go to stdout.
absl::StatusOr<std::vector<const zoo::Kernel *>> loadSpecs(const std::vector<std::string> &paths,
                                                           const std::string &cwd,
                                                           const Target &target,
                                                           const Backend &backend) {
  std::vector<std::string> knobs;
  for (const KnobInfo &k : backend.knobs())
    knobs.push_back(k.name);
  std::vector<const zoo::Kernel *> out;
  for (std::string path : paths) {
    if (!cwd.empty() && path[0] != '/')
      path = cwd + "/" + path;
    absl::StatusOr<std::vector<std::string>> files = spec::SpecFiles(path);
    if (!files.ok())
      return files.status();
    for (const std::string &file : *files) {
      std::vector<std::string> notes;
      absl::StatusOr<zoo::Kernel> k =
          spec::LoadSpec(fs::absolute(file).lexically_normal().string(), target, knobs, &notes);
      if (!k.ok())
        return k.status();
      for (const std::string &n : notes)
        std::printf("sweep: note: %s\n", n.c_str());
      std::string name = k->name;
      if (absl::Status s = zoo::AddSpecKernel(*std::move(k)); !s.ok())
        return s;
      out.push_back(zoo::Find(name));
    }
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  std::string listing, listKernel; // --list-*: what, and of which kernel
  std::string where, shard;
  int64_t budget = opt.budget;
  bool listKernels = false, listShapes = false;
  std::string listShapesOf, listSpaceOf;
  cli::Command c("sweep",
                 "Tunes kernels: builds every chosen configuration, measures each with "
                 "tessel-bench in a child process, records it and writes the bundle of the best "
                 "per kernel, dtype and shape.");
  c.List("--spec", &opt.specs, "Kernel specs to tune: files or folders of *.toml", "PATH,...");
  c.List("--kernels", &opt.kernels, "Zoo kernels by name (default: all, or none with --spec)");
  c.Text("--shapes", &opt.shapes, "default, large, or DIM=N,...;DIM=N,...", "SET|SHAPES");
  c.List("--dtypes", &opt.dtypes, "Only these dtypes (default: each kernel's)");
  c.Choice("--strategy", &opt.strategy, {"exhaustive", "random", "evolutionary"},
           "How the space is searched");
  c.Integer("--budget", &budget, 1, 1000000000, "Candidates per group for random/evolutionary");
  c.Number("--time-budget", &opt.timeBudget, 0, 1e9,
           "Start nothing new after this many seconds (0: no limit)");
  c.Text("--seed", &opt.seed, "The search's seed (default: drawn, kept in OUT/seed)", "N");
  c.Text("--target", &opt.target, "cpu, cpu:NAME, cuda:sm_NN or rocm:gfxNNN", "T");
  c.Text("--out", &opt.out, "Where records, benchmark JSON and the bundle go", "DIR");
  c.Flag("--resume", &opt.resume, "Go on with the sweep in --out");
  c.Flag("--overwrite", &opt.overwrite, "Replace the sweep in --out");
  c.Text("--shard", &shard, "Every N-th candidate from the I-th (default 0/1)", "I/N");
  c.Text("--where", &where, "Only points whose parameters take these values", "NAME=V|V,...");
  c.Number("--timeout", &opt.timeout, 1e-3, 1e9, "Seconds a candidate may take");
  c.Number("--tie", &tieRule.percent, 0, 100,
           "Configurations within this many percent of the fastest tie (0: those the U test "
           "cannot tell from it); the tie rule picks among them");
  c.Number("--min-time", &opt.minTime, 0, 3600, "tessel-bench's measuring time a candidate");
  c.Choice("--flush", &opt.flush, {"on", "off"}, "Caches flushed between repetitions");
  c.Flag("--build-only", &opt.buildOnly, "Build for another machine: OUT/run.sh measures there");
  c.Text("--pack", &opt.pack,
         "With --build-only: write the candidates and the runtime-only binaries that measure "
         "them (DIR/run) into DIR, a folder for the GPU host",
         "DIR");
  c.Text("--ingest", &opt.ingest, "Read back a --build-only folder's results.jsonl", "DIR");
  c.Flag("--mixed-devices", &mixedDevices,
         "With --ingest: accept a group measured on different GPU models");
  c.Flag("--list-kernels", &listKernels,
         "List the kernels (zoo and --spec), their dims and dtypes for --target");
  c.OptionalText("--list-shapes", &listShapesOf, &listShapes,
                 "List each kernel's (or KERNEL's) default and large shapes for --target",
                 "KERNEL");
  c.Text("--list-space", &listSpaceOf,
         "List KERNEL's configuration space for --target and its valid points", "KERNEL");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  opt.budget = int(budget);
  if (int(listKernels) + int(listShapes) + int(c.Given("--list-space")) > 1)
    return usage("give one of --list-kernels, --list-shapes, --list-space");
  if (listKernels)
    listing = "kernels";
  else if (listShapes)
    listing = "shapes", listKernel = listShapesOf;
  else if (c.Given("--list-space")) {
    if (listSpaceOf.empty())
      return usage("--list-space takes a kernel: --list-space=KERNEL");
    listing = "space", listKernel = listSpaceOf;
  }
  if (c.Given("--pack")) {
    if (!opt.buildOnly)
      return usage("--pack goes with --build-only: it is where the candidates are built");
    if (c.Given("--out") && opt.out != opt.pack)
      return usage("--pack=DIR is the output folder: give it without --out");
    opt.out = opt.pack;
  }
  if (c.Given("--spec") && opt.specs.empty())
    return usage("--spec takes a spec file or a folder of them");
  if (c.Given("--where")) {
    auto parsed = autotune::ParseWhere(where);
    if (!parsed.ok())
      return usage(std::string(parsed.status().message()));
    opt.where = *parsed;
  }
  if (c.Given("--shard")) {
    auto parsed = autotune::ParseShard(shard);
    if (!parsed.ok())
      return usage(std::string(parsed.status().message()));
    std::tie(opt.shardIndex, opt.shardCount) = *parsed;
  }
  if (!opt.where.empty() && opt.strategy == "evolutionary")
    return usage("--where restricts exhaustive and random sweeps (the evolutionary search "
                 "moves over the whole space)");
  if (opt.strategy != "exhaustive" && opt.strategy != "random" && opt.strategy != "evolutionary")
    return usage("unknown --strategy '" + opt.strategy + "'");
  if (opt.resume && opt.overwrite)
    return usage("--resume goes on with the sweep in --out, --overwrite replaces it: give one");
  if (opt.budget <= 0 || opt.timeout <= 0 || opt.timeBudget < 0)
    return usage("--budget and --timeout must be positive, --time-budget not negative");

  // `bazel run` starts us in the runfiles tree; a relative --out means the user's directory.
  if (const char *wd = getenv("BUILD_WORKING_DIRECTORY"); wd && !opt.out.empty() && opt.out[0] != '/')
    opt.out = std::string(wd) + "/" + opt.out;
  if (!opt.ingest.empty()) {
    if (const char *wd = getenv("BUILD_WORKING_DIRECTORY"); wd && opt.ingest[0] != '/')
      opt.ingest = std::string(wd) + "/" + opt.ingest;
    // Ingesting writes records, summary and bundle there: not while a sweep or another ingest
    // uses the directory (a directory that is not there is ingest's own error).
    if (fs::is_directory(opt.ingest))
      if (absl::StatusOr<int> lock = lockOutputDirectory(opt.ingest); !lock.ok())
        return usage(std::string(lock.status().message()));
    if (!opt.specs.empty()) { // the specs' kernels, read for the target they were built for
      absl::StatusOr<Target> t = ParseTarget(opt.target);
      if (!t.ok())
        return usage(std::string(t.status().message()));
      absl::StatusOr<const Backend *> b = lookupBackend(t->kind);
      if (!b.ok())
        return usage(std::string(b.status().message()));
      const char *wd = getenv("BUILD_WORKING_DIRECTORY");
      if (auto loaded = loadSpecs(opt.specs, wd ? wd : "", *t, **b); !loaded.ok())
        return usage(std::string(loaded.status().message()));
    }
    return ingest(opt.ingest);
  }
  if (absl::Status zoo = zoo::ZooStatus(); !zoo.ok())
    return usage("the kernel zoo did not load: " + std::string(zoo.message()));
  // Where the runner is: next to this binary's runfiles (bazel run) or given by TESSEL_BENCH.
  std::string bench = getenv("TESSEL_BENCH") ? getenv("TESSEL_BENCH") : "autotune/tessel-bench";
  if (listing.empty() && access(bench.c_str(), X_OK) != 0)
    return usage("cannot find tessel-bench at " + bench + " (set TESSEL_BENCH)");

  std::vector<const zoo::Kernel *> kernels;
  if (opt.kernels.empty() && (opt.specs.empty() || !listing.empty())) // listings show the zoo too
    for (const zoo::Kernel &k : zoo::Kernels())
      kernels.push_back(&k);
  for (const std::string &name : opt.kernels) {
    const zoo::Kernel *k = zoo::Find(name);
    if (!k)
      return usage("no zoo kernel named '" + name + "'");
    kernels.push_back(k);
  }

  // What the candidates are built for: this machine's CPU and features (the bundle names them
  // all, so it is refused on a machine that lacks any), or --target=cpu:NAME, LLVM's CPU and its
  // features. Candidates are measured here either way.
  Target host = Target::Host();
  absl::StatusOr<Target> parsedTarget = ParseTarget(opt.target);
  if (!parsedTarget.ok())
    return usage(std::string(parsedTarget.status().message()));
  Target target = *parsedTarget;
  if (target.kind != TargetKind::Cpu && !opt.buildOnly && listing.empty())
    return usage("GPU candidates are measured on the GPU host: build them here into a folder "
                 "that measures itself there, --build-only --pack=DIR, run DIR/run on the GPU "
                 "host, then --ingest=DIR here");
  absl::StatusOr<const Backend *> backend = lookupBackend(target.kind);
  if (!backend.ok())
    return usage(std::string(backend.status().message()));
  if (absl::Status s = (*backend)->validateTarget(target); !s.ok())
    return usage(std::string(s.message()));
  if (!opt.specs.empty()) {
    const char *wd = getenv("BUILD_WORKING_DIRECTORY");
    absl::StatusOr<std::vector<const zoo::Kernel *>> loaded =
        loadSpecs(opt.specs, wd ? wd : "", target, **backend);
    if (!loaded.ok())
      return usage(std::string(loaded.status().message()));
    kernels.insert(kernels.end(), loaded->begin(), loaded->end());
  }
  {
    std::set<std::string> have(host.features.begin(), host.features.end()); // this machine's
    host = (*backend)->describeTarget(target);
    for (const std::string &f : host.features)
      if (!have.count(f)) {
        std::printf("sweep: building for %s, which has %s that this machine lacks: candidates "
                    "that use it are recorded as crashes\n",
                    target.cpu.c_str(), f.c_str());
        break;
      }
  }

  if (!listing.empty())
    return list(listing, listKernel, kernels, target);
  fs::create_directories(opt.out);
  if (absl::StatusOr<int> lock = lockOutputDirectory(opt.out); !lock.ok())
    return usage(std::string(lock.status().message()));
  std::string recordsPath = opt.out + "/records.jsonl";
  if (!opt.resume) {
    absl::StatusOr<std::vector<std::string>> earlier = earlierOutputs(opt.out, opt.overwrite);
    if (!earlier.ok())
      return usage(std::string(earlier.status().message()));
    if (!opt.overwrite && !earlier->empty()) {
      std::string names;
      for (const std::string &name : *earlier)
        names += (names.empty() ? "" : ", ") + name;
      return usage(opt.out + " holds an earlier sweep (" + names +
                   "): --resume goes on with it, --overwrite replaces it, --ingest=" + opt.out +
                   " ingests a --build-only run's results, or give another --out");
    }
  }
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
  // The work: (kernel, dtype, shape) groups and their candidate points.
  struct Group {
    const zoo::Kernel *kernel;
    std::string dtype;
    zoo::Shape shape;
    std::vector<autotune::Point> points;
    /// A spec kernel's reference configurations, in order: the first that compiles checks the
    /// group's candidates (the space's first points, --where applied, before sharding).
    std::vector<autotune::Point> references = {};
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
    const zoo::TargetSpec spec = k->For(target.kind);
    std::vector<zoo::Shape> shapes;
    if (opt.shapes == "default")
      shapes = spec.defaultShapes;
    else if (opt.shapes == "large")
      shapes = spec.largeShapes;
    else
      for (const std::string &s : split(opt.shapes, ';')) {
        auto shape = zoo::ParseShape(*k, s);
        if (!shape.ok())
          return usage(std::string(shape.status().message()));
        shapes.push_back(*shape);
      }
    // --where may add a knob of the target's backend that the kernel's space does not vary.
    absl::StatusOr<autotune::Space> swept = withWhereKnobs(spec.space, opt.where, **backend);
    if (!swept.ok())
      return usage(k->name + ": " + std::string(swept.status().message()));
    absl::StatusOr<std::vector<autotune::Point>> kept =
        autotune::Restrict(*swept, swept->Enumerate(), opt.where);
    if (!kept.ok())
      return usage(k->name + ": " + std::string(kept.status().message()));
    const std::vector<autotune::Point> space =
        autotune::Shard(*kept, opt.shardIndex, opt.shardCount);
    for (const std::string &dtype : spec.dtypes) {
      if (!opt.dtypes.empty() && std::find(opt.dtypes.begin(), opt.dtypes.end(), dtype) == opt.dtypes.end())
        continue;
      for (const zoo::Shape &shape : shapes) {
        // Random: the points RandomSearch would evaluate, built in parallel below.
        groups.push_back({k, dtype, shape,
                          opt.strategy == "random"
                              ? autotune::RandomSample(space, opt.budget, seed)
                              : space});
        if (k->checkAgainstConfig)
          groups.back().references.assign(kept->begin(),
                                          kept->begin() + std::min<size_t>(kept->size(), 8));
      }
    }
  }

  // Appended to from here on, once the arguments are known to be good.
  auto writer = autotune::RecordWriter::Open(recordsPath);
  if (!writer.ok())
    return usage(std::string(writer.status().message()));

  // Artifacts are cached by everything that determines them (source, configuration, target,
  // compiler version): after an edit of the source or a new tessel, a resumed sweep rebuilds
  // what it puts in the bundle instead of shipping a stale object.
  std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  for (const zoo::Kernel *k : kernels)
    if (!k->inZoo) { // the zoo's: ReadZooSources (TESSEL_ZOO_DIR honoured)
      autotune::KernelSource s;
      s.path = k->source;
      s.readable = runtime::ReadWholeFile(k->source, s.text);
      sources[k->name] = s;
    }
  std::map<std::string, std::string> sourceSha256; // recorded with every candidate
  for (const auto &[name, source] : sources)
    if (source.readable)
      sourceSha256[name] = runtime::Sha256Hex(source.text);
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
    r.configJson = autotune::PointJson(p);
    r.compilerVersion = autotune::kCompilerVersion;
    r.host = thisHost;
    r.strategy = opt.strategy;
    if (auto it = sourceSha256.find(g.kernel->name); it != sourceSha256.end())
      r.sourceSha256 = it->second;
    r.specSha256 = g.kernel->specSha256;
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
  autotune::Builder builder(target, opt.out + "/artifacts-cache");
  if (target.kind != TargetKind::Cpu) {
    // GPU candidates are compiled by tessel-compile in child processes (LLVM aborts the process
    // on some errors): next to this binary's runfiles (bazel run) or given by TESSEL_COMPILE.
    std::string compiler =
        getenv("TESSEL_COMPILE") ? getenv("TESSEL_COMPILE") : "tools/tessel-compile";
    if (access(compiler.c_str(), X_OK) == 0)
      builder.setCompiler(compiler);
    else
      std::fprintf(stderr,
                   "sweep: no tessel-compile at %s (set TESSEL_COMPILE): compiling in this "
                   "process, where an LLVM abort would end the sweep\n",
                   compiler.c_str());
  }
  autotune::RunnerOptions runnerOptions;
  runnerOptions.bench = bench;
  runnerOptions.timeout = opt.timeout;
  runnerOptions.minTime = opt.minTime;
  runnerOptions.flush = opt.flush;
  runnerOptions.device = target.deviceKind();
  runnerOptions.target = target.str();
  if (opt.buildOnly) {
    // The runner reads the whole zoo's specs and sources in OUT/kernels/ (its working
    // directory), wherever OUT goes.
    if (absl::Status s = copyZoo(opt.out); !s.ok())
      return usage(std::string(s.message()));
    // The runner reads the specs' copies in OUT/specs/, wherever OUT goes.
    for (const zoo::Kernel *k : kernels)
      if (!k->inZoo) {
        std::string dir = opt.out + "/specs/" + k->name;
        std::error_code ec;
        fs::create_directories(dir, ec);
        std::string specCopy = dir + "/" + fs::path(k->specPath).filename().string();
        std::string sourceCopy = dir + "/" + fs::path(k->source).filename().string();
        if (ec || !fs::copy_file(k->specPath, specCopy, fs::copy_options::overwrite_existing, ec) ||
            !fs::copy_file(k->source, sourceCopy, fs::copy_options::overwrite_existing, ec))
          return usage("cannot copy " + k->name + "'s spec and source into " + dir + ": " +
                       ec.message());
        runnerOptions.specSources[k->name] = {
            "specs/" + k->name + "/" + fs::path(k->specPath).filename().string(),
            "specs/" + k->name + "/" + fs::path(k->source).filename().string()};
      }
  }
  autotune::Runner runner(runnerOptions);
  // A spec group's reference: the first of its reference configurations that compiles (its
  // artifact and point), or nothing (candidates are then recorded as errors by tessel-bench).
  std::map<std::string, std::pair<std::string, autotune::Point>> referenceOf;
  auto withReference = [&](const Group &g, autotune::Candidate c) {
    if (g.references.empty())
      return c;
    std::string key = g.kernel->name + "/" + g.dtype + "/" + zoo::ShapeText(g.shape);
    auto it = referenceOf.find(key);
    if (it == referenceOf.end()) {
      std::pair<std::string, autotune::Point> ref;
      for (const autotune::Point &p : g.references) {
        autotune::Built b = builder.Build({g.kernel, g.dtype, g.shape, p}, sources.at(g.kernel->name));
        if (b.artifact.ok()) {
          ref = {*b.artifact, p};
          break;
        }
      }
      it = referenceOf.emplace(key, ref).first;
    }
    c.referenceArtifact = it->second.first;
    c.referencePoint = it->second.second;
    return c;
  };
  // Measures one built (or failed) candidate and appends its record.
  auto finish = [&](const autotune::Candidate &c, const autotune::Built &built) -> double {
    autotune::Record r = candidateRecord(Group{c.kernel, c.dtype, c.shape, {}}, c.point);
    r.compileSeconds = built.seconds;
    if (!built.artifact.ok()) {
      r.status = "compile_error";
      r.error = std::string(built.artifact.status().message());
    } else if (absl::StatusOr<autotune::Measurement> m = runner.Measure(c, *built.artifact);
               !m.ok()) {
      r.status = "crash";
      r.error = std::string(m.status().message());
    } else {
      autotune::RecordMeasurement(r, *m, *c.kernel);
    }
    r.timestamp = nowUtc();
    if (absl::Status s = (*writer)->Append(r); !s.ok())
      std::fprintf(stderr, "sweep: %s\n", std::string(s.message()).c_str());
    ++measured;
    std::string group = autotune::GroupOf(r);
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

  if (opt.buildOnly) {
    // The candidates and the runner's commands, for tessel-bench on the machine with the
    // device: OUT/candidates/ (artifacts), OUT/candidates.jsonl, OUT/run.sh (one tessel-bench
    // per candidate under a timeout; its JSON lines go to results.jsonl beside it).
    // The list and the script are written whole at the end, each renamed into place.
    fs::create_directories(opt.out + "/candidates");
    std::ostringstream list, script;
    script << "#!/bin/sh\n# Generated by sweep --build-only for " << target.str()
           << ". Usage: run.sh TESSEL_BENCH [I N]\n"
           << "# I N: measure the groups (kernel, dtype, shape) whose index is I modulo N, into\n"
           << "# results.I.jsonl (one worker a device: see the pack's run); default 0 1, into\n"
           << "# results.jsonl.\n"
           << "cd \"$(dirname \"$0\")\"\nI=${2:-0} N=${3:-1} R=results.jsonl\n"
           << "[ \"$N\" -gt 1 ] && R=results.$I.jsonl\n";
    // tessel-bench ("$1") with `args`, under the timeout, its output appended to results.
    auto benchLine = [&](const std::vector<std::string> &args) {
      std::string line = "timeout " + std::to_string(int(opt.timeout)) + " \"$1\"";
      for (const std::string &a : args) {
        std::string quoted = "'";
        for (char c : a)
          quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += " " + quoted + "'";
      }
      return line + " >> \"$R\" 2>&1";
    };
    size_t built = 0, failed = 0;
    for (const Group &g : groups) {
      script << "if [ $((" << (&g - groups.data()) << " % N)) -eq \"$I\" ]; then\n:\n";
      // The group's baseline (a device copy of the same bytes for memory-bound kernels, cuBLAS
      // for a product of M x K and K x N), timed the same way in the same run, before the
      // candidates: a run cut short still has it.
      bool gemm = g.kernel->gemmDims ||
                  (g.shape.count("M") && g.shape.count("N") && g.shape.count("K"));
      if ((!g.kernel->flopBound || gemm) && !g.kernel->noBaseline)
        script << "printf '{\"baseline\": \"" << g.kernel->name << " " << g.dtype << " "
               << zoo::ShapeText(g.shape) << "\"}\\n' >> \"$R\"\n"
               << benchLine(runner.BaselineArgs(*g.kernel, g.dtype, g.shape)) << "\n";
      std::vector<autotune::Candidate> todo;
      for (const autotune::Point &p : g.points)
        todo.push_back(withReference(g, {g.kernel, g.dtype, g.shape, p}));
      // The reference's artifact travels with the candidates.
      if (!todo.empty() && !todo[0].referenceArtifact.empty()) {
        std::string name = "candidates/reference-" + std::to_string(&g - groups.data()) + ".artifact";
        std::error_code ec;
        fs::copy_file(todo[0].referenceArtifact, opt.out + "/" + name,
                      fs::copy_options::overwrite_existing, ec);
        for (autotune::Candidate &c : todo)
          c.referenceArtifact = name;
      }
      std::vector<autotune::Built> results = builder.BuildAll(todo, sources, outOfTime);
      for (size_t i = 0; i < todo.size(); ++i) {
        nlohmann::json line = {{"kernel", g.kernel->name},
                               {"dtype", g.dtype},
                               {"shape", zoo::ShapeText(g.shape)},
                               {"config", nlohmann::json::parse(autotune::PointJson(todo[i].point))},
                               {"target", target.str()}};
        if (!results[i].artifact.ok()) {
          ++failed;
          line["status"] = "compile_error";
          line["error"] = std::string(results[i].artifact.status().message());
          std::printf("sweep: %s %s %s %s: %s\n", g.kernel->name.c_str(), g.dtype.c_str(),
                      zoo::ShapeText(g.shape).c_str(), autotune::PointJson(todo[i].point).c_str(),
                      line["error"].get<std::string>().c_str());
        } else {
          ++built;
          std::string name = "candidates/" + std::to_string(built) + ".artifact";
          fs::copy_file(*results[i].artifact, opt.out + "/" + name,
                        fs::copy_options::overwrite_existing);
          line["artifact"] = name;
          line["status"] = "built";
          script << "printf '{\"candidate\": " << built << "}\\n' >> \"$R\"\n"
                 << benchLine(runner.MeasureArgs(todo[i], name))
                 << " || echo '{\"status\": \"crash\", \"candidate\": " << built
                 << "}' >> \"$R\"\n";
        }
        list << line.dump() << "\n";
      }
      script << "fi\n";
    }
    for (auto [name, text] : {std::pair{"/candidates.jsonl", &list}, {"/run.sh", &script}})
      if (absl::Status s = runtime::WriteFileAtomically(opt.out + name, text->str()); !s.ok()) {
        std::fprintf(stderr, "sweep: %s\n", std::string(s.message()).c_str());
        return 1;
      }
    std::printf("sweep: built %zu candidates for %s (%zu did not compile) in %s: "
                "candidates.jsonl, run.sh\n",
                built, target.str().c_str(), failed, opt.out.c_str());
    if (!opt.pack.empty()) {
      if (absl::Status s = writePack(opt.out, target); !s.ok()) {
        std::fprintf(stderr, "sweep: --pack: %s\n", std::string(s.message()).c_str());
        return 1;
      }
      std::printf("sweep: on the GPU host: %s/run [--devices=all|0,1,...]; then here: sweep "
                  "--ingest=%s\n",
                  opt.out.c_str(), opt.out.c_str());
    }
    return failed && !built ? 1 : 0;
  }

  for (const Group &g : groups) {
    if (opt.strategy == "evolutionary") {
      // Each result chooses the next point: built and measured one at a time.
      auto objective = [&](const autotune::Point &p) {
        if (auto it = done.find(candidateRecord(g, p).key()); it != done.end())
          return it->second; // measured in an earlier run
        if (outOfTime())
          return std::numeric_limits<double>::infinity();
        autotune::Candidate c = withReference(g, {g.kernel, g.dtype, g.shape, p});
        return finish(c, builder.Build(c, sources.at(g.kernel->name)));
      };
      const zoo::TargetSpec spec = g.kernel->For(target.kind);
      autotune::EvolutionarySearch(spec.space, g.points, objective, opt.budget, seed);
      continue;
    }
    // Builder: the group's candidates in parallel; runner: measured one by one.
    std::vector<autotune::Candidate> todo;
    for (const autotune::Point &p : g.points)
      if (!done.count(candidateRecord(g, p).key()))
        todo.push_back(withReference(g, {g.kernel, g.dtype, g.shape, p}));
    std::vector<autotune::Built> built = builder.BuildAll(todo, sources, outOfTime);
    for (size_t i = 0; i < todo.size() && !outOfTime(); ++i)
      if (!absl::IsDeadlineExceeded(built[i].artifact.status()))
        finish(todo[i], built[i]);
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
  absl::StatusOr<size_t> entries = writeOutputs(
      opt.out, *records, host,
      // The reference baseline, timed now the same way as the candidates.
      [&](const zoo::Kernel &k, const autotune::Record &r) {
        if (k.noBaseline)
          return 0.0;
        absl::StatusOr<autotune::Measurement> b = runner.MeasureBaseline(k, r.dtype, r.shape);
        return b.ok() && b->status == "ok" ? b->medianSeconds : 0.0;
      },
      // The cached artifact (built again if a resumed record's is gone).
      [&](const zoo::Kernel &k, const autotune::Record &r, const autotune::Point &p) {
        return builder.Build({&k, r.dtype, r.shape, p}, sources.at(k.name)).artifact;
      });
  if (!entries.ok()) {
    std::fprintf(stderr, "sweep: %s\n", std::string(entries.status().message()).c_str());
    return 1;
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nsweep: %zu measured in %.0f s; records %s, benchmark JSON %s/benchmark.json, "
              "bundle %s/bundle (%zu entries)\n",
              measured, elapsed, recordsPath.c_str(), opt.out.c_str(), opt.out.c_str(),
              *entries);
  return 0;
}
