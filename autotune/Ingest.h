//===- Ingest.h - a runner host's results back into records -*- C++ -*-===//
//
// `sweep --build-only` writes candidates (candidates.jsonl, candidates/N.artifact) and run.sh,
// which a machine with the device runs: tessel-bench's output lines go to results.jsonl, each
// after a {"candidate": N} or {"baseline": "kernel dtype shape"} marker. Ingesting that
// directory turns them into records (the candidate's configuration and target, tessel-bench's
// status, timings, samples, artifact hash and environment; compile errors too), the
// baselines per kernel/dtype/shape group, and each record's artifact, so that the summary,
// the Google Benchmark JSON, the dashboards and the bundle work as for a local sweep.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_INGEST_H
#define TESSEL_AUTOTUNE_INGEST_H

#include "autotune/Records.h"

#include "absl/status/statusor.h"

#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

struct Ingested {
  Target target;
  std::vector<Record> records;                   ///< in candidate order
  std::map<std::string, double> baselineSeconds; ///< by group ("kernel dtype shape")
  std::map<std::string, std::string> artifactOf; ///< record key -> artifact path
  size_t unmeasured = 0; ///< built candidates without a result (an interrupted run)
};

/// Reads DIR/candidates.jsonl and DIR/results.jsonl; errors name the file and line.
absl::StatusOr<Ingested> IngestRunnerResults(const std::string &dir,
                                             const std::string &timestamp);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_INGEST_H
