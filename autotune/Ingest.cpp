//===- Ingest.cpp - a runner host's results back into records -*- C++ -*-===//

#include "autotune/Ingest.h"
#include "autotune/Builder.h"
#include "autotune/Runner.h"
#include "autotune/space/Space.h"
#include "kernels/Zoo.h"
#include "runtime/Files.h"
#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

#include <sstream>

namespace tessel::autotune {
namespace {

using nlohmann::json;

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);)
    out.push_back(line);
  return out;
}

/// A JSON object on one line, or nothing (tessel-bench's error messages are plain text).
json objectOf(const std::string &line) {
  if (line.empty() || line[0] != '{' || !JsonNestingProblem(line).empty())
    return json();
  json j = json::parse(line, nullptr, false);
  return !j.is_discarded() && j.is_object() ? j : json();
}

} // namespace

absl::StatusOr<Ingested> IngestRunnerResults(const std::string &dir,
                                             const std::string &timestamp) {
  std::string candidatesText, resultsText;
  if (!runtime::ReadWholeFile(dir + "/candidates.jsonl", candidatesText))
    return absl::NotFoundError(dir + "/candidates.jsonl cannot be read (not a --build-only "
                                     "output directory?)");
  if (!runtime::ReadWholeFile(dir + "/results.jsonl", resultsText))
    return absl::NotFoundError(dir + "/results.jsonl cannot be read (run run.sh on the "
                                     "device's host first and copy it back)");
  Ingested out;
  // The candidates, numbered as run.sh numbers them: built ones from 1.
  struct Candidate {
    Record record;
    std::string artifact;
  };
  std::map<int, Candidate> built;
  bool haveTarget = false;
  int number = 0;
  std::vector<std::string> candidateLines = lines(candidatesText);
  for (size_t i = 0; i < candidateLines.size(); ++i) {
    if (candidateLines[i].empty())
      continue;
    std::string where = dir + "/candidates.jsonl:" + std::to_string(i + 1) + ": ";
    json c = objectOf(candidateLines[i]);
    if (c.is_null())
      return absl::InvalidArgumentError(where + "not a JSON object");
    try {
      const zoo::Kernel *kernel = zoo::Find(c.at("kernel").get<std::string>());
      if (!kernel)
        return absl::InvalidArgumentError(where + "no zoo kernel named " + c.at("kernel").dump());
      absl::StatusOr<zoo::Shape> shape = zoo::ParseShape(*kernel, c.at("shape").get<std::string>());
      if (!shape.ok())
        return absl::InvalidArgumentError(where + std::string(shape.status().message()));
      absl::StatusOr<Target> target = ParseTarget(c.at("target").get<std::string>());
      if (!target.ok())
        return absl::InvalidArgumentError(where + std::string(target.status().message()));
      if (haveTarget && target->str() != out.target.str())
        return absl::InvalidArgumentError(where + "candidates for two targets in one directory");
      out.target = *target;
      haveTarget = true;
      absl::StatusOr<Point> point = ParsePoint(c.at("config").dump());
      if (!point.ok())
        return absl::InvalidArgumentError(where + std::string(point.status().message()));
      Record r;
      r.kernel = kernel->name;
      r.dtype = c.at("dtype").get<std::string>();
      r.shape = *shape;
      r.target = *target;
      r.configJson = PointJson(*point);
      r.compilerVersion = kCompilerVersion;
      r.timestamp = timestamp;
      std::string status = c.at("status").get<std::string>();
      if (status == "built") {
        built[++number] = {r, c.at("artifact").get<std::string>()};
      } else {
        r.status = "compile_error";
        r.error = c.value("error", std::string("did not compile"));
        r.host = "builder";
        out.records.push_back(r);
      }
    } catch (const json::exception &e) {
      return absl::InvalidArgumentError(where + e.what());
    }
  }
  // The runner's lines: a marker, then tessel-bench's output (its last JSON object counts).
  std::map<int, json> resultOf;
  std::map<std::string, json> baselineOf;
  int current = 0;
  std::string baseline;
  for (const std::string &line : lines(resultsText)) {
    json j = objectOf(line);
    if (j.is_null())
      continue; // tessel-bench's messages; its JSON line follows or the crash line does
    // Markers are run.sh's one-key objects (tessel-bench's own lines name their baseline too).
    if (j.size() == 1 && j.contains("baseline") && j["baseline"].is_string()) {
      baseline = j["baseline"].get<std::string>();
      current = 0;
      continue;
    }
    if (j.size() == 1 && j.contains("candidate") && j["candidate"].is_number_integer()) {
      current = j["candidate"].get<int>();
      baseline.clear();
      continue;
    }
    if (!j.contains("status"))
      continue;
    if (j.contains("candidate") && j["candidate"].is_number_integer())
      resultOf[j["candidate"].get<int>()] = j; // run.sh's line for a runner that failed
    else if (current)
      resultOf[current] = j;
    else if (!baseline.empty())
      baselineOf[baseline] = j;
  }
  for (auto &[n, c] : built) {
    auto it = resultOf.find(n);
    if (it == resultOf.end()) {
      ++out.unmeasured;
      continue;
    }
    const json &j = it->second;
    Record r = c.record;
    RecordMeasurement(r, MeasurementFromJson(j), *zoo::Find(r.kernel));
    if (r.status == "crash" && r.error.empty())
      r.error = "tessel-bench failed on the runner (see its output there)";
    const json env = json::parse(r.environmentJson, nullptr, false);
    r.host = "runner";
    for (const char *key : {"host_cpu", "gpu"}) // the GPU's name where the runner gave one
      if (env.is_object() && env.contains(key) && env[key].is_string())
        r.host = env[key].get<std::string>();
    // A record that does not validate (a hand-edited results file) is an error, not a record.
    absl::StatusOr<Record> checked = FromJsonLine(ToJsonLine(r));
    if (!checked.ok())
      return absl::InvalidArgumentError(dir + "/results.jsonl: candidate " + std::to_string(n) +
                                        ": " + std::string(checked.status().message()));
    out.artifactOf[r.key()] = dir + "/" + c.artifact;
    out.records.push_back(r);
  }
  for (const auto &[group, j] : baselineOf)
    if (j["status"] == "ok" && j.contains("median_seconds") && j["median_seconds"].is_number() &&
        j["median_seconds"].get<double>() > 0)
      out.baselineSeconds[group] = j["median_seconds"].get<double>();
  if (!haveTarget)
    return absl::InvalidArgumentError(dir + "/candidates.jsonl lists no candidate");
  return out;
}

} // namespace tessel::autotune
