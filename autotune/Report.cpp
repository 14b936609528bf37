//===- Report.cpp - what a sweep found: summary table, benchmark JSON, bundle entries -*- C++ -*-===//

#include "autotune/Report.h"
#include "autotune/Builder.h"

#include "autotune/dashboard/Stats.h"

#include <algorithm>
#include <tuple>
#include <cmath>
#include <limits>

namespace tessel::autotune {

std::string GroupOf(const Record &r) {
  return r.kernel + " " + r.dtype + " " + zoo::ShapeText(r.shape);
}

namespace {

/// The order among equally fast configurations, so that two sweeps of one space pick the same
/// one unless it is really faster: fewer warps (knob.num_warps), then fewer pipeline stages
/// (knob.num_stages), then the smaller product of the BLOCK* parameters (the tiles' shared
/// memory and registers), then the configuration's canonical text. Smaller is preferred.
using TieKey = std::tuple<double, double, double, std::string>;
TieKey tieKey(const Record &r) {
  double warps = 0, stages = 0, tile = 1;
  absl::StatusOr<Point> p = ParsePoint(r.configJson);
  if (p.ok())
    for (const auto &[name, value] : *p) {
      double v = double(value);
      if (name == "knob.num_warps")
        warps = v;
      else if (name == "knob.num_stages")
        stages = v;
      else if (name.rfind("BLOCK", 0) == 0)
        tile *= v;
    }
  return {warps, stages, tile, p.ok() ? PointJson(*p) : r.configJson};
}

bool tied(const Record &r, const Record &fastest, const TieRule &rule) {
  if (&r == &fastest)
    return true;
  if (rule.percent > 0)
    return r.medianSeconds <= fastest.medianSeconds * (1 + rule.percent / 100);
  UTest t = MannWhitneyU(r.samples, fastest.samples, rule.alpha);
  if (!t.enoughSamples)
    return r.medianSeconds <= fastest.medianSeconds * 1.01;
  return t.pValue >= rule.alpha;
}

} // namespace

std::vector<GroupSummary> Summarize(const std::vector<Record> &records, const TieRule &rule) {
  std::map<std::string, GroupSummary> groups;
  std::map<std::string, std::vector<const Record *>> ok;
  for (const Record &r : records) {
    GroupSummary &g = groups[GroupOf(r)];
    g.group = GroupOf(r);
    g.tried++;
    if (r.status != "ok") {
      g.failed++;
      continue;
    }
    ok[g.group].push_back(&r);
  }
  std::vector<GroupSummary> out;
  for (auto &[name, g] : groups) {
    const std::vector<const Record *> &candidates = ok[name];
    if (!candidates.empty()) {
      // Each record's configuration parsed once, for the fastest and the tie set's order.
      std::map<const Record *, TieKey> keys;
      for (const Record *r : candidates)
        keys[r] = tieKey(*r);
      auto before = [&](const Record *a, const Record *b) {
        return std::tie(a->medianSeconds, keys[a]) < std::tie(b->medianSeconds, keys[b]);
      };
      const Record *fastest = *std::min_element(candidates.begin(), candidates.end(), before);
      for (const Record *r : candidates)
        if (tied(*r, *fastest, rule))
          g.ties.push_back(r);
      std::sort(g.ties.begin(), g.ties.end(),
                [&](const Record *a, const Record *b) { return keys[a] < keys[b]; });
      g.best = g.ties.front();
    }
    out.push_back(g);
  }
  return out;
}

namespace {

bool flopBound(const Record &r) {
  const zoo::Kernel *k = zoo::Find(r.kernel);
  return k && k->flopBound;
}

} // namespace

void PrintSummaryTable(std::FILE *out, const std::vector<GroupSummary> &groups) {
  std::fprintf(out, "\n%-40s %-60s %12s %14s %11s %8s\n", "kernel / dtype / shape", "best config",
               "time", "rate", "vs baseline", "tried/failed");
  for (const GroupSummary &g : groups) {
    if (!g.best) {
      std::fprintf(out, "%-40s %-60s %12s %14s %11s %5d/%d\n", g.group.c_str(),
                   "(none succeeded)", "-", "-", "-", g.tried, g.failed);
      continue;
    }
    const Record &r = *g.best;
    char rate[32];
    std::snprintf(rate, sizeof rate, flopBound(r) ? "%.1f GFLOP/s" : "%.1f GB/s",
                  flopBound(r) ? r.tflops * 1e3 : r.gbps);
    // % of the reference baseline's rate (OpenBLAS sgemm or a copy of the same bytes), timed
    // the same way as the candidates.
    char versus[32] = "-";
    if (g.baselineSeconds > 0)
      std::snprintf(versus, sizeof versus, "%.0f%%", 100 * g.baselineSeconds / r.medianSeconds);
    std::fprintf(out, "%-40s %-60s %9.3f ms %14s %11s %5d/%d\n", g.group.c_str(),
                 r.configJson.c_str(), r.medianSeconds * 1e3, rate, versus, g.tried, g.failed);
  }
}

nlohmann::json GoogleBenchmarkJson(const std::vector<GroupSummary> &groups,
                                   const std::string &date, const std::string &host) {
  nlohmann::json benchmarks = nlohmann::json::array();
  int family = 0;
  for (const GroupSummary &g : groups) {
    if (!g.best)
      continue;
    const Record &r = *g.best;
    const std::string id = r.benchmarkId();
    // As Google Benchmark writes --benchmark_repetitions: one entry per repetition, then the
    // aggregates; compare.py's U test reads the repetitions. A record without samples (schema
    // version 1) gives its median as the one repetition.
    std::vector<double> samples = r.samples;
    if (samples.empty())
      samples.push_back(r.medianSeconds);
    auto entry = [&](const std::string &name, const std::string &runType, double seconds) {
      return nlohmann::json{{"name", name},
                            {"run_name", id},
                            {"run_type", runType},
                            {"family_index", family},
                            {"per_family_instance_index", 0},
                            {"repetitions", samples.size()},
                            {"threads", 1},
                            {"iterations", 1},
                            {"real_time", seconds * 1e9},
                            {"cpu_time", seconds * 1e9},
                            {"time_unit", "ns"}};
    };
    for (size_t i = 0; i < samples.size(); ++i) {
      nlohmann::json e = entry(id, "iteration", samples[i]);
      e["repetition_index"] = i;
      benchmarks.push_back(e);
    }
    double mean = 0, squares = 0;
    for (double s : samples)
      mean += s / double(samples.size());
    for (double s : samples)
      squares += (s - mean) * (s - mean);
    double stddev = samples.size() > 1 ? std::sqrt(squares / double(samples.size() - 1)) : 0.0;
    for (auto [aggregate, seconds] : {std::pair<const char *, double>{"mean", mean},
                                      {"median", r.medianSeconds},
                                      {"stddev", stddev}}) {
      nlohmann::json e = entry(id + "_" + aggregate, "aggregate", seconds);
      e["aggregate_name"] = aggregate;
      e["aggregate_unit"] = "time";
      if (std::string(aggregate) == "median") {
        // The rates, the baseline and what was measured, on the median.
        e["GFLOP/s"] = r.tflops * 1e3;
        e["GB/s"] = r.gbps;
        e["baseline_seconds"] = g.baselineSeconds;
        e["vs_baseline"] = g.baselineSeconds > 0 ? g.baselineSeconds / r.medianSeconds : 0.0;
        e["config"] = nlohmann::json::parse(r.configJson, nullptr, false);
        e["artifact_sha256"] = r.artifactSha256;
      }
      benchmarks.push_back(e);
    }
    ++family;
  }
  return {{"context", {{"date", date}, {"host_name", host}, {"library_version", kCompilerVersion}}},
          {"benchmarks", benchmarks}};
}

std::map<std::string, std::pair<int64_t, int64_t>>
ServedRanges(const zoo::Kernel &kernel, const Point &p, const zoo::Shape &shape) {
  const std::map<std::string, std::string> compiled = kernel.constexprs(p, shape);
  constexpr int64_t kLimit = int64_t(1) << 40, kNone = std::numeric_limits<int64_t>::max();
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const std::string &dim : kernel.dims) {
    int64_t at = shape.at(dim);
    auto same = [&](int64_t value) {
      zoo::Shape s = shape;
      s[dim] = value;
      return kernel.constexprs(p, s) == compiled;
    };
    // Outward in doubling steps to the first value that differs, then bisect back.
    auto edge = [&](int64_t direction) {
      int64_t good = at;
      for (int64_t step = 1; step <= kLimit; step *= 2) {
        int64_t next = std::max<int64_t>(0, at + direction * step);
        if (next == good)
          return good; // down to 0 and the same all the way
        if (!same(next)) {
          int64_t bad = next;
          while ((bad - good) * direction > 1) {
            int64_t mid = good + (bad - good) / 2;
            (same(mid) ? good : bad) = mid;
          }
          return good;
        }
        good = next;
      }
      return direction > 0 ? kNone : good;
    };
    int64_t lo = edge(-1), hi = edge(1);
    if (lo > 0 || hi != kNone)
      out[dim] = {lo, hi};
  }
  return out;
}

