//===- Records.cpp - autotuning records: JSON lines, appended and flushed one at a time -*- C++ -*-===//

#include "autotune/Records.h"
#include "runtime/Files.h"
#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace tessel::autotune {
namespace {

using nlohmann::json;

json toJson(const Record &r) {
  json config = json::parse(r.configJson, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded())
    config = json::object();
  json j = {{"schema_version", kRecordSchemaVersion},
            {"kernel", r.kernel},
            {"shape", r.shape},
            {"dtype", r.dtype},
            {"target", r.target},
            {"config", config},
            {"status", r.status},
            {"compile_seconds", r.compileSeconds},
            {"median_seconds", r.medianSeconds},
            {"min_seconds", r.minSeconds},
            {"max_seconds", r.maxSeconds},
            {"repetitions", r.repetitions},
            {"tflops", r.tflops},
            {"gbps", r.gbps},
            {"compiler_version", r.compilerVersion},
            {"timestamp", r.timestamp},
            {"host", r.host},
            {"benchmark_id", r.benchmarkId()},
            {"direction", "smaller_is_better"},
            {"unit", "seconds"}};
  if (!r.error.empty())
    j["error"] = r.error;
  size_t keep = std::min(r.samples.size(), kMaxRecordSamples);
  j["samples_seconds"] = std::vector<double>(r.samples.end() - keep, r.samples.end());
  if (!r.artifactSha256.empty())
    j["artifact_sha256"] = r.artifactSha256;
  if (!r.sourceSha256.empty())
    j["source_sha256"] = r.sourceSha256;
  if (!r.specSha256.empty())
    j["spec_sha256"] = r.specSha256;
  if (!r.strategy.empty())
    j["strategy"] = r.strategy;
  json env = json::parse(r.environmentJson, nullptr, /*allow_exceptions=*/false);
  j["environment"] = env.is_object() ? env : json::object();
  return j;
}

/// Why a configuration value is not one tessel writes (integers, booleans, strings, and lists
/// of them); empty when it is.
std::string configProblem(const json &value, int depth) {
  if (depth > 8)
    return "nested too deeply";
  if (value.is_number_float())
    return "configuration values are integers, not " + value.dump();
  if (value.is_object() || value.is_array())
    for (const json &v : value)
      if (std::string why = configProblem(v, depth + 1); !why.empty())
        return why;
  if (value.is_null())
    return "null is not a configuration value";
  return "";
}

} // namespace

std::string Record::key() const {
  json k = {{"kernel", kernel}, {"shape", shape}, {"dtype", dtype},
            {"target", target.cpu.empty() ? json{TargetKindName(target.kind), target.arch}
                                          : json{TargetKindName(target.kind), target.arch, target.cpu}},
            {"config", json::parse(configJson, nullptr, /*allow_exceptions=*/false)}};
  return k.dump(); // nlohmann's objects keep keys sorted: one spelling per candidate
}

