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

using namespace tessel;

static int usage(const std::string &message) {
  std::fprintf(stderr, "report: %s\nusage: report DIR... -o OUT.html [--chartjs=PATH]\n",
               message.c_str());
  return 2;
}

int main(int argc, char **argv) {
  std::string output, chartJsPath = autotune::kDefaultChartJs;
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-o" || a == "--output") {
      if (i + 1 >= argc)
        return usage(a + " needs a file name");
      output = argv[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.rfind("--chartjs=", 0) == 0) {
      chartJsPath = a.substr(10);
    } else if (a.rfind("-", 0) == 0) {
      return usage("unknown flag " + a);
    } else {
      dirs.push_back(a);
    }
  }
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
