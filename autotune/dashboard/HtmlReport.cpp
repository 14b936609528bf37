//===- HtmlReport.cpp - autotune report: one self-contained HTML page of sweeps -*- C++ -*-===//

#include "autotune/dashboard/HtmlReport.h"
#include "autotune/dashboard/Compare.h"
#include "kernels/Zoo.h"
#include "runtime/Files.h"
#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

namespace tessel::autotune {
namespace {

using nlohmann::json;

std::string escapeHtml(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

/// JSON safe inside <script>: "</" never appears (JSON allows "\/").
std::string scriptJson(const json &j) {
  std::string text = j.dump();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/')
      out += "\\";
  }
  return out;
}

bool flopBound(const std::string &kernel) {
  const zoo::Kernel *k = zoo::Find(kernel);
  return k && k->flopBound;
}

/// The rate a dashboard plots for a record: GFLOP/s (compute-bound) or GB/s.
double rateOf(const Record &r) { return flopBound(r.kernel) ? r.tflops * 1e3 : r.gbps; }
const char *rateUnit(const std::string &kernel) {
  return flopBound(kernel) ? "GFLOP/s" : "GB/s";
}

/// "dtype shape target": a benchmark within its kernel.
std::string caseOf(const Record &r) {
  std::string id = r.benchmarkId();
  return id.substr(r.kernel.size() + 1);
}

/// Green (fastest) to red (slowest) on a log scale of time.
std::string heatColor(double seconds, double fastest, double slowest) {
  double x = slowest > fastest ? std::log(seconds / fastest) / std::log(slowest / fastest) : 0;
  char color[48];
  std::snprintf(color, sizeof color, "hsl(%d, 75%%, 45%%)", int(std::lround(120 * (1 - x))));
  return color;
}

/// The knobs of a group's configurations, the ones with the most distinct values first
/// (BLOCK_* first among equals): the heat map's axes.
std::vector<std::string> axesOf(const std::vector<const Record *> &records) {
  std::map<std::string, std::set<std::string>> values;
  for (const Record *r : records) {
    json config = json::parse(r->configJson, nullptr, false);
    if (config.is_object())
      for (auto it = config.begin(); it != config.end(); ++it)
        values[it.key()].insert(it.value().dump());
  }
  std::vector<std::string> names;
  for (const auto &[name, v] : values)
    names.push_back(name);
  std::stable_sort(names.begin(), names.end(), [&](const std::string &a, const std::string &b) {
    size_t va = values[a].size(), vb = values[b].size();
    if (va != vb)
      return va > vb;
    return (a.rfind("BLOCK", 0) == 0) > (b.rfind("BLOCK", 0) == 0);
  });
  return names;
}

/// Category labels of one knob, numbers in numeric order.
std::vector<std::string> sortedLabels(std::set<std::string> labels) {
  std::vector<std::string> out(labels.begin(), labels.end());
  std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
    char *ea = nullptr, *eb = nullptr;
    double da = std::strtod(a.c_str(), &ea), db = std::strtod(b.c_str(), &eb);
    bool na = !a.empty() && *ea == '\0', nb = !b.empty() && *eb == '\0';
    if (na && nb)
      return da < db;
    return na != nb ? na : a < b;
  });
  return out;
}

std::string knobValue(const Record &r, const std::string &knob) {
  if (knob.empty())
    return "-";
  json config = json::parse(r.configJson, nullptr, false);
  if (!config.is_object() || !config.contains(knob))
    return "-";
  return config[knob].is_string() ? config[knob].get<std::string>() : config[knob].dump();
}

