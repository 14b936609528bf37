//===- TesselBench.cpp - the runner: measures one compiled candidate -*- C++ -*-===//
//
// tessel-bench --kernel NAME --shape DIM=N,... --dtype DT --so PATH --config JSON
//              [--min-time SECONDS] [--seed N]
//
// Links the runtime and the zoo only (no compiler), so a candidate can be measured on another
// machine than the one that built it. Validates the candidate against the zoo's C++ reference on
// fresh random inputs with poisoned outputs, then times it: one warm-up launch, then launches
// until --min-time has passed (at least 5, at most 1000), and prints one JSON object:
//   {"status": "ok" | "mismatch", "median_seconds": ..., "min_seconds": ..., "max_seconds": ...,
//    "repetitions": N, "error": "..."}
// Exit status 0 when it measured or found a mismatch, 2 on bad arguments or a candidate that
// cannot be loaded.
//
//===----------------------------------------------------------------------===//

#include "kernels/Zoo.h"
#include "runtime/Module.h"

#include "nlohmann/json.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

using namespace tessel;

static int fail(const std::string &message) {
  std::fprintf(stderr, "tessel-bench: %s\n", message.c_str());
  return 2;
}

int main(int argc, char **argv) {
  std::map<std::string, std::string> flags = {{"min-time", "0.2"}, {"seed", ""}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || i + 1 >= argc)
      return fail("usage: tessel-bench --kernel K --shape S --dtype D --so PATH --config JSON "
                  "[--min-time S] [--seed N]");
    flags[a.substr(2)] = argv[++i];
  }
  for (const char *required : {"kernel", "shape", "dtype", "so", "config"})
    if (!flags.count(required))
      return fail(std::string("--") + required + " is required");
  const zoo::Kernel *kernel = zoo::Find(flags["kernel"]);
  if (!kernel)
    return fail("no zoo kernel named '" + flags["kernel"] + "'");
  absl::StatusOr<zoo::Shape> shape = zoo::ParseShape(*kernel, flags["shape"]);
  if (!shape.ok())
    return fail(std::string(shape.status().message()));
  nlohmann::json config = nlohmann::json::parse(flags["config"], nullptr, false);
  if (config.is_discarded() || !config.is_object())
    return fail("--config is not a JSON object");
  autotune::Point point;
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (!it.value().is_number_integer())
      return fail("--config values must be integers");
    point[it.key()] = it.value().get<int64_t>();
  }
  double minTime = std::atof(flags["min-time"].c_str());
  uint64_t seed = flags["seed"].empty() ? std::random_device{}() : std::strtoull(flags["seed"].c_str(), nullptr, 10);

  absl::StatusOr<std::unique_ptr<runtime::Module>> module = runtime::Module::Open(flags["so"]);
  if (!module.ok())
    return fail(std::string(module.status().message()));
  absl::StatusOr<runtime::Kernel> k = (*module)->GetKernel(kernel->entry);
  if (!k.ok())
    return fail(std::string(k.status().message()));

  runtime::ThreadPool pool(0);
  std::unique_ptr<zoo::Problem> problem = kernel->makeProblem(*shape, flags["dtype"], seed);
  runtime::Grid grid = problem->GridFor(point);
  nlohmann::json out;
  problem->Poison();
  absl::Status launched = runtime::Launch(*k, grid, problem->Args(), pool);
  if (!launched.ok())
    return fail(std::string(launched.message()));
  if (absl::Status check = problem->Check(); !check.ok()) {
    out["status"] = "mismatch";
    out["error"] = std::string(check.message());
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  std::vector<double> times;
  auto start = std::chrono::steady_clock::now();
  while (times.size() < 1000 &&
         (times.size() < 5 ||
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < minTime)) {
    auto t0 = std::chrono::steady_clock::now();
    (void)runtime::Launch(*k, grid, problem->Args(), pool);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  out["status"] = "ok";
  out["median_seconds"] = times[times.size() / 2];
  out["min_seconds"] = times.front();
  out["max_seconds"] = times.back();
  out["repetitions"] = times.size();
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
