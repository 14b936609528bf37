//===- records_test.cc - record lines, interrupted files, resume keys, merging -*- C++ -*-===//

#include "autotune/Records.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

#include <filesystem>
#include <fstream>
#include <random>

namespace {

using namespace tessel::autotune;

std::string tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

Record sample(int64_t m, int block, const std::string &status = "ok") {
  Record r;
  r.kernel = "gemm";
  r.shape = {{"M", m}, {"N", 256}, {"K", 128}};
  r.dtype = "f32";
  r.target.kind = tessel::TargetKind::Cpu;
  r.target.arch = "x86_64";
  r.target.features = {"avx512f"};
  r.configJson = "{\"BLOCK_M\": " + std::to_string(block) + ", \"tile\": [4, 64, 1]}";
  r.status = status;
  r.compileSeconds = 0.25;
  r.medianSeconds = 1e-3 * block;
  r.minSeconds = r.medianSeconds * 0.9;
  r.maxSeconds = r.medianSeconds * 1.2;
  r.repetitions = 20;
  r.tflops = 0.2;
  if (status != "ok")
    r.error = "compile failed: \"quoted\"\nsecond line";
  r.compilerVersion = "tessel test";
  r.timestamp = "2026-11-22T12:00:00Z";
  r.host = "box";
  return r;
}

TEST(Records, VersionTwoKeepsTheEvidence) {
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<double> d(1e-4, 2e-4);
  Record r = sample(512, 64);
  for (int i = 0; i < 1500; ++i)
    r.samples.push_back(d(gen));
  r.artifactSha256 = std::string(64, 'a');
  r.sourceSha256 = std::string(64, 'b');
  r.strategy = "evolutionary";
  r.environmentJson = "{\"gpu\":\"NVIDIA H100\",\"host_cores\":2}";
  absl::StatusOr<Record> back = FromJsonLine(ToJsonLine(r));
  ASSERT_TRUE(back.ok()) << back.status();
  // At most the last kMaxRecordSamples are kept, in order.
  ASSERT_EQ(back->samples.size(), kMaxRecordSamples);
  EXPECT_EQ(back->samples.front(), r.samples[r.samples.size() - kMaxRecordSamples]);
  EXPECT_EQ(back->samples.back(), r.samples.back());
  EXPECT_EQ(back->artifactSha256, r.artifactSha256);
  EXPECT_EQ(back->sourceSha256, r.sourceSha256);
  EXPECT_EQ(back->strategy, "evolutionary");
  EXPECT_EQ(nlohmann::json::parse(back->environmentJson),
            nlohmann::json::parse(r.environmentJson));
  nlohmann::json line = nlohmann::json::parse(ToJsonLine(r));
  EXPECT_EQ(line["schema_version"], 2);
  EXPECT_EQ(line["benchmark_id"], "gemm/f32/K=128,M=512,N=256/cpu");
  EXPECT_EQ(line["direction"], "smaller_is_better");
  EXPECT_EQ(line["unit"], "seconds");
  // A sample that is not a time is refused.
  line["samples_seconds"] = {1e-3, -1.0};
  EXPECT_FALSE(FromJsonLine(line.dump()).ok());
  line["samples_seconds"] = {1e-3, "x"};
  EXPECT_FALSE(FromJsonLine(line.dump()).ok());
}

TEST(Records, VersionOneRecordsAreStillRead) {
  // A record exactly as tessel wrote them before the evidence fields.
  std::string v1 =
      R"({"compile_seconds":0.5,"compiler_version":"tessel 0.1","config":{"BLOCK_M":32},)"
      R"("dtype":"f32","gbps":0.0,"host":"box","kernel":"gemm","max_seconds":0.003,)"
      R"("median_seconds":0.002,"min_seconds":0.001,"repetitions":7,"schema_version":1,)"
      R"("shape":{"K":64,"M":64,"N":64},"status":"ok","target":{"arch":"x86_64",)"
      R"("features":["avx2"],"kind":"cpu"},"tflops":0.1,"timestamp":"2026-11-01T00:00:00Z"})";
  absl::StatusOr<Record> r = FromJsonLine(v1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->medianSeconds, 0.002);
  EXPECT_TRUE(r->samples.empty());
  EXPECT_EQ(r->artifactSha256, "");
  EXPECT_EQ(r->benchmarkId(), "gemm/f32/K=64,M=64,N=64/cpu");
  // Written back, it becomes a version 2 record with the same measurement and key.
  absl::StatusOr<Record> again = FromJsonLine(ToJsonLine(*r));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->key(), r->key());
  EXPECT_EQ(nlohmann::json::parse(ToJsonLine(*r))["schema_version"], 2);
}

