//===- HtmlReport.h - autotune report: one self-contained HTML page of sweeps -*- C++ -*-===//
//
// From one or more sweep output directories (records.jsonl, and benchmark.json for the
// baselines), ordered by when they ran, the newest being the current one: per kernel, the best
// configuration per shape; a roofline view (the achieved rate next to the baseline's and the
// best baseline rate measured on the machine, the "measured peak"); the configuration space as a
// heat map per shape (the two knobs that vary most, coloured by time, failures marked); the
// search's progress (best so far against evaluations, per sweep and strategy); and, with several
// sweeps, each benchmark's trend with regressions (autotune compare's verdict against the sweep
// before) marked. Charts are Chart.js (Debian's libjs-chart.js) inlined into the page: no
// network.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_DASHBOARD_HTMLREPORT_H
#define TESSEL_AUTOTUNE_DASHBOARD_HTMLREPORT_H

#include "autotune/Records.h"

#include "absl/status/statusor.h"

#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

/// One sweep's output directory.
struct SweepRun {
  std::string path, label; ///< label: the directory's name
  std::string startedAt;   ///< the earliest record's timestamp
  std::vector<Record> records;
  std::map<std::string, double> baselineSeconds; ///< by benchmark id (from benchmark.json)
};

/// Reads DIR/records.jsonl (required) and DIR/benchmark.json (optional).
absl::StatusOr<SweepRun> ReadSweepRun(const std::string &dir);

/// Where Debian's libjs-chart.js puts Chart.js.
inline constexpr const char *kDefaultChartJs = "/usr/share/javascript/chart.js/chart.min.js";

/// The page for `runs` (any order: sorted by start time here), with `chartJs` (the library's
/// source) inlined.
std::string RenderHtmlReport(std::vector<SweepRun> runs, const std::string &chartJs);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_DASHBOARD_HTMLREPORT_H
