//===- BenchmarkJsonFuzzer.cpp - fuzz entry: bytes as Google Benchmark JSON -*- C++ -*-===//

#include "autotune/dashboard/Compare.h"
#include "autotune/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

namespace tessel::fuzz {

bool FuzzBenchmarkJson(const std::string &bytes) {
  std::string path = ScratchDir() + "/fuzz-benchmarks.json";
  WriteFileBytes(path, bytes);
  auto benchmarks = autotune::LoadBenchmarks(path);
  if (!benchmarks.ok())
    return false;
  (void)autotune::Compare(*benchmarks, *benchmarks, autotune::CompareOptions{});
  return true;
}

std::vector<std::string> BenchmarkJsonSeeds() {
  return {R"({"context": {"date": "x"}, "benchmarks": [
    {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 0, "real_time": 10.5, "cpu_time": 10.0, "time_unit": "us"},
    {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 1, "real_time": 11.5, "cpu_time": 11.0, "time_unit": "us"},
    {"name": "BM_a_median", "run_name": "BM_a", "run_type": "aggregate",
     "aggregate_name": "median", "real_time": 11.0, "cpu_time": 10.5, "time_unit": "us"},
    {"name": "BM_b", "error_occurred": true, "error_message": "x", "real_time": 0}]})"};
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzBenchmarkJson, tessel::fuzz::BenchmarkJsonSeeds)