TEST(Records, EveryRecordIsValidatedOnRead) {
  // Each of these was accepted once (a record with median -1 made a bundle ship a slower
  // configuration); each is now an error that says what is wrong.
  nlohmann::json good = nlohmann::json::parse(ToJsonLine(sample(512, 64)));
  ASSERT_TRUE(FromJsonLine(good.dump()).ok());
  std::vector<std::pair<std::string, nlohmann::json>> bad;
  auto with = [&](const std::string &what, const std::string &key, nlohmann::json value) {
    nlohmann::json j = good;
    j[key] = value;
    bad.push_back({what, j});
  };
  with("negative median", "median_seconds", -1.0);
  with("zero median of an ok record", "median_seconds", 0.0);
  with("min above the median", "min_seconds", 1.0);
  with("negative max", "max_seconds", -0.5);
  with("no repetitions of an ok record", "repetitions", 0);
  with("negative rate", "gbps", -3.0);
  with("non-integer schema version", "schema_version", 1.5);
  with("negative dimension", "shape", {{"M", -512}, {"N", 256}, {"K", 128}});
  with("fractional dimension", "shape", {{"M", 512.5}, {"N", 256}, {"K", 128}});
  with("float configuration value", "config", {{"BLOCK_M", 64.5}});
  with("nested float configuration value", "config", {{"tile", {4, 64.25, 1}}});
  with("negative compile time", "compile_seconds", -1.0);
  for (const auto &[what, j] : bad)
    EXPECT_FALSE(FromJsonLine(j.dump()).ok()) << what << ": " << j.dump();
  // A failed candidate has no timing: zeros are fine there.
  nlohmann::json failed = nlohmann::json::parse(ToJsonLine(sample(512, 64, "crash")));
  failed["median_seconds"] = 0.0;
  failed["min_seconds"] = 0.0;
  failed["max_seconds"] = 0.0;
  failed["repetitions"] = 0;
  EXPECT_TRUE(FromJsonLine(failed.dump()).ok()) << FromJsonLine(failed.dump()).status();
}

TEST(Records, DeeplyNestedJsonIsAnErrorNotACrash) {
  // 100,000 levels: nlohmann parses them, but copying or printing recurses once per level.
  const int depth = 100000;
  nlohmann::json good = nlohmann::json::parse(ToJsonLine(sample(512, 64)));
  for (const std::string &field : {std::string("environment"), std::string("config")}) {
    std::string line = good.dump();
    std::string deep = std::string(depth, '[') + std::string(depth, ']');
    line.insert(line.size() - 1, ",\"" + field + "_\":" + deep);
    nlohmann::json j = good;
    std::string text = good.dump();
    // Replace the field's value by the deep one.
    std::string key = "\"" + field + "\":";
    size_t at = text.find(key) + key.size();
    size_t end = at;
    for (int level = 0; end < text.size(); ++end) {
      level += text[end] == '{' || text[end] == '[';
      level -= text[end] == '}' || text[end] == ']';
      if (level == 0)
        break;
    }
    text.replace(at, end + 1 - at, "{\"x\":" + deep + "}");
    absl::StatusOr<Record> r = FromJsonLine(text);
    ASSERT_FALSE(r.ok()) << field;
    EXPECT_NE(r.status().message().find("nested"), std::string::npos) << r.status();
  }
}

TEST(Records, RoundTripKeepsEveryField) {
  Record r = sample(512, 64, "compile_error");
  absl::StatusOr<Record> back = FromJsonLine(ToJsonLine(r));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ToJsonLine(*back), ToJsonLine(r));
  EXPECT_EQ(back->error, r.error);
  EXPECT_EQ(back->key(), r.key());
  // The key does not depend on how the config's keys were ordered.
  Record reordered = r;
  reordered.configJson = "{\"tile\": [4, 64, 1], \"BLOCK_M\": 64}";
  EXPECT_EQ(reordered.key(), r.key());
  EXPECT_NE(sample(512, 32).key(), r.key());
  // Built for another CPU (sweep --target=cpu:NAME): kept, and another candidate.
  Record other = r;
  other.target.cpu = "znver4";
  absl::StatusOr<Record> otherBack = FromJsonLine(ToJsonLine(other));
  ASSERT_TRUE(otherBack.ok()) << otherBack.status();
  EXPECT_EQ(otherBack->target.cpu, "znver4");
  EXPECT_EQ(otherBack->key(), other.key());
  EXPECT_NE(other.key(), r.key());
}

