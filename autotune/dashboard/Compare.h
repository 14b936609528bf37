//===- Compare.h - autotune compare: two sweeps, benchmark by benchmark -*- C++ -*-===//
//
// Reads each side from a sweep's output directory (its records.jsonl), a records file, or a
// Google Benchmark JSON file (tessel's benchmark.json or any other tool's). Per benchmark id
// (kernel/dtype/shape/target for records; the benchmark's name for Google Benchmark JSON) it
// takes the best successful measurement of each side, compares the medians and runs a
// Mann-Whitney U test on the raw repetition times, and gives a verdict:
//   faster / slower — the change is beyond the threshold and the test says it is real;
//   same            — the change is within the threshold;
//   noise           — beyond the threshold, but the test cannot tell it from noise;
//   too_few_samples — beyond the threshold, and too few repetitions for the test (said, not
//                     guessed);
//   drift           — faster or slower by the test, but the same artifact (sha256) ran on both
//                     sides: the machine changed, not the code (LNT's rule);
//   failed          — measured on the base side, no successful measurement on the new one.
// slower and failed are regressions.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_DASHBOARD_COMPARE_H
#define TESSEL_AUTOTUNE_DASHBOARD_COMPARE_H

#include "autotune/Records.h"
#include "autotune/dashboard/Stats.h"

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

/// One benchmark of one side: its best successful measurement (ok = false: none succeeded).
struct Benchmark {
  std::string id;
  bool ok = false;
  double medianSeconds = 0;
  std::vector<double> samples;
  std::string artifactSha256, configJson, timestamp;
};

/// The benchmarks of `records` by id: each one's best successful record.
std::map<std::string, Benchmark> BenchmarksOf(const std::vector<Record> &records);

/// The benchmarks of a sweep directory, a records file or a Google Benchmark JSON file, by id.
absl::StatusOr<std::map<std::string, Benchmark>> LoadBenchmarks(const std::string &path);

struct CompareOptions {
  double thresholdPercent = 5; ///< changes smaller than this are "same"
  double alpha = 0.05;         ///< significance level of the U test
};

struct Comparison {
  std::string id;
  Benchmark base, next;
  double changePercent = 0; ///< (new - base) / base median, in percent
  UTest test;
  std::string verdict; ///< faster, slower, same, noise, too_few_samples, drift, failed
  bool artifactChanged = false, configChanged = false;
  bool regression() const { return verdict == "slower" || verdict == "failed"; }
};

struct CompareResult {
  std::vector<Comparison> rows; ///< benchmarks on both sides, in id order
  std::vector<std::string> onlyInBase, onlyInNew;
  int regressions = 0;
};

CompareResult Compare(const std::map<std::string, Benchmark> &base,
                      const std::map<std::string, Benchmark> &next,
                      const CompareOptions &options);

void PrintComparison(std::FILE *out, const CompareResult &result, const CompareOptions &options);
nlohmann::json ComparisonJson(const CompareResult &result, const CompareOptions &options);

/// "5%", "5" or "0.5%": a percentage.
absl::StatusOr<double> ParsePercent(const std::string &text);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_DASHBOARD_COMPARE_H
