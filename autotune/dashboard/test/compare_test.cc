//===- compare_test.cc - autotune compare on synthetic sweeps: verdicts, inputs, exit codes -*- C++ -*-===//

#include "autotune/Records.h"
#include "autotune/dashboard/Compare.h"
#include "autotune/test/RunCommand.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

#include <filesystem>
#include <fstream>
#include <random>

namespace {

using namespace tessel::autotune;
using tessel::test::RunCommand;

std::string tmp(const std::string &name) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  std::filesystem::create_directories(dir);
  return dir;
}

std::mt19937 &gen() {
  static std::mt19937 g(std::random_device{}());
  return g;
}

/// A record of kernel `kernel` whose repetitions are `n` draws around `seconds` (5% noise).
Record record(const std::string &kernel, double seconds, size_t n, const std::string &artifact,
              const std::string &status = "ok") {
  Record r;
  r.kernel = kernel;
  r.shape = {{"N", 4096}};
  r.dtype = "f32";
  r.target.kind = tessel::TargetKind::Cpu;
  r.target.arch = "x86_64";
  r.configJson = "{\"BLOCK\": 256}";
  r.status = status;
  std::lognormal_distribution<double> d(std::log(seconds), 0.05);
  if (status == "ok")
    for (size_t i = 0; i < n; ++i)
      r.samples.push_back(d(gen()));
  r.medianSeconds = Median(r.samples);
  r.repetitions = int64_t(n);
  r.artifactSha256 = artifact;
  r.compilerVersion = "tessel test";
  r.timestamp = "2026-11-23T00:00:00Z";
  r.host = "box";
  return r;
}

void writeSweep(const std::string &dir, const std::vector<Record> &records) {
  std::filesystem::remove(dir + "/records.jsonl");
  auto w = RecordWriter::Open(dir + "/records.jsonl");
  ASSERT_TRUE(w.ok()) << w.status();
  for (const Record &r : records)
    ASSERT_TRUE((*w)->Append(r).ok());
}

std::string id(const std::string &kernel) { return kernel + "/f32/N=4096/cpu"; }

std::string compareToolPath;
std::string compareTool() { return compareToolPath; }

TEST(Compare, KnownShiftIsFoundAndNoShiftIsNot) {
  std::string base = tmp("base"), next = tmp("next");
  writeSweep(base, {record("steady", 1e-3, 100, "a1"), record("regressed", 1e-3, 100, "b1"),
                    record("improved", 2e-3, 100, "c1"), record("gone", 1e-3, 100, "d1"),
                    record("broken", 1e-3, 100, "e1"), record("drifted", 1e-3, 100, "g1"),
                    // A worse candidate of the same benchmark: the best one is compared.
                    record("steady", 5e-3, 100, "a0")});
  writeSweep(next, {record("steady", 1e-3, 100, "a1"), record("regressed", 1.2e-3, 100, "b2"),
                    record("improved", 1.5e-3, 100, "c2"), record("broken", 0, 0, "", "crash"),
                    record("added", 1e-3, 100, "f1"), record("drifted", 1.2e-3, 100, "g1")});
  absl::StatusOr<std::map<std::string, Benchmark>> b = LoadBenchmarks(base);
  absl::StatusOr<std::map<std::string, Benchmark>> n = LoadBenchmarks(next);
  ASSERT_TRUE(b.ok() && n.ok());
  CompareResult result = Compare(*b, *n, CompareOptions{});
  std::map<std::string, const Comparison *> rows;
  for (const Comparison &c : result.rows)
    rows[c.id] = &c;
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows.at(id("steady"))->verdict, "same");
  EXPECT_FALSE(rows.at(id("steady"))->artifactChanged);
  EXPECT_EQ(rows.at(id("regressed"))->verdict, "slower");
  EXPECT_LT(rows.at(id("regressed"))->test.pValue, 1e-6);
  EXPECT_NEAR(rows.at(id("regressed"))->changePercent, 20, 4);
  EXPECT_TRUE(rows.at(id("regressed"))->artifactChanged);
  EXPECT_EQ(rows.at(id("improved"))->verdict, "faster");
  EXPECT_EQ(rows.at(id("broken"))->verdict, "failed");
  EXPECT_EQ(rows.at(id("drifted"))->verdict, "drift"); // 20% slower, the same artifact
  EXPECT_EQ(result.regressions, 2);
  EXPECT_EQ(result.onlyInBase, std::vector<std::string>{id("gone")});
  EXPECT_EQ(result.onlyInNew, std::vector<std::string>{id("added")});
}