class Page {
public:
  /// A chart: its canvas and its Chart.js configuration.
  void chart(const std::string &title, json config, const std::string &note = "") {
    std::string id = "chart" + std::to_string(specs_.size());
    config["options"]["plugins"]["title"] = {{"display", true}, {"text", title}};
    config["options"]["maintainAspectRatio"] = false;
    body_ += "<div class=\"chart\"><canvas id=\"" + id + "\"></canvas></div>\n";
    if (!note.empty())
      body_ += "<p class=\"note\">" + escapeHtml(note) + "</p>\n";
    specs_.push_back({{"id", id}, {"config", config}});
  }
  void html(const std::string &text) { body_ += text; }
  std::string render(const std::string &chartJs, const std::string &heading) const {
    std::string library = chartJs;
    for (size_t at = 0; (at = library.find("</script", at)) != std::string::npos; at += 2)
      library.replace(at, 2, "<\\/");
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" +
           escapeHtml(heading) + "</title>\n<style>" + kStyle + "</style>\n<script>" + library +
           "</script>\n</head><body>\n<h1>" + escapeHtml(heading) + "</h1>\n" + body_ +
           "<script>\nconst SPECS = " + scriptJson(specs_) + ";\n" + kScript + "</script>\n" +
           "</body></html>\n";
  }

private:
  static constexpr const char *kStyle =
      "body{font-family:sans-serif;margin:24px;color:#222}"
      "table{border-collapse:collapse;margin:8px 0 16px}"
      "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}"
      "th{background:#f0f0f0}.chart{position:relative;height:320px;max-width:1100px;"
      "margin:12px 0}.note{color:#555;font-size:12px;margin:0 0 12px}"
      "h2{border-bottom:2px solid #444;margin-top:40px}code{font-size:12px}";
  // Builds every chart, then writes what a test checks into the body's data attributes:
  // how many charts were made, how many had no data, and how many errors happened.
  static constexpr const char *kScript = R"JS(
let errors = 0;
window.addEventListener('error', () => { errors++; document.body.dataset.errors = errors; });
const consoleError = console.error;
console.error = (...args) => { errors++; document.body.dataset.errors = errors; consoleError(...args); };
Chart.defaults.animation = false;
Chart.defaults.plugins.tooltip.callbacks.label = (ctx) =>
  (ctx.raw && ctx.raw.tip) || ((ctx.dataset.label || '') + ': ' + ctx.formattedValue);
let made = 0, empty = 0;
for (const spec of SPECS) {
  try {
    const chart = new Chart(document.getElementById(spec.id), spec.config);
    const points = chart.data.datasets.reduce((n, d) => n + d.data.length, 0);
    if (points === 0) empty++;
    made++;
  } catch (e) {
    errors++;
    consoleError(e);
  }
}
document.body.dataset.charts = made;
document.body.dataset.emptyCharts = empty;
document.body.dataset.errors = errors;
document.body.dataset.ready = 'yes';
)JS";
  std::string body_;
  json specs_ = json::array();
};

json lineDataset(const std::string &label, json data, const std::string &color) {
  return {{"label", label}, {"data", data}, {"borderColor", color}, {"backgroundColor", color},
          {"fill", false}, {"tension", 0}, {"pointRadius", 3}};
}

const char *kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                          "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

} // namespace

absl::StatusOr<SweepRun> ReadSweepRun(const std::string &dir) {
  SweepRun run;
  run.path = dir;
  run.label = std::filesystem::path(dir).lexically_normal().filename().string();
  if (run.label.empty())
    run.label = std::filesystem::path(dir).lexically_normal().parent_path().filename().string();
  std::string recordsPath = dir + "/records.jsonl";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec) || !std::filesystem::exists(recordsPath, ec))
    return absl::NotFoundError(dir + " is not a sweep's output directory (no records.jsonl)");
  std::string warning;
  absl::StatusOr<std::vector<Record>> records = ReadRecords(recordsPath, &warning);
  if (!records.ok())
    return records.status();
  if (!warning.empty())
    std::fprintf(stderr, "report: %s\n", warning.c_str());
  if (records->empty())
    return absl::InvalidArgumentError(recordsPath + " holds no records");
  run.records = *std::move(records);
  run.startedAt = run.records.front().timestamp;
  for (const Record &r : run.records)
    run.startedAt = std::min(run.startedAt, r.timestamp);
  // Baselines from benchmark.json (written at the end of a sweep; absent if it was cut off).
  std::string text;
  if (runtime::ReadWholeFile(dir + "/benchmark.json", text)) {
    if (std::string why = JsonNestingProblem(text); !why.empty())
      return absl::InvalidArgumentError(dir + "/benchmark.json: " + why);
    json gb = json::parse(text, nullptr, false);
    if (gb.is_discarded() || !gb.is_object() || !gb.contains("benchmarks") ||
        !gb["benchmarks"].is_array())
      return absl::InvalidArgumentError(dir + "/benchmark.json is not Google Benchmark JSON");
    for (const json &e : gb["benchmarks"])
      if (e.is_object() && e.contains("aggregate_name") && e["aggregate_name"] == "median" &&
          e.contains("run_name") && e["run_name"].is_string() &&
          e.contains("baseline_seconds") && e["baseline_seconds"].is_number() &&
          e["baseline_seconds"].get<double>() > 0)
        run.baselineSeconds[e["run_name"].get<std::string>()] = e["baseline_seconds"].get<double>();
  }
  return run;
}

