//===- Runner.h - measures a candidate with tessel-bench in a child process -*- C++ -*-===//
//
// The runner half of the autotuner: tessel-bench (runtime and zoo only, no compiler) validates
// a compiled candidate against the zoo's C++ reference and times it, in a child process killed
// after a timeout, so that a crash or a hang is a measurement (status "crash" / "timeout"),
// not the sweep's end. The same binary measures on another machine (a GPU host) from a
// candidates directory.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_RUNNER_H
#define TESSEL_AUTOTUNE_RUNNER_H

#include "autotune/Builder.h"
#include "autotune/Records.h"

#include "nlohmann/json_fwd.hpp"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

/// What tessel-bench reported: status ok, mismatch, timeout or crash (with the error), and the
/// timing of an ok run.
struct Measurement {
  std::string status = "crash";
  std::string error;
  double medianSeconds = 0, minSeconds = 0, maxSeconds = 0;
  int64_t repetitions = 0;
  std::vector<double> samples; ///< every timed run's seconds, in order
  std::string artifactSha256;  ///< of the artifact tessel-bench loaded
  std::string environmentJson = "{}"; ///< the host, device and baseline library it ran with
};

struct RunnerOptions {
  std::string bench; ///< the tessel-bench binary
  double timeout = 60, minTime = 0.1;
  std::string flush = "on"; ///< caches flushed between repetitions
  std::string device = "cpu"; ///< the runtime device tessel-bench measures on
  std::string target = "cpu"; ///< the target spec kernels are read for (--target)
  /// Spec kernels whose spec and source tessel-bench reads from elsewhere (a --build-only
  /// folder's copies): kernel name -> (spec path, source path) as the runner sees them.
  std::map<std::string, std::pair<std::string, std::string>> specSources;
};

/// tessel-bench's result line (its JSON object) as a measurement.
Measurement MeasurementFromJson(const nlohmann::json &result);

/// Puts `m` into `record` (status, error, timings, samples, artifact hash, environment) and
/// derives its rates from `kernel`'s FLOP and byte counts.
void RecordMeasurement(Record &record, const Measurement &m, const zoo::Kernel &kernel);

class Runner {
public:
  explicit Runner(RunnerOptions options);
  /// Measures the candidate compiled to `artifact`. An error only when tessel-bench could not
  /// be started at all.
  absl::StatusOr<Measurement> Measure(const Candidate &candidate,
                                      const std::string &artifact) const;
  /// Times the problem's reference baseline (OpenBLAS sgemm or a memcpy of the same bytes)
  /// the same way.
  absl::StatusOr<Measurement> MeasureBaseline(const zoo::Kernel &kernel,
                                              const std::string &dtype,
                                              const zoo::Shape &shape) const;

  /// tessel-bench's arguments (after the program) for those measurements: what Measure and
  /// MeasureBaseline run, and what `sweep --build-only` writes for the GPU host.
  std::vector<std::string> MeasureArgs(const Candidate &candidate,
                                       const std::string &artifact) const;
  std::vector<std::string> BaselineArgs(const zoo::Kernel &kernel, const std::string &dtype,
                                        const zoo::Shape &shape) const;

private:
  /// --spec, --spec-source and --target for a spec kernel; nothing for a zoo kernel.
  std::vector<std::string> SpecArgs(const zoo::Kernel &kernel) const;
  absl::StatusOr<Measurement> run(std::vector<std::string> args) const;
  RunnerOptions options_;
};

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_RUNNER_H