TEST(Compare, ThresholdNoiseAndTooFewSamples) {
  std::string base = tmp("few-base"), next = tmp("few-next");
  // 3 repetitions a side cannot show anything at p < 0.05; a 2% change is under the threshold.
  writeSweep(base, {record("few", 1e-3, 3, "x"), record("small", 1e-3, 1000, "y"),
                    record("noisy", 1e-3, 5, "z")});
  writeSweep(next, {record("few", 2e-3, 3, "x"), record("small", 1.02e-3, 1000, "y2"),
                    record("noisy", 1e-3, 5, "z")});
  auto b = LoadBenchmarks(base), n = LoadBenchmarks(next);
  ASSERT_TRUE(b.ok() && n.ok());
  // Noise: identical distributions with the median nudged past the threshold by hand.
  (*n)[id("noisy")].medianSeconds = (*b)[id("noisy")].medianSeconds * 1.10;
  (*n)[id("noisy")].samples = (*b)[id("noisy")].samples;
  CompareResult result = Compare(*b, *n, CompareOptions{});
  std::map<std::string, std::string> verdicts;
  for (const Comparison &c : result.rows)
    verdicts[c.id] = c.verdict;
  EXPECT_EQ(verdicts[id("few")], "too_few_samples");
  EXPECT_EQ(verdicts[id("small")], "same");
  EXPECT_EQ(verdicts[id("noisy")], "noise");
  EXPECT_EQ(result.regressions, 0);
  // With a 1% threshold the 2% change on 1,000 samples a side is real (z about 9).
  CompareOptions strict;
  strict.thresholdPercent = 1;
  for (const Comparison &c : Compare(*b, *n, strict).rows)
    if (c.id == id("small"))
      EXPECT_EQ(c.verdict, "slower");
}

