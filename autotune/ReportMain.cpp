//===- ReportMain.cpp - bazel run //autotune:report -- DIR... -o report.html -*- C++ -*-===//
//
// report DIR... -o OUT.html [--chartjs=PATH]
//
// One self-contained HTML page (HtmlReport.h) from sweep output directories; the newest is
// the current sweep, the others give the trend. Chart.js is read from Debian's libjs-chart.js
// (or --chartjs) and inlined: the page needs no network. Written atomically. Exit status 2 on
// bad arguments or unreadable input.
//
//===----------------------------------------------------------------------===//

#include "autotune/dashboard/HtmlReport.h"
#include "runtime/Files.h"

#include <cstdio>
#include <optional>

#include "tools/cli/Cli.h"

using namespace tessel;

static int usage(const std::string &message) {
  std::fprintf(stderr, "report: %s\nusage: report DIR... -o OUT.html [--chartjs=PATH]\n",
               message.c_str());
  return 2;
}

int main(int argc, char **argv) {
  std::string output, chartJsPath = autotune::kDefaultChartJs;
  std::vector<std::string> dirs;
  tessel::cli::Command c("report", "Renders sweeps' records as one HTML page (Chart.js inlined).");
  c.Positionals("DIR", &dirs, "Sweep output directories");
  c.Text("-o,--output", &output, "The HTML file to write", "OUT.html");
  c.Text("--chartjs", &chartJsPath, "Chart.js to inline", "PATH");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  if (dirs.empty())
    return usage("no sweep directory given");
  if (output.empty())
    return usage("-o OUT.html is required");
  std::string chartJs;
  if (!runtime::ReadWholeFile(chartJsPath, chartJs) || chartJs.empty())
    return usage("cannot read Chart.js at " + chartJsPath +
                 " (tools/setup.sh installs Debian's libjs-chart.js; or pass --chartjs=PATH)");
  std::vector<autotune::SweepRun> runs;
  for (const std::string &dir : dirs) {
    absl::StatusOr<autotune::SweepRun> run = autotune::ReadSweepRun(dir);
    if (!run.ok())
      return usage(std::string(run.status().message()));
    runs.push_back(*std::move(run));
  }
  size_t records = 0;
  for (const autotune::SweepRun &r : runs)
    records += r.records.size();
  if (absl::Status s =
          runtime::WriteFileAtomically(output, autotune::RenderHtmlReport(runs, chartJs));
      !s.ok())
    return usage(std::string(s.message()));
  std::printf("report: %zu sweeps, %zu records -> %s\n", runs.size(), records, output.c_str());
  return 0;
}