TEST(Records, AppendedRecordsSurviveAnInterruptedWrite) {
  std::string path = tmp("interrupted.jsonl");
  std::filesystem::remove(path);
  {
    auto w = RecordWriter::Open(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(sample(512, 32)).ok());
    ASSERT_TRUE((*w)->Append(sample(512, 64)).ok());
  }
  // A killed sweep leaves half a line at the end.
  std::string half = ToJsonLine(sample(512, 128));
  std::ofstream(path, std::ios::app) << half.substr(0, half.size() / 2);
  std::string warning;
  auto records = ReadRecords(path, &warning);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 2u);
  EXPECT_NE(warning.find("interrupted.jsonl:3: ignoring an incomplete last record"),
            std::string::npos);
  auto keys = MeasuredKeys(path);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->size(), 2u);
  EXPECT_TRUE(keys->count(sample(512, 64).key()));
  EXPECT_FALSE(keys->count(sample(512, 128).key()));
  // Resuming: the writer drops the partial line, then appends after the complete ones.
  {
    auto w = RecordWriter::Open(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Append(sample(512, 128)).ok());
  }
  warning.clear();
  records = ReadRecords(path, &warning);
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_EQ(records->size(), 3u);
  EXPECT_EQ(warning, "");
}

TEST(Records, CorruptLinesAreErrorsWithTheirLine) {
  std::string path = tmp("corrupt.jsonl");
  std::ofstream(path) << ToJsonLine(sample(1, 1)) << "\n{\"schema_version\": 1}\n"
                      << ToJsonLine(sample(2, 2)) << "\n";
  auto records = ReadRecords(path);
  ASSERT_FALSE(records.ok());
  EXPECT_NE(std::string(records.status().message()).find("corrupt.jsonl:2: bad record"),
            std::string::npos);
  std::ofstream(path) << "{\"schema_version\": 9}\n";
  records = ReadRecords(path);
  ASSERT_FALSE(records.ok());
  EXPECT_NE(std::string(records.status().message()).find("schema version 9"), std::string::npos);
  std::ofstream(path) << ToJsonLine(sample(1, 1)).replace(ToJsonLine(sample(1, 1)).find("\"ok\""), 4, "\"fine\"") << "\n";
  records = ReadRecords(path);
  ASSERT_FALSE(records.ok());
  EXPECT_NE(std::string(records.status().message()).find("unknown status \"fine\""),
            std::string::npos);
  EXPECT_FALSE(ReadRecords(tmp("missing.jsonl")).ok());
  auto none = MeasuredKeys(tmp("missing.jsonl"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(Records, MergeKeepsOneRecordPerCandidate) {
  std::string a = tmp("a.jsonl"), b = tmp("b.jsonl"), out = tmp("merged.jsonl");
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  {
    auto wa = RecordWriter::Open(a);
    auto wb = RecordWriter::Open(b);
    ASSERT_TRUE(wa.ok() && wb.ok());
    for (int block : {16, 32, 64})
      ASSERT_TRUE((*wa)->Append(sample(512, block)).ok());
    for (int block : {64, 128})
      ASSERT_TRUE((*wb)->Append(sample(512, block)).ok());
  }
  ASSERT_TRUE(MergeRecords({a, b}, out).ok());
  auto merged = ReadRecords(out);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->size(), 4u);
}

TEST(Records, MutatedLinesNeverCrash) {
  std::string good = ToJsonLine(sample(512, 64, "crash"));
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  std::mt19937 gen(seed);
  for (int i = 0; i < 2000; ++i) {
    std::string m = good;
    for (int e = 0, n = 1 + int(gen() % 3); e < n && !m.empty(); ++e)
      m[gen() % m.size()] = "{}[]:,\"0123456789 -eE.xyz"[gen() % 24];
    (void)FromJsonLine(m);
  }
}

} // namespace
