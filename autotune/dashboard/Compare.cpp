//===- Compare.cpp - autotune compare: two sweeps, benchmark by benchmark -*- C++ -*-===//

#include "autotune/dashboard/Compare.h"
#include "autotune/Records.h"
#include "runtime/Files.h"
#include "runtime/target/JsonDepth.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace tessel::autotune {
namespace {

using nlohmann::json;

absl::StatusOr<std::map<std::string, Benchmark>> fromRecords(const std::string &path) {
  std::string warning;
  absl::StatusOr<std::vector<Record>> records = ReadRecords(path, &warning);
  if (!records.ok())
    return records.status();
  if (!warning.empty())
    std::fprintf(stderr, "compare: %s\n", warning.c_str());
  return BenchmarksOf(*records);
}

} // namespace

std::map<std::string, Benchmark> BenchmarksOf(const std::vector<Record> &records) {
  std::map<std::string, Benchmark> out;
  for (const Record &r : records) {
    Benchmark &b = out[r.benchmarkId()];
    b.id = r.benchmarkId();
    if (r.status != "ok" || (b.ok && b.medianSeconds <= r.medianSeconds))
      continue;
    b.ok = true;
    b.medianSeconds = r.medianSeconds;
    b.samples = r.samples;
    b.artifactSha256 = r.artifactSha256;
    b.configJson = r.configJson;
    b.timestamp = r.timestamp;
  }
  return out;
}

namespace {

/// Seconds per unit of Google Benchmark's time_unit.
absl::StatusOr<double> unitSeconds(const std::string &unit) {
  static const std::map<std::string, double> units = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  auto it = units.find(unit);
  if (it == units.end())
    return absl::InvalidArgumentError("unknown time_unit \"" + unit + "\"");
  return it->second;
}

absl::StatusOr<std::map<std::string, Benchmark>> fromGoogleBenchmark(const std::string &path,
                                                                     const json &j) {
  std::map<std::string, Benchmark> out;
  std::map<std::string, double> aggregateMedian;
  const json &list = j.at("benchmarks");
  for (size_t i = 0; i < list.size(); ++i) {
    const json &e = list[i];
    auto bad = [&](const std::string &what) {
      return absl::InvalidArgumentError(path + ": benchmarks[" + std::to_string(i) + "]: " + what);
    };
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string())
      return bad("an entry needs a \"name\"");
    if (e.value("error_occurred", false))
      continue; // a failed benchmark: no measurement
    if (!e.contains("real_time") || !e["real_time"].is_number())
      return bad("no numeric \"real_time\"");
    absl::StatusOr<double> unit = unitSeconds(e.value("time_unit", std::string("ns")));
    if (!unit.ok())
      return bad(std::string(unit.status().message()));
    double seconds = e["real_time"].get<double>() * *unit;
    if (!std::isfinite(seconds) || seconds < 0)
      return bad("\"real_time\" is not a finite non-negative time");
    std::string id = e.contains("run_name") && e["run_name"].is_string()
                         ? e["run_name"].get<std::string>()
                         : e["name"].get<std::string>();
    if (e.value("run_type", std::string("iteration")) == "aggregate") {
      std::string aggregate = e.value("aggregate_name", std::string());
      if (aggregate == "median" || (aggregate == "mean" && !aggregateMedian.count(id)))
        aggregateMedian[id] = seconds;
      continue;
    }
    Benchmark &b = out[id];
    b.id = id;
    b.ok = true;
    b.samples.push_back(seconds);
    if (e.contains("artifact_sha256") && e["artifact_sha256"].is_string())
      b.artifactSha256 = e["artifact_sha256"].get<std::string>();
    if (e.contains("config") && e["config"].is_object())
      b.configJson = e["config"].dump();
  }
  for (auto &[id, b] : out)
    b.medianSeconds = Median(b.samples);
  // Benchmarks reported only as aggregates: a median, no samples.
  for (const auto &[id, median] : aggregateMedian)
    if (!out.count(id))
      out[id] = Benchmark{id, true, median, {}, "", "", ""};
  return out;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", seconds * 1e3);
  return text;
}

} // namespace

absl::StatusOr<std::map<std::string, Benchmark>> LoadBenchmarks(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::string records = path + "/records.jsonl";
    if (!std::filesystem::exists(records, ec))
      return absl::NotFoundError(path + " is a directory without records.jsonl (not a sweep's "
                                        "output directory?)");
    return fromRecords(records);
  }
  std::string text;
  if (!runtime::ReadWholeFile(path, text))
    return absl::NotFoundError("cannot read " + path);
  // One JSON object with a "benchmarks" list: Google Benchmark's format; else record lines.
  if (std::string why = JsonNestingProblem(text); !why.empty())
    return absl::InvalidArgumentError(path + ": " + why);
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded() && j.is_object() && j.contains("benchmarks")) {
    if (!j["benchmarks"].is_array())
      return absl::InvalidArgumentError(path + ": \"benchmarks\" must be a list");
    try {
      return fromGoogleBenchmark(path, j);
    } catch (const json::exception &e) { // a field of the wrong type
      return absl::InvalidArgumentError(path + ": " + e.what());
    }
  }
  return fromRecords(path);
}