std::string Record::benchmarkId() const {
  std::string dims;
  for (const auto &[name, value] : shape)
    dims += (dims.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return kernel + "/" + dtype + "/" + dims + "/" + target.str();
}

std::string ToJsonLine(const Record &record) { return toJson(record).dump(); }

absl::StatusOr<Record> FromJsonLine(const std::string &line) {
  if (std::string why = JsonNestingProblem(line); !why.empty())
    return absl::InvalidArgumentError(why);
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception &e) {
    return absl::InvalidArgumentError(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object())
    return absl::InvalidArgumentError("a record must be a JSON object");
  Record r;
  try {
    if (!j.at("schema_version").is_number_integer())
      return absl::InvalidArgumentError("\"schema_version\" must be an integer");
    int version = j.at("schema_version").get<int>();
    if (version < 1 || version > kRecordSchemaVersion)
      return absl::FailedPreconditionError(
          "record schema version " + std::to_string(version) +
          " is not one this tessel reads (1 to " + std::to_string(kRecordSchemaVersion) + ")");
    r.kernel = j.at("kernel").get<std::string>();
    if (!j.at("shape").is_object())
      return absl::InvalidArgumentError("\"shape\" must be an object");
    for (auto it = j.at("shape").begin(); it != j.at("shape").end(); ++it) {
      if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0)
        return absl::InvalidArgumentError("shape dimension \"" + it.key() +
                                          "\" must be a non-negative integer, not " +
                                          it.value().dump());
      r.shape[it.key()] = it.value().get<int64_t>();
    }
    r.dtype = j.at("dtype").get<std::string>();
    const json &t = j.at("target");
    absl::StatusOr<TargetKind> kind = ParseTargetKind(t.at("kind").get<std::string>());
    if (!kind.ok())
      return kind.status();
    r.target.kind = *kind;
    r.target.arch = t.at("arch").get<std::string>();
    r.target.features = t.at("features").get<std::vector<std::string>>();
    if (t.contains("cpu"))
      r.target.cpu = t.at("cpu").get<std::string>();
    if (!j.at("config").is_object())
      return absl::InvalidArgumentError("\"config\" must be an object");
    if (std::string why = configProblem(j.at("config"), 0); !why.empty())
      return absl::InvalidArgumentError("\"config\": " + why);
    r.configJson = j.at("config").dump();
    r.status = j.at("status").get<std::string>();
    static const std::set<std::string> statuses = {"ok",       "compile_error", "invalid_config",
                                                   "mismatch", "timeout",       "crash"};
    if (!statuses.count(r.status))
      return absl::InvalidArgumentError("unknown status \"" + r.status + "\"");
    for (const char *field : {"compile_seconds", "median_seconds", "min_seconds", "max_seconds",
                              "tflops", "gbps"})
      if (j.contains(field) && (!j[field].is_number() || !(j[field].get<double>() >= 0) ||
                                !std::isfinite(j[field].get<double>())))
        return absl::InvalidArgumentError(std::string("\"") + field +
                                          "\" must be a finite non-negative number");
    if (j.contains("repetitions") &&
        (!j["repetitions"].is_number_integer() || j["repetitions"].get<int64_t>() < 0))
      return absl::InvalidArgumentError("\"repetitions\" must be a non-negative integer");
    r.compileSeconds = j.value("compile_seconds", 0.0);
    r.medianSeconds = j.value("median_seconds", 0.0);
    r.minSeconds = j.value("min_seconds", 0.0);
    r.maxSeconds = j.value("max_seconds", 0.0);
    r.repetitions = j.value("repetitions", int64_t(0));
    r.tflops = j.value("tflops", 0.0);
    r.gbps = j.value("gbps", 0.0);
    // A measured candidate has a timing that makes sense: what a bundle is chosen by.
    if (r.status == "ok" &&
        (r.medianSeconds <= 0 || r.repetitions < 1 || r.minSeconds > r.medianSeconds ||
         (r.maxSeconds > 0 && r.maxSeconds < r.medianSeconds)))
      return absl::InvalidArgumentError(
          "an ok record needs a positive median, min_seconds <= median_seconds <= max_seconds and "
          "at least one repetition");
    r.error = j.value("error", std::string());
    r.compilerVersion = j.at("compiler_version").get<std::string>();
    r.timestamp = j.at("timestamp").get<std::string>();
    r.host = j.at("host").get<std::string>();
    if (version >= 2) {
      r.samples = j.value("samples_seconds", std::vector<double>());
      for (double s : r.samples)
        if (!(s >= 0) || !std::isfinite(s))
          return absl::InvalidArgumentError("\"samples_seconds\" holds a value that is not a "
                                            "finite non-negative number of seconds");
      r.artifactSha256 = j.value("artifact_sha256", std::string());
      r.sourceSha256 = j.value("source_sha256", std::string());
      r.specSha256 = j.value("spec_sha256", std::string());
      r.strategy = j.value("strategy", std::string());
      if (j.contains("environment")) {
        if (!j.at("environment").is_object())
          return absl::InvalidArgumentError("\"environment\" must be an object");
        r.environmentJson = j.at("environment").dump();
      }
    }
  } catch (const json::exception &e) {
    return absl::InvalidArgumentError(std::string("bad record: ") + e.what());
  }
  return r;
}

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Open(const std::string &path) {
  // A write interrupted mid-line left a partial last record: drop it, so that appending goes
  // on after the last complete one. A last line that is a whole record without its newline
  // (a file edited by hand, or merged by another tool) is kept and completed.
  std::string existing;
  bool completeLast = false;
  // Only a regular file is appended to (opening a FIFO would block).
  if (std::error_code ec; std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    absl::StatusOr<std::string> read = runtime::ReadRegularFile(path);
    if (!read.ok())
      return read.status();
    existing = *std::move(read);
  }
  if (!existing.empty() && existing.back() != '\n') {
    size_t keep = existing.rfind('\n');
    keep = keep == std::string::npos ? 0 : keep + 1;
    completeLast = FromJsonLine(existing.substr(keep)).ok();
    if (!completeLast && truncate(path.c_str(), off_t(keep)) != 0)
      return absl::InternalError("cannot drop the incomplete last record of " + path + ": " +
                                 std::strerror(errno));
  }
  std::FILE *f = std::fopen(path.c_str(), "a");
  if (!f)
    return absl::InvalidArgumentError("cannot open " + path + " for appending: " +
                                      std::strerror(errno));
  auto w = std::unique_ptr<RecordWriter>(new RecordWriter());
  w->file_ = f;
  w->path_ = path;
  if (completeLast && (std::fputc('\n', f) == EOF || std::fflush(f) != 0))
    return absl::InternalError("cannot append to " + path + ": " + std::strerror(errno));
  return w;
}

