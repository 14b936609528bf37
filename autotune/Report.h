//===- Report.h - what a sweep found: summary table, benchmark JSON, bundle entries -*- C++ -*-===//
//
// From a sweep's records (this run's and earlier ones'): the best ok record per kernel, dtype
// and shape with its baseline, printed as a table; the same in Google Benchmark's JSON format,
// which dashboards ingest; and the bundle entry of each best record (its configuration with
// the constexprs the kernel sees, and the dimensions its artifact serves).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_REPORT_H
#define TESSEL_AUTOTUNE_REPORT_H

#include "autotune/BundleWriter.h"
#include "autotune/Records.h"
#include "autotune/space/Space.h"
#include "kernels/Zoo.h"

#include "nlohmann/json.hpp"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

/// When two ok records of a group count as equally fast. percent > 0: medians within that many
/// percent of the fastest's; 0: not told apart by the Mann-Whitney U test on their samples at
/// `alpha` (compare's test), and with too few samples for the test, within 1%.
struct TieRule {
  double percent = 0;
  double alpha = 0.05;
};

/// One kernel/dtype/shape group of a sweep.
struct GroupSummary {
  std::string group; ///< "kernel dtype shape"
  /// The winner: among the records tied with the fastest ok one (TieRule), the one with the
  /// fewest warps, then stages, then the smallest BLOCK* product, then the lowest canonical
  /// configuration text (docs/autotuning.md#ties); null when none succeeded.
  const Record *best = nullptr;
  std::vector<const Record *> ties; ///< the tie set, winner first (just the winner: no tie)
  int tried = 0, failed = 0;
  double baselineSeconds = 0; ///< the reference baseline's median; 0: not measured
};

/// "kernel dtype K=..,M=..": the group of a record.
std::string GroupOf(const Record &record);

/// The groups of `records` in name order, each with its best record and tie set (pointers into
/// `records`).
std::vector<GroupSummary> Summarize(const std::vector<Record> &records, const TieRule &rule = {});

/// The summary table: best configuration, time, rate, percentage of the baseline's rate.
void PrintSummaryTable(std::FILE *out, const std::vector<GroupSummary> &groups);

/// Google Benchmark's JSON: per group with a best record, named by its benchmark id, one
/// iteration entry per repetition of the best record and the mean, median and stddev
/// aggregates (the median carries rates, baseline, config and artifact hash).
nlohmann::json GoogleBenchmarkJson(const std::vector<GroupSummary> &groups,
                                   const std::string &date, const std::string &host);

/// For each dimension of `kernel`, the values for which its constexprs under `p` (what is
/// compiled into the artifact) stay those of `shape`: the shapes the artifact computes
/// correctly. Dimensions that change nothing are left out.
std::map<std::string, std::pair<int64_t, int64_t>>
ServedRanges(const zoo::Kernel &kernel, const Point &p, const zoo::Shape &shape);

/// The bundle entry of `best` (a record of `kernel` at configuration `p`) with its artifact.
TunedEntry TunedEntryFor(const zoo::Kernel &kernel, const Record &best, const Point &p,
                         const std::string &artifact);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_REPORT_H
