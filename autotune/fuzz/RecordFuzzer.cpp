//===- RecordFuzzer.cpp - fuzz entry: bytes as a record line -*- C++ -*-===//

#include "autotune/Records.h"
#include "autotune/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

namespace tessel::fuzz {

bool FuzzRecordLine(const std::string &bytes) {
  absl::StatusOr<autotune::Record> r = autotune::FromJsonLine(bytes);
  if (!r.ok())
    return false;
  // Accepted records round-trip.
  absl::StatusOr<autotune::Record> again = autotune::FromJsonLine(autotune::ToJsonLine(*r));
  Check(again.ok(), "an accepted record does not read back");
  Check(again->key() == r->key(), "an accepted record reads back with another key");
  (void)r->benchmarkId();
  return true;
}

std::vector<std::string> RecordLineSeeds() {
  autotune::Record r;
  r.kernel = "gemm_kernel";
  r.shape = {{"M", 256}, {"N", 256}, {"K", 256}};
  r.dtype = "f32";
  r.target = Target::Host();
  r.configJson = R"({"BLOCK_M":64,"BLOCK_N":64,"BLOCK_K":32,"GROUP_M":8})";
  r.medianSeconds = 1e-3;
  r.minSeconds = 9e-4;
  r.maxSeconds = 2e-3;
  r.repetitions = 3;
  r.samples = {1e-3, 9e-4, 2e-3};
  r.artifactSha256 = std::string(64, 'a');
  r.environmentJson = R"({"host_cpu":"x","host_cores":2})";
  r.compilerVersion = "tessel fuzz";
  r.timestamp = "2026-11-23T00:00:00Z";
  r.host = "box";
  autotune::Record failed = r;
  failed.status = "crash";
  failed.error = "killed by signal \"Segmentation fault\"";
  failed.samples.clear();
  return {autotune::ToJsonLine(r), autotune::ToJsonLine(failed)};
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzRecordLine, tessel::fuzz::RecordLineSeeds)
