//===- CompareMain.cpp - bazel run //autotune:compare -- BASE NEW -*- C++ -*-===//
//
// compare [--threshold=5%] [--alpha=0.05] [--json] BASE NEW
//
// BASE and NEW: sweep output directories, records files or Google Benchmark JSON files. Prints
// per benchmark the medians, the change, the U test's p-value and a verdict (Compare.h), then
// the benchmarks found on one side only. Exit status: 0 no regression, 1 a benchmark regressed
// beyond the threshold (slower, or failed where it was measured before), 2 bad arguments or
// unreadable input.
//
//===----------------------------------------------------------------------===//

#include "autotune/dashboard/Compare.h"

#include <cstdio>
#include <optional>

#include "tools/cli/Cli.h"
#include <cstdlib>

using namespace tessel::autotune;

static int usage(const std::string &message) {
  std::fprintf(stderr, "compare: %s\nusage: compare [--threshold=5%%] [--alpha=0.05] [--json] "
                       "BASE NEW (sweep directories, records files or Google Benchmark JSON)\n",
               message.c_str());
  return 2;
}

int main(int argc, char **argv) {
  CompareOptions options;
  bool asJson = false;
  std::vector<std::string> paths;
  std::string threshold = "5%";
  tessel::cli::Command c("compare", "Compares two sweeps (directories, records files or Google "
                                    "Benchmark JSON); exit status 1 on a regression.");
  c.Positionals("BASE NEW", &paths, "The two sides");
  c.Text("--threshold", &threshold, "A slowdown past this is a regression", "PERCENT");
  c.Number("--alpha", &options.alpha, 1e-9, 1 - 1e-9,
           "The Mann-Whitney U test's significance level");
  c.Flag("--json", &asJson, "Print JSON");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  {
    absl::StatusOr<double> t = ParsePercent(threshold);
    if (!t.ok())
      return usage("--threshold: " + std::string(t.status().message()));
    options.thresholdPercent = *t;
  }
  if (paths.size() != 2)
    return usage("two inputs are needed, BASE and NEW");
  std::map<std::string, Benchmark> sides[2];
  for (int s = 0; s < 2; ++s) {
    absl::StatusOr<std::map<std::string, Benchmark>> loaded = LoadBenchmarks(paths[s]);
    if (!loaded.ok())
      return usage(std::string(loaded.status().message()));
    sides[s] = *std::move(loaded);
  }
  CompareResult result = Compare(sides[0], sides[1], options);
  if (asJson)
    std::printf("%s\n", ComparisonJson(result, options).dump(2).c_str());
  else
    PrintComparison(stdout, result, options);
  return result.regressions ? 1 : 0;
}