TEST(Compare, TheToolsExitStatusGatesOnRegressions) {
  std::string base = tmp("cli-base"), same = tmp("cli-same"), slow = tmp("cli-slow");
  writeSweep(base, {record("k", 1e-3, 50, "a")});
  writeSweep(same, {record("k", 1e-3, 50, "a")});
  writeSweep(slow, {record("k", 1.3e-3, 50, "b")});
  std::string out;
  EXPECT_EQ(RunCommand(compareTool() + " " + base + " " + same, out), 0) << out;
  EXPECT_NE(out.find("same"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(RunCommand(compareTool() + " " + base + " " + slow, out), 1) << out;
  EXPECT_NE(out.find("slower"), std::string::npos) << out;
  EXPECT_NE(out.find("(artifact changed)"), std::string::npos) << out;
  // A 50% threshold lets the 30% change pass.
  out.clear();
  EXPECT_EQ(RunCommand(compareTool() + " --threshold=50% " + base + " " + slow, out), 0) << out;
  // --json: the same verdicts for machines.
  out.clear();
  ASSERT_EQ(RunCommand(compareTool() + " --json " + base + " " + slow + " 2>/dev/null", out), 1);
  nlohmann::json j = nlohmann::json::parse(out);
  EXPECT_EQ(j["regressions"], 1);
  EXPECT_EQ(j["benchmarks"][0]["verdict"], "slower");
  EXPECT_EQ(j["benchmarks"][0]["benchmark_id"], id("k"));
  // Bad input: a clear error and exit status 2.
  for (const std::string &bad : {std::string("--threshold=abc ") + base + " " + slow,
                                 std::string("--alpha=2 ") + base + " " + slow,
                                 std::string("--bogus ") + base + " " + slow, base,
                                 base + " /nonexistent/dir", base + " " + tmp("empty-dir")}) {
    out.clear();
    EXPECT_EQ(RunCommand(compareTool() + " " + bad, out), 2) << bad << ": " << out;
    EXPECT_NE(out.find("compare: "), std::string::npos) << out;
  }
}

TEST(Compare, ReadsGoogleBenchmarkJson) {
  // Repetitions as Google Benchmark writes them (and tessel's benchmark.json does), in us.
  nlohmann::json base = {{"benchmarks", nlohmann::json::array()}},
                 next = {{"benchmarks", nlohmann::json::array()}};
  std::normal_distribution<double> noise(0, 1);
  for (int i = 0; i < 30; ++i) {
    base["benchmarks"].push_back({{"name", "BM_x"}, {"run_name", "BM_x"},
                                  {"run_type", "iteration"}, {"real_time", 100 + noise(gen())},
                                  {"cpu_time", 100}, {"time_unit", "us"}});
    next["benchmarks"].push_back({{"name", "BM_x"}, {"run_name", "BM_x"},
                                  {"run_type", "iteration"}, {"real_time", 120 + noise(gen())},
                                  {"cpu_time", 100}, {"time_unit", "us"}});
  }
  base["benchmarks"].push_back({{"name", "BM_x_median"}, {"run_name", "BM_x"},
                                {"run_type", "aggregate"}, {"aggregate_name", "median"},
                                {"real_time", 100}, {"time_unit", "us"}});
  std::string dir = tmp("gb");
  std::ofstream(dir + "/base.json") << base.dump();
  std::ofstream(dir + "/next.json") << next.dump();
  auto b = LoadBenchmarks(dir + "/base.json"), n = LoadBenchmarks(dir + "/next.json");
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ(b->at("BM_x").samples.size(), 30u);
  EXPECT_NEAR(b->at("BM_x").medianSeconds, 100e-6, 2e-6);
  CompareResult result = Compare(*b, *n, CompareOptions{});
  ASSERT_EQ(result.rows.size(), 1u);
  EXPECT_EQ(result.rows[0].verdict, "slower");
  // A malformed file is an error naming the entry.
  std::ofstream(dir + "/bad.json") << R"({"benchmarks": [{"name": "x", "real_time": "fast"}]})";
  auto bad = LoadBenchmarks(dir + "/bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("benchmarks[0]"), std::string::npos) << bad.status();
  // Fields of the wrong type are errors too, never an exception.
  for (const std::string &text :
       {std::string(R"({"benchmarks": [{"name": "x", "real_time": 1, "run_type": 7}]})"),
        std::string(R"({"benchmarks": [{"name": "x", "real_time": 1, "time_unit": []}]})"),
        std::string(R"({"benchmarks": [{"name": "x", "real_time": 1, "error_occurred": "y"}]})"),
        std::string(R"({"benchmarks": [{"name": "x", "real_time": -1}]})"),
        std::string(R"({"benchmarks": [7]})"), std::string(R"({"benchmarks": {}})")}) {
    std::ofstream(dir + "/bad.json") << text;
    EXPECT_FALSE(LoadBenchmarks(dir + "/bad.json").ok()) << text;
  }
  // 100,000 levels of nesting: an error, not a crash.
  std::ofstream(dir + "/deep.json") << "{\"benchmarks\": [{\"name\": \"x\", \"real_time\": 1, "
                                       "\"config\": " + std::string(100000, '[') +
                                           std::string(100000, ']') + "}]}";
  auto deep = LoadBenchmarks(dir + "/deep.json");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested"), std::string::npos) << deep.status();
}

} // namespace

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc > 1)
    compareToolPath = argv[1]; // $(rootpath //autotune:compare)
  return RUN_ALL_TESTS();
}