TunedEntry TunedEntryFor(const zoo::Kernel &kernel, const Record &best, const Point &p,
                         const std::string &artifact) {
  TunedEntry e;
  e.kernel = best.kernel;
  e.signature = zoo::RuntimeSignature(kernel.signature(best.dtype));
  e.dtype = best.dtype;
  e.entry = kernel.entry;
  e.launchJson = kernel.launchJson;
  e.shape = best.shape;
  // A kernel with an autotune key dispatches on the key's dims only (as Triton's autotuner
  // caches per key): the entry's shape is those dims; serves still bounds the others.
  if (!kernel.dispatchDims.empty()) {
    e.shape.clear();
    for (const std::string &d : kernel.dispatchDims)
      e.shape[d] = best.shape.at(d);
  }
  e.serves = ServedRanges(kernel, p, best.shape);
  // A dimension the artifact depends on is part of the lookup, dispatch dim or not.
  for (const auto &[dim, range] : e.serves)
    e.shape[dim] = best.shape.at(dim);
  e.artifact = artifact;
  // The configuration with the constexprs as the kernel sees them (block sizes, ...).
  nlohmann::json config = p;
  for (const auto &[name, value] : kernel.constexprs(p, best.shape))
    if (name.rfind("stride_", 0) != 0) {
      // Constexprs are ints or bools ("True" / "False"); keep other text as a string.
      nlohmann::json v = nlohmann::json::parse(value, nullptr, false);
      config[name] = value == "True"    ? nlohmann::json(true)
                     : value == "False" ? nlohmann::json(false)
                     : v.is_number()    ? v
                                        : nlohmann::json(value);
    }
  e.configJson = config.dump();
  e.metricsJson = nlohmann::json{{"median_seconds", best.medianSeconds},
                                 {"gflops", best.tflops * 1e3},
                                 {"gbps", best.gbps}}
                      .dump();
  return e;
}

} // namespace tessel::autotune
