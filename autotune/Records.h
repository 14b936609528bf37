//===- Records.h - autotuning records: JSON lines, appended and flushed one at a time -*- C++ -*-===//
//
// One record per measured (or failed) candidate, in the format docs/records.schema.json
// documents (schema version 2: version 1 plus the evidence a regression check needs — the raw
// repetition times, the artifact's and the source's sha256, a benchmark id, direction and unit,
// and the environment it was measured in; version 1 records are still read). Writers append a line and flush it before returning, so an
// interrupted sweep loses nothing; readers skip a truncated last line, refuse anything else
// malformed with the file and line, and give the keys already measured (for --resume). Merging
// combines files, one record per candidate key.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_RECORDS_H
#define TESSEL_AUTOTUNE_RECORDS_H

#include "runtime/Bundle.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessel::autotune {

inline constexpr int kRecordSchemaVersion = 2;
/// At most this many raw samples are kept per record (the last ones).
inline constexpr size_t kMaxRecordSamples = 1000;

struct Record {
  std::string kernel;
  std::map<std::string, int64_t> shape;
  std::string dtype;
  Target target;
  std::string configJson = "{}"; ///< canonical JSON (sorted keys)
  /// ok, compile_error, mismatch, timeout, crash; invalid_config (in the schema) is reserved
  /// for configurations a kernel rejects: the sweep prunes them by the space's constraints
  /// before compiling and never writes it.
  std::string status = "ok";
  double compileSeconds = 0, medianSeconds = 0, minSeconds = 0, maxSeconds = 0;
  int64_t repetitions = 0;
  double tflops = 0, gbps = 0;
  std::string error, compilerVersion, timestamp, host;
  // Schema version 2 (empty when read from a version 1 record):
  std::vector<double> samples;     ///< every timed repetition's seconds, in order
  std::string artifactSha256;      ///< of the artifact measured
  std::string sourceSha256;        ///< of the kernel's source file
  std::string specSha256;          ///< of the kernel's spec (a spec kernel's), else empty
  std::string strategy;            ///< the search strategy that proposed the candidate
  std::string environmentJson = "{}"; ///< host CPU, GPU, driver, clocks, baseline library...

  /// What identifies a candidate: kernel, shape, dtype, target and config.
  std::string key() const;
  /// What a dashboard tracks over time: "kernel/dtype/shape/target", e.g.
  /// "my_kernel/f32/K=512,M=512,N=512/cpu:skylake-avx512" (dimensions in name order).
  std::string benchmarkId() const;
};

/// The record as one line of JSON (no newline).
std::string ToJsonLine(const Record &record);
/// Parses one line; errors say what is wrong.
absl::StatusOr<Record> FromJsonLine(const std::string &line);

class RecordWriter {
public:
  /// Opens `path` for appending (created if missing); an incomplete last line left by an
  /// interrupted write is dropped first.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Open(const std::string &path);
  ~RecordWriter();
  /// Appends one line and flushes it to the file before returning.
  absl::Status Append(const Record &record);

private:
  std::FILE *file_ = nullptr;
  std::string path_;
};

/// All complete records of `path`. A truncated last line (no newline, not valid JSON) is
/// skipped and reported in `warning`; any other bad line is an error naming the line.
absl::StatusOr<std::vector<Record>> ReadRecords(const std::string &path,
                                                std::string *warning = nullptr);

/// The keys of the records in `path` (none when the file does not exist yet).
absl::StatusOr<std::set<std::string>> MeasuredKeys(const std::string &path);

/// Writes to `output` every record of `inputs`, one per key (the first seen), atomically.
absl::Status MergeRecords(const std::vector<std::string> &inputs, const std::string &output);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_RECORDS_H