CompareResult Compare(const std::map<std::string, Benchmark> &base,
                      const std::map<std::string, Benchmark> &next,
                      const CompareOptions &options) {
  CompareResult result;
  for (const auto &[id, b] : base) {
    auto it = next.find(id);
    if (it == next.end()) {
      result.onlyInBase.push_back(id);
      continue;
    }
    const Benchmark &n = it->second;
    if (!b.ok && !n.ok)
      continue; // failed on both sides: nothing to compare
    if (!b.ok) {
      result.onlyInNew.push_back(id); // measured only on the new side
      continue;
    }
    Comparison c;
    c.id = id;
    c.base = b;
    c.next = n;
    if (!n.ok) {
      c.verdict = "failed";
    } else {
      c.changePercent =
          b.medianSeconds > 0 ? 100 * (n.medianSeconds - b.medianSeconds) / b.medianSeconds : 0;
      c.test = MannWhitneyU(b.samples, n.samples, options.alpha);
      if (std::fabs(c.changePercent) < options.thresholdPercent)
        c.verdict = "same";
      else if (!c.test.enoughSamples)
        c.verdict = "too_few_samples";
      else if (c.test.pValue >= options.alpha)
        c.verdict = "noise";
      else
        c.verdict = c.changePercent > 0 ? "slower" : "faster";
      c.artifactChanged = !b.artifactSha256.empty() && !n.artifactSha256.empty() &&
                          b.artifactSha256 != n.artifactSha256;
      // The same bytes ran on both sides: a real change of time is the machine's, not the
      // code's (LNT's rule: an unchanged binary cannot have regressed).
      bool sameArtifact = !b.artifactSha256.empty() && b.artifactSha256 == n.artifactSha256;
      if (sameArtifact && (c.verdict == "slower" || c.verdict == "faster"))
        c.verdict = "drift";
      c.configChanged = !b.configJson.empty() && !n.configJson.empty() &&
                        json::parse(b.configJson, nullptr, false) !=
                            json::parse(n.configJson, nullptr, false);
    }
    result.regressions += c.regression();
    result.rows.push_back(std::move(c));
  }
  for (const auto &[id, n] : next)
    if (!base.count(id) && n.ok)
      result.onlyInNew.push_back(id);
  std::sort(result.onlyInNew.begin(), result.onlyInNew.end());
  return result;
}

void PrintComparison(std::FILE *out, const CompareResult &result, const CompareOptions &options) {
  size_t width = 9;
  for (const Comparison &c : result.rows)
    width = std::max(width, c.id.size());
  std::fprintf(out, "%-*s %12s %12s %9s %9s %9s  %s\n", int(width), "benchmark", "base ms",
               "new ms", "change", "p-value", "samples", "verdict");
  for (const Comparison &c : result.rows) {
    std::string p = c.verdict == "failed"        ? "-"
                    : !c.test.enoughSamples      ? "n/a"
                                                 : std::to_string(c.test.pValue).substr(0, 6);
    char change[32] = "-", samples[32];
    if (c.verdict != "failed")
      std::snprintf(change, sizeof change, "%+.1f%%", c.changePercent);
    std::snprintf(samples, sizeof samples, "%zu/%zu", c.base.samples.size(),
                  c.next.samples.size());
    std::string note;
    if (c.artifactChanged)
      note += " (artifact changed)";
    if (c.configChanged)
      note += " (best config changed)";
    std::fprintf(out, "%-*s %12s %12s %9s %9s %9s  %s%s\n", int(width), c.id.c_str(),
                 milliseconds(c.base.medianSeconds).c_str(),
                 c.next.ok ? milliseconds(c.next.medianSeconds).c_str() : "failed", change,
                 p.c_str(), samples, c.verdict.c_str(), note.c_str());
  }
  for (const std::string &id : result.onlyInBase)
    std::fprintf(out, "only in base: %s\n", id.c_str());
  for (const std::string &id : result.onlyInNew)
    std::fprintf(out, "only in new:  %s\n", id.c_str());
  std::fprintf(out,
               "\n%zu compared, %d regressed beyond %.1f%% (U test, alpha %.2f), %zu only in "
               "base, %zu only in new\n",
               result.rows.size(), result.regressions, options.thresholdPercent, options.alpha,
               result.onlyInBase.size(), result.onlyInNew.size());
}

json ComparisonJson(const CompareResult &result, const CompareOptions &options) {
  json rows = json::array();
  for (const Comparison &c : result.rows) {
    json row = {{"benchmark_id", c.id},
                {"verdict", c.verdict},
                {"regression", c.regression()},
                {"base_median_seconds", c.base.medianSeconds},
                {"base_samples", c.base.samples.size()},
                {"new_samples", c.next.samples.size()},
                {"artifact_changed", c.artifactChanged},
                {"config_changed", c.configChanged}};
    if (c.next.ok) {
      row["new_median_seconds"] = c.next.medianSeconds;
      row["change_percent"] = c.changePercent;
      row["p_value"] = c.test.enoughSamples ? json(c.test.pValue) : json(nullptr);
      row["exact_test"] = c.test.exact;
      if (!c.test.enoughSamples)
        row["why_no_p_value"] = c.test.why;
    }
    rows.push_back(row);
  }
  return {{"threshold_percent", options.thresholdPercent},
          {"alpha", options.alpha},
          {"regressions", result.regressions},
          {"benchmarks", rows},
          {"only_in_base", result.onlyInBase},
          {"only_in_new", result.onlyInNew}};
}

absl::StatusOr<double> ParsePercent(const std::string &text) {
  std::string number = text;
  if (!number.empty() && number.back() == '%')
    number.pop_back();
  char *end = nullptr;
  double value = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(value) || value < 0 || value > 1000)
    return absl::InvalidArgumentError("\"" + text + "\" is not a percentage (e.g. 5%)");
  return value;
}

} // namespace tessel::autotune