std::string RenderHtmlReport(std::vector<SweepRun> runs, const std::string &chartJs) {
  std::stable_sort(runs.begin(), runs.end(), [](const SweepRun &a, const SweepRun &b) {
    return a.startedAt < b.startedAt;
  });
  const SweepRun &current = runs.back();
  Page page;
  std::string heading = "tessel sweep report: " + current.label;
  {
    std::string list;
    for (const SweepRun &run : runs)
      list += "<li><code>" + escapeHtml(run.path) + "</code>: " +
              std::to_string(run.records.size()) + " records from " + escapeHtml(run.startedAt) +
              "</li>";
    page.html("<p>Sweeps, oldest first (the last is the current one):</p><ul>" + list + "</ul>\n");
  }

  // The measured peak per metric: the best baseline rate of the current sweep.
  std::map<bool, double> peak; // flop-bound -> rate
  std::map<std::string, const Record *> anyRecordOf; // benchmark id -> a record (for its work)
  for (const Record &r : current.records)
    if (r.status == "ok" && r.medianSeconds > 0)
      anyRecordOf[r.benchmarkId()] = &r;
  auto baselineRate = [&](const std::string &id) -> double {
    auto b = current.baselineSeconds.find(id);
    auto r = anyRecordOf.find(id);
    if (b == current.baselineSeconds.end() || r == anyRecordOf.end())
      return 0;
    return rateOf(*r->second) * r->second->medianSeconds / b->second; // same work, its time
  };
  for (const auto &[id, seconds] : current.baselineSeconds)
    if (anyRecordOf.count(id)) {
      bool flops = flopBound(anyRecordOf[id]->kernel);
      peak[flops] = std::max(peak[flops], baselineRate(id));
    }

  std::set<std::string> kernels;
  for (const SweepRun &run : runs)
    for (const Record &r : run.records)
      kernels.insert(r.kernel);

  for (const std::string &kernel : kernels) {
    page.html("<h2>" + escapeHtml(kernel) + "</h2>\n");
    const std::string unit = rateUnit(kernel);
    // The current sweep's groups of this kernel.
    std::map<std::string, std::vector<const Record *>> groups;
    for (const Record &r : current.records)
      if (r.kernel == kernel)
        groups[caseOf(r)].push_back(&r);

    // Best configuration per shape.
    std::string table = "<table><tr><th>dtype / shape / target</th><th>best configuration</th>"
                        "<th>median</th><th>" + unit + "</th><th>vs baseline</th>"
                        "<th>tried / failed</th></tr>\n";
    json labels = json::array(), ours = json::array(), theirs = json::array(),
         peakLine = json::array();
    for (const auto &[name, records] : groups) {
      const Record *best = nullptr;
      int failed = 0;
      for (const Record *r : records) {
        failed += r->status != "ok";
        if (r->status == "ok" && (!best || r->medianSeconds < best->medianSeconds))
          best = r;
      }
      if (!best) {
        table += "<tr><td>" + escapeHtml(name) + "</td><td colspan=\"4\">none succeeded</td><td>" +
                 std::to_string(records.size()) + " / " + std::to_string(failed) + "</td></tr>\n";
        continue;
      }
      double base = baselineRate(best->benchmarkId());
      char cells[160];
      std::snprintf(cells, sizeof cells, "<td>%.4f ms</td><td>%.1f</td><td>%s</td>",
                    best->medianSeconds * 1e3, rateOf(*best),
                    base > 0 ? (std::to_string(int(std::lround(100 * rateOf(*best) / base))) + "%")
                                   .c_str()
                             : "-");
      table += "<tr><td>" + escapeHtml(name) + "</td><td><code>" + escapeHtml(best->configJson) +
               "</code></td>" + cells + "<td>" + std::to_string(records.size()) + " / " +
               std::to_string(failed) + "</td></tr>\n";
      labels.push_back(name);
      ours.push_back(rateOf(*best));
      theirs.push_back(base);
      peakLine.push_back(peak[flopBound(kernel)]);
    }
    page.html(table + "</table>\n");

    // Roofline view: achieved rate against the baseline's and the machine's measured peak.
    if (!labels.empty()) {
      json datasets = json::array();
      datasets.push_back({{"type", "bar"}, {"label", "tessel (best)"}, {"data", ours},
                          {"backgroundColor", "#1f77b4"}});
      bool haveBaseline = std::any_of(theirs.begin(), theirs.end(),
                                      [](const json &v) { return v.get<double>() > 0; });
      if (haveBaseline) {
        datasets.push_back({{"type", "bar"}, {"label", "baseline"}, {"data", theirs},
                            {"backgroundColor", "#aaaaaa"}});
        datasets.push_back({{"type", "line"}, {"label", "measured peak (best baseline rate)"},
                            {"data", peakLine}, {"borderColor", "#d62728"},
                            {"borderDash", {6, 4}}, {"pointStyle", "dash"}, {"pointRadius", 40},
                            {"pointBorderWidth", 3}, {"fill", false}});
      }
      page.chart(kernel + ": achieved " + unit + " against the baseline and the measured peak",
                 {{"type", "bar"},
                  {"data", {{"labels", labels}, {"datasets", datasets}}},
                  {"options", {{"scales", {{"y", {{"beginAtZero", true},
                                                  {"title", {{"display", true},
                                                             {"text", unit}}}}}}}}}},
                 haveBaseline ? "" : "No baseline in this sweep's benchmark.json.");
    }

    for (const auto &[name, records] : groups) {
      // The configuration space as a heat map: the two knobs that vary most.
      std::vector<std::string> axes = axesOf(records);
      std::string xKnob = axes.size() > 0 ? axes[0] : "", yKnob = axes.size() > 1 ? axes[1] : "";
      std::map<std::pair<std::string, std::string>, double> cell; // best time; inf: all failed
      std::set<std::string> xs, ys;
      double fastest = std::numeric_limits<double>::infinity(), slowest = 0;
      for (const Record *r : records) {
        std::pair<std::string, std::string> at{knobValue(*r, xKnob), knobValue(*r, yKnob)};
        xs.insert(at.first);
        ys.insert(at.second);
        double t = r->status == "ok" ? r->medianSeconds : std::numeric_limits<double>::infinity();
        auto it = cell.find(at);
        cell[at] = it == cell.end() ? t : std::min(it->second, t);
        if (std::isfinite(t)) {
          fastest = std::min(fastest, t);
          slowest = std::max(slowest, t);
        }
      }
      json measured = json::array(), failed = json::array(), colors = json::array();
      for (const auto &[at, t] : cell) {
        if (std::isfinite(t)) {
          char tip[96];
          std::snprintf(tip, sizeof tip, "%s=%s %s=%s: %.4f ms", xKnob.c_str(), at.first.c_str(),
                        yKnob.c_str(), at.second.c_str(), t * 1e3);
          measured.push_back({{"x", at.first}, {"y", at.second}, {"tip", tip}});
          colors.push_back(heatColor(t, fastest, slowest));
        } else {
          failed.push_back({{"x", at.first}, {"y", at.second},
                            {"tip", xKnob + "=" + at.first + " " + yKnob + "=" + at.second +
                                        ": failed"}});
        }
      }
      json datasets = json::array();
      datasets.push_back({{"label", "measured (green fastest, red slowest)"},
                          {"data", measured},
                          {"backgroundColor", colors},
                          {"pointStyle", "rect"},
                          {"pointRadius", 11},
                          {"pointHoverRadius", 13}});
      if (!failed.empty())
        datasets.push_back({{"label", "failed"}, {"data", failed}, {"pointStyle", "crossRot"},
                            {"pointRadius", 10}, {"borderColor", "#000000"},
                            {"borderWidth", 2}});
      char note[160] = "";
      if (std::isfinite(fastest))
        std::snprintf(note, sizeof note,
                      "Each cell: the best time of its configurations (%.4f ms green to %.4f ms "
                      "red, log scale).",
                      fastest * 1e3, slowest * 1e3);
      page.chart(kernel + " " + name + ": configuration space",
                 {{"type", "scatter"},
                  {"data", {{"datasets", datasets}}},
                  {"options",
                   {{"scales",
                     {{"x", {{"type", "category"}, {"labels", sortedLabels(xs)},
                             {"offset", true},
                             {"title", {{"display", true}, {"text", xKnob.empty() ? "-" : xKnob}}}}},
                      {"y", {{"type", "category"}, {"labels", sortedLabels(ys)},
                             {"offset", true}, {"reverse", true},
                             {"title", {{"display", true}, {"text", yKnob.empty() ? "-" : yKnob}}}}}}}}}},
                 note);

      // The search's progress: best so far against evaluations, per sweep (and strategy).
      json progress = json::array();
      int color = 0;
      for (const SweepRun &run : runs) {
        json points = json::array();
        double best = std::numeric_limits<double>::infinity();
        int evaluation = 0;
        std::string strategy;
        for (const Record &r : run.records) {
          if (r.kernel != kernel || caseOf(r) != name)
            continue;
          ++evaluation;
          strategy = r.strategy.empty() ? strategy : r.strategy;
          if (r.status == "ok")
            best = std::min(best, r.medianSeconds);
          if (std::isfinite(best))
            points.push_back({{"x", evaluation}, {"y", best * 1e3}});
        }
        if (points.empty())
          continue;
        std::string label = run.label + (strategy.empty() ? "" : " (" + strategy + ")");
        progress.push_back(lineDataset(label, points, kPalette[color++ % 10]));
        progress.back()["showLine"] = true;
      }
      page.chart(kernel + " " + name + ": search progress",
                 {{"type", "scatter"},
                  {"data", {{"datasets", progress}}},
                  {"options", {{"scales", {{"x", {{"title", {{"display", true},
                                                             {"text", "evaluations"}}}}},
                                           {"y", {{"title", {{"display", true},
                                                             {"text", "best so far (ms)"}}}}}}}}}});
    }

    // The trend over sweeps, regressions (compare's verdict against the sweep before) marked.
    if (runs.size() > 1) {
      std::vector<std::map<std::string, Benchmark>> sides;
      for (const SweepRun &run : runs) {
        std::vector<Record> ofKernel;
        for (const Record &r : run.records)
          if (r.kernel == kernel)
            ofKernel.push_back(r);
        sides.push_back(BenchmarksOf(ofKernel));
      }
      std::set<std::string> ids;
      for (const auto &side : sides)
        for (const auto &[id, b] : side)
          if (b.ok)
            ids.insert(id);
      json labels = json::array();
      for (const SweepRun &run : runs)
        labels.push_back(run.label);
      json datasets = json::array(), regressions = json::array();
      int color = 0;
      for (const std::string &id : ids) {
        json points = json::array();
        for (size_t s = 0; s < sides.size(); ++s) {
          auto it = sides[s].find(id);
          if (it == sides[s].end() || !it->second.ok)
            continue;
          points.push_back({{"x", runs[s].label}, {"y", it->second.medianSeconds * 1e3}});
          if (s == 0)
            continue;
          CompareResult c = Compare({{id, sides[s - 1].count(id) ? sides[s - 1].at(id) : Benchmark{}}},
                                    {{id, it->second}}, CompareOptions{});
          if (!c.rows.empty() && c.rows[0].regression()) {
            char tip[160];
            std::snprintf(tip, sizeof tip, "%s: %+.1f%% (p = %.2g) against %s", id.c_str(),
                          c.rows[0].changePercent, c.rows[0].test.pValue,
                          runs[s - 1].label.c_str());
            regressions.push_back({{"x", runs[s].label},
                                   {"y", it->second.medianSeconds * 1e3},
                                   {"tip", std::string("regression: ") + tip}});
          }
        }
        json d = lineDataset(id.substr(kernel.size() + 1), points, kPalette[color++ % 10]);
        d["showLine"] = true;
        datasets.push_back(d);
      }
      datasets.push_back({{"label", "regression (U test, > 5%)"}, {"data", regressions},
                          {"pointStyle", "triangle"}, {"pointRadius", 9},
                          {"backgroundColor", "#d62728"}, {"borderColor", "#d62728"}});
      page.chart(kernel + ": best median over sweeps",
                 {{"type", "scatter"},
                  {"data", {{"datasets", datasets}}},
                  {"options", {{"scales", {{"x", {{"type", "category"}, {"labels", labels},
                                                  {"offset", true}}},
                                           {"y", {{"title", {{"display", true},
                                                             {"text", "median (ms)"}}}}}}}}}},
                 regressions.empty() ? "No regression between consecutive sweeps." : "");
    }
  }
  return page.render(chartJs, heading);
}

} // namespace tessel::autotune
