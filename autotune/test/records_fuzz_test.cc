//===- records_fuzz_test.cc - the autotuner's parsers on mutated input -*- C++ -*-===//
//
// Record lines, configurations (against every zoo kernel's spaces) and Google Benchmark JSON,
// each from valid seeds and their mutations (tools/fuzz/Fuzz.h): read or refused, never a
// crash or an escaping exception; what is accepted reads back the same.
//
//===----------------------------------------------------------------------===//

#include "autotune/Records.h"
#include "autotune/dashboard/Compare.h"
#include "autotune/space/Space.h"
#include "kernels/Zoo.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

#include <fstream>

namespace {

using namespace tessel::autotune;

Record seedRecord() {
  Record r;
  r.kernel = "matmul";
  r.shape = {{"M", 256}, {"N", 256}, {"K", 256}};
  r.dtype = "f32";
  r.target = tessel::Target::Host();
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
  return r;
}

TEST(Fuzz, Records) {
  Record failed = seedRecord();
  failed.status = "crash";
  failed.error = "killed by signal \"Segmentation fault\"";
  failed.samples.clear();
  int accepted = 0;
  tessel::fuzz::Run("records", {ToJsonLine(seedRecord()), ToJsonLine(failed)},
                    [&](const std::string &line) {
                      absl::StatusOr<Record> r = FromJsonLine(line);
                      if (!r.ok())
                        return;
                      ++accepted;
                      // Accepted records round-trip.
                      absl::StatusOr<Record> again = FromJsonLine(ToJsonLine(*r));
                      ASSERT_TRUE(again.ok()) << again.status() << "\n" << line;
                      ASSERT_EQ(again->key(), r->key());
                      (void)r->benchmarkId();
                    });
  EXPECT_GT(accepted, 0);
}

TEST(Fuzz, Configurations) {
  std::vector<std::string> seeds;
  for (const tessel::zoo::Kernel &k : tessel::zoo::Kernels())
    for (const tessel::zoo::TargetSpec *spec : {&k.cpu, &k.gpu}) {
      std::vector<Point> points = spec->space.Enumerate();
      if (!points.empty())
        seeds.push_back(PointJson(points.front()));
    }
  ASSERT_FALSE(seeds.empty());
  tessel::fuzz::Run("configurations", seeds, [](const std::string &text) {
    absl::StatusOr<Point> p = ParsePoint(text);
    if (!p.ok())
      return;
    for (const tessel::zoo::Kernel &k : tessel::zoo::Kernels()) {
      (void)k.cpu.space.Validate(*p);
      (void)k.gpu.space.Validate(*p);
    }
  });
}

TEST(Fuzz, GoogleBenchmarkJson) {
  std::string seed = R"({"context": {"date": "x"}, "benchmarks": [
    {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 0, "real_time": 10.5, "cpu_time": 10.0, "time_unit": "us"},
    {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "repetitions": 2,
     "repetition_index": 1, "real_time": 11.5, "cpu_time": 11.0, "time_unit": "us"},
    {"name": "BM_a_median", "run_name": "BM_a", "run_type": "aggregate",
     "aggregate_name": "median", "real_time": 11.0, "cpu_time": 10.5, "time_unit": "us"},
    {"name": "BM_b", "error_occurred": true, "error_message": "x", "real_time": 0}]})";
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/fuzz.json";
  tessel::fuzz::Run("google-benchmark-json", {seed}, [&](const std::string &text) {
    std::ofstream(path, std::ios::trunc) << text;
    auto benchmarks = LoadBenchmarks(path);
    if (benchmarks.ok())
      (void)Compare(*benchmarks, *benchmarks, CompareOptions{});
  });
}

} // namespace
