//===- Runner.cpp - measures a candidate with tessel-bench in a child process -*- C++ -*-===//

#include "autotune/Runner.h"
#include "autotune/ChildProcess.h"

#include "nlohmann/json.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <type_traits>

namespace tessel::autotune {

Runner::Runner(RunnerOptions options) : options_(std::move(options)) {}

std::vector<std::string> Runner::SpecArgs(const zoo::Kernel &kernel) const {
  if (kernel.specPath.empty() || kernel.inZoo) // the zoo's are found by name
    return {};
  std::vector<std::string> args = {"--spec", kernel.specPath, "--target", options_.target};
  if (auto s = options_.specSources.find(kernel.name); s != options_.specSources.end())
    args = {"--spec", s->second.first, "--spec-source", s->second.second, "--target",
            options_.target};
  return args;
}

std::vector<std::string> Runner::MeasureArgs(const Candidate &c,
                                             const std::string &artifact) const {
  std::vector<std::string> args = {"--device", options_.device,   "--kernel", c.kernel->name,
          "--shape",  zoo::ShapeText(c.shape), "--dtype", c.dtype,
          "--so",     artifact,          "--config", PointJson(c.point),
          "--min-time", std::to_string(options_.minTime), "--flush", options_.flush};
  std::vector<std::string> spec = SpecArgs(*c.kernel);
  args.insert(args.end(), spec.begin(), spec.end());
  if (!c.referenceArtifact.empty()) {
    args.insert(args.end(), {"--reference-so", c.referenceArtifact, "--reference-config",
                             PointJson(c.referencePoint)});
  }
  return args;
}

std::vector<std::string> Runner::BaselineArgs(const zoo::Kernel &kernel, const std::string &dtype,
                                              const zoo::Shape &shape) const {
  std::vector<std::string> args = {
      "--device", options_.device, "--kernel", kernel.name, "--shape", zoo::ShapeText(shape),
      "--dtype", dtype, "--baseline", "on", "--min-time", std::to_string(options_.minTime),
      "--flush", options_.flush};
  std::vector<std::string> spec = SpecArgs(kernel);
  args.insert(args.end(), spec.begin(), spec.end());
  return args;
}

absl::StatusOr<Measurement> Runner::Measure(const Candidate &c, const std::string &artifact) const {
  std::vector<std::string> args = MeasureArgs(c, artifact);
  args.insert(args.begin(), options_.bench);
  return run(args);
}

absl::StatusOr<Measurement> Runner::MeasureBaseline(const zoo::Kernel &kernel,
                                                    const std::string &dtype,
                                                    const zoo::Shape &shape) const {
  std::vector<std::string> args = BaselineArgs(kernel, dtype, shape);
  args.insert(args.begin(), options_.bench);
  return run(args);
}

absl::StatusOr<Measurement> Runner::run(std::vector<std::string> args) const {
  absl::StatusOr<ChildResult> child = RunChild(std::move(args), options_.timeout);
  if (!child.ok())
    return child.status();
  Measurement m;
  if (child->timedOut) {
    m.status = "timeout";
    m.error = "no result within " + std::to_string(int(options_.timeout)) + " s";
    return m;
  }
  if (child->signal) {
    m.status = "crash";
    m.error = std::string("killed by signal ") + strsignal(child->signal);
    return m;
  }
  // tessel-bench's result is its last line of output.
  const std::string &output = child->output;
  size_t end = output.find_last_not_of("\n");
  size_t begin = end == std::string::npos ? std::string::npos : output.rfind('\n', end);
  nlohmann::json j = end == std::string::npos
                         ? nlohmann::json()
                         : nlohmann::json::parse(
                               output.substr(begin == std::string::npos ? 0 : begin + 1),
                               nullptr, false);
  if (child->exitCode != 0 || j.is_discarded() || !j.is_object()) {
    m.status = "crash";
    // The end of its output says why; keep records readable.
    m.error = "tessel-bench exited with " + std::to_string(child->exitCode) + ": " +
              OutputTail(output);
    return m;
  }
  return MeasurementFromJson(j);
}

/// `j[key]` when it is there and of type T, else `otherwise` (a field of the wrong type in a
/// runner's output reads as missing; nlohmann's value() would throw).
template <typename T>
static T fieldOr(const nlohmann::json &j, const char *key, T otherwise) {
  if (!j.is_object() || !j.contains(key))
    return otherwise;
  const nlohmann::json &v = j[key];
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string())
      return otherwise;
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer())
      return otherwise;
  } else {
    if (!v.is_number())
      return otherwise;
  }
  return v.get<T>();
}

Measurement MeasurementFromJson(const nlohmann::json &j) {
  Measurement m;
  m.status = fieldOr<std::string>(j, "status", "crash");
  static const std::set<std::string> known = {"ok", "mismatch", "timeout", "crash"};
  if (!known.count(m.status))
    m.status = "crash";
  m.error = fieldOr<std::string>(j, "error", "");
  m.medianSeconds = fieldOr(j, "median_seconds", 0.0);
  m.minSeconds = fieldOr(j, "min_seconds", 0.0);
  m.maxSeconds = fieldOr(j, "max_seconds", 0.0);
  m.repetitions = fieldOr(j, "repetitions", int64_t(0));
  m.artifactSha256 = fieldOr<std::string>(j, "artifact_sha256", "");
  if (j.contains("samples_seconds") && j["samples_seconds"].is_array())
    for (const nlohmann::json &s : j["samples_seconds"])
      if (s.is_number())
        m.samples.push_back(s.get<double>());
  if (j.contains("environment") && j["environment"].is_object())
    m.environmentJson = j["environment"].dump();
  return m;
}

void RecordMeasurement(Record &r, const Measurement &m, const zoo::Kernel &kernel) {
  r.status = m.status;
  r.error = m.error;
  r.medianSeconds = m.medianSeconds;
  r.minSeconds = m.minSeconds;
  r.maxSeconds = m.maxSeconds;
  r.repetitions = m.repetitions;
  r.samples = m.samples;
  r.artifactSha256 = m.artifactSha256;
  r.environmentJson = m.environmentJson;
  if (r.status == "ok" && r.medianSeconds > 0) {
    r.tflops = kernel.flops(r.shape) / r.medianSeconds / 1e12;
    r.gbps = kernel.bytes(r.shape, r.dtype) / r.medianSeconds / 1e9;
  }
}


} // namespace tessel::autotune