RecordWriter::~RecordWriter() {
  if (file_)
    std::fclose(file_);
}

absl::Status RecordWriter::Append(const Record &record) {
  std::string line = ToJsonLine(record) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    return absl::InternalError("cannot append to " + path_ + ": " + std::strerror(errno));
  fsync(fileno(file_)); // on disk before the next candidate runs (it may crash the machine)
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Record>> ReadRecords(const std::string &path, std::string *warning) {
  absl::StatusOr<std::string> read = runtime::ReadRegularFile(path);
  if (!read.ok())
    return read.status();
  const std::string &text = *read;
  std::vector<Record> out;
  size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    size_t end = text.find('\n', start);
    bool last = end == std::string::npos;
    std::string body = text.substr(start, last ? std::string::npos : end - start);
    start = last ? text.size() : end + 1;
    if (body.empty())
      continue;
    absl::StatusOr<Record> r = FromJsonLine(body);
    if (!r.ok()) {
      if (last) { // an interrupted append: the record was never complete
        if (warning)
          *warning = path + ":" + std::to_string(line) +
                     ": ignoring an incomplete last record (interrupted write)";
        break;
      }
      return absl::InvalidArgumentError(path + ":" + std::to_string(line) + ": " +
                                        std::string(r.status().message()));
    }
    out.push_back(*std::move(r));
  }
  return out;
}

absl::StatusOr<std::set<std::string>> MeasuredKeys(const std::string &path) {
  std::set<std::string> keys;
  if (!std::filesystem::exists(path))
    return keys;
  absl::StatusOr<std::vector<Record>> records = ReadRecords(path);
  if (!records.ok())
    return records.status();
  for (const Record &r : *records)
    keys.insert(r.key());
  return keys;
}

absl::Status MergeRecords(const std::vector<std::string> &inputs, const std::string &output) {
  std::set<std::string> seen;
  std::string merged;
  for (const std::string &path : inputs) {
    absl::StatusOr<std::vector<Record>> records = ReadRecords(path);
    if (!records.ok())
      return records.status();
    for (const Record &r : *records)
      if (seen.insert(r.key()).second)
        merged += ToJsonLine(r) + "\n";
  }
  return runtime::WriteFileAtomically(output, merged);
}

} // namespace tessel::autotune
