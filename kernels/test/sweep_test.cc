//===- sweep_test.cc - a tiny sweep end to end: records, resume, benchmark JSON, bundle -*- C++ -*-===//

#include "autotune/Records.h"
#include "autotune/test/RunCommand.h"
#include "runtime/Bundle.h"
#include "runtime/Files.h"
#include "runtime/Device.h"

#include "nlohmann/json.hpp"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <cstdio>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

namespace {

tessel::runtime::Device &cpuDevice() {
  static std::unique_ptr<tessel::runtime::Device> device =
      *tessel::runtime::Device::Create("cpu");
  return *device;
}

using tessel::test::RunCommand;
int run(const std::string &cmd, std::string &output) { return RunCommand(cmd, output); }

TEST(Sweep, TinySweepRecordsResumesAndBundles) {
  std::string out = std::string(getenv("TEST_TMPDIR")) + "/sweep";
  std::string cmd = "autotune/sweep --kernels=softmax,row_sum --strategy=exhaustive "
                    "--min-time=0.01 --out=" + out;
  std::string log;
  ASSERT_EQ(run(cmd, log), 0) << log;
  EXPECT_NE(log.find("8/8"), std::string::npos) << log; // progress reached the end
  EXPECT_NE(log.find("best config"), std::string::npos) << log; // the summary table
  EXPECT_NE(log.find("vs baseline"), std::string::npos) << log;
  std::string warning;
  auto records = tessel::autotune::ReadRecords(out + "/records.jsonl", &warning);
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 8u); // 2 vector widths x 2 prefetch distances x 2 kernels
  for (const auto &r : *records) {
    EXPECT_EQ(r.status, "ok") << r.error;
    EXPECT_GT(r.medianSeconds, 0);
    EXPECT_GE(r.repetitions, 5);
    EXPECT_GT(r.gbps, 0);
    // The evidence: every repetition, what was measured, where, from which source.
    EXPECT_EQ(int64_t(r.samples.size()), r.repetitions);
    for (double s : r.samples)
      EXPECT_GT(s, 0);
    EXPECT_EQ(r.artifactSha256.size(), 64u);
    EXPECT_EQ(r.sourceSha256.size(), 64u);
    EXPECT_EQ(r.strategy, "exhaustive");
    nlohmann::json env = nlohmann::json::parse(r.environmentJson);
    EXPECT_TRUE(env.contains("host_cpu")) << env.dump();
    EXPECT_GE(env.value("host_cores", 0), 1) << env.dump();
    EXPECT_EQ(env.value("device", ""), "cpu") << env.dump();
    EXPECT_NE(env.value("baseline_library", "").find("OpenBLAS"), std::string::npos);
  }

  // --resume measures nothing twice.
  log.clear();
  ASSERT_EQ(run(cmd + " --resume", log), 0) << log;
  EXPECT_NE(log.find("sweep: 0 measured"), std::string::npos) << log;
  records = tessel::autotune::ReadRecords(out + "/records.jsonl");
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 8u);

  // Google Benchmark JSON and the bundle: one best entry per kernel.
  std::string text;
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(out + "/benchmark.json", text));
  nlohmann::json gb = nlohmann::json::parse(text);
  int medians = 0;
  std::map<std::string, int> repetitions;
  for (const auto &b : gb["benchmarks"]) {
    if (b["run_type"] == "iteration")
      repetitions[b["run_name"]]++;
    if (b.value("aggregate_name", "") != "median")
      continue;
    ++medians; // each best against a copy of the same bytes
    EXPECT_GT(b.value("vs_baseline", 0.0), 0.0) << b.dump();
  }
  EXPECT_EQ(medians, 2);
  ASSERT_EQ(repetitions.size(), 2u); // the best record's repetitions, one entry each
  for (const auto &[id, count] : repetitions)
    EXPECT_GE(count, 5) << id;
  auto bundle = tessel::runtime::Bundle::Open(out + "/bundle");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->entries().size(), 2u);
  auto choice = (*bundle)->Find("softmax", {{"rows", 1024}, {"cols", 1000}}, "f32");
  ASSERT_TRUE(choice.ok());
  EXPECT_TRUE(choice->exact);
  EXPECT_TRUE((*bundle)->Load(*choice->entry, cpuDevice()).ok());
  // The row is one block (BLOCK = 1024 for 1000 columns): the entry serves 513..1024 columns,
  // and a wider row finds no entry rather than a wrong one.
  EXPECT_EQ(choice->entry->serves.at("cols"), std::make_pair(int64_t(513), int64_t(1024)));
  EXPECT_FALSE((*bundle)->Find("softmax", {{"rows", 1024}, {"cols", 4096}}, "f32").ok());
}

TEST(Sweep, OneSweepPerOutputDirectory) {
  // A second sweep on a directory in use (its lock held, as a running sweep holds it) is refused
  // with the holder named, and touches nothing there.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/locked";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/records.jsonl") << "";
  int fd = open((dir + "/.sweep.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  std::string holder = "pid 4242 on testhost since 2026-11-23T00:00:00Z\n";
  ASSERT_EQ(write(fd, holder.data(), holder.size()), ssize_t(holder.size()));
  std::string cmd = "autotune/sweep --kernels=row_sum --strategy=random --budget=1 "
                    "--min-time=0.001 --flush=off --out=" + dir;
  std::string log;
  EXPECT_EQ(run(cmd, log), 2) << log;
  EXPECT_NE(log.find("is in use by another sweep (pid 4242 on testhost"), std::string::npos)
      << log;
  EXPECT_TRUE(std::filesystem::exists(dir + "/records.jsonl")); // not removed
  EXPECT_FALSE(std::filesystem::exists(dir + "/benchmark.json"));
  // Ingesting a runner's results writes there too: refused the same way.
  log.clear();
  EXPECT_EQ(run("autotune/sweep --ingest=" + dir, log), 2) << log;
  EXPECT_NE(log.find("is in use by another sweep (pid 4242 on testhost"), std::string::npos)
      << log;
  EXPECT_FALSE(std::filesystem::exists(dir + "/benchmark.json"));
  // Released: the sweep runs (replacing what is there), and its own lock is gone with it.
  close(fd);
  log.clear();
  ASSERT_EQ(run(cmd + " --overwrite", log), 0) << log;
  fd = open((dir + "/.sweep.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  close(fd);
}

TEST(Sweep, GpuCompilerAbortIsThatCandidatesCompileError) {
  // GPU candidates compile in child processes: a compiler that aborts on one configuration (as
  // LLVM does on some errors) fails that candidate with the reason, and the sweep goes on to
  // build the others with the real compiler.
  std::string tmp = getenv("TEST_TMPDIR");
  std::string fake = tmp + "/aborting-compiler";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\n"
           << "case \"$*\" in *num_warps=8*) echo 'LLVM ERROR: unsupported here' >&2; "
           << "kill -ABRT $$;; esac\n"
           << "exec " << std::filesystem::absolute("tools/tessel-compile").string()
           << " \"$@\"\n";
  }
  ASSERT_EQ(chmod(fake.c_str(), 0755), 0);
  std::string dir = tmp + "/gpu-abort", log;
  ASSERT_EQ(run("TESSEL_COMPILE=" + fake +
                    " autotune/sweep --target=cuda:sm_90 --build-only --kernels=row_sum "
                    "--strategy=exhaustive --shapes=default --out=" + dir,
                log),
            0)
      << log;
  EXPECT_NE(log.find("built 2 candidates for cuda:sm_90 (1 did not compile)"), std::string::npos)
      << log;
  EXPECT_NE(log.find("tessel-compile was killed by signal Aborted: LLVM ERROR: unsupported here"),
            std::string::npos)
      << log;
  std::string list;
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(dir + "/candidates.jsonl", list));
  EXPECT_NE(list.find("killed by signal Aborted"), std::string::npos) << list;
}

TEST(Sweep, AnotherCompilerBuildDoesNotReuseCachedArtifacts) {
  // The compile cache's key names the compiler's build, not only its version: artifacts built
  // by one tessel-compile are not handed out for another (a changed compiler must rebuild),
  // and the same compiler finds its own again.
  std::string tmp = getenv("TEST_TMPDIR"), dir = tmp + "/two-compilers";
  std::string real = std::filesystem::absolute("tools/tessel-compile").string();
  auto wrapper = [&](const std::string &name, const std::string &comment) {
    std::string path = tmp + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n# " << comment << "\nexec " << real << " \"$@\"\n";
    EXPECT_EQ(chmod(path.c_str(), 0755), 0);
    return path;
  };
  std::string a = wrapper("compiler-a", "build a"), b = wrapper("compiler-b", "build b");
  auto cached = [&] {
    size_t n = 0;
    for (const auto &entry : std::filesystem::directory_iterator(dir + "/artifacts-cache"))
      n += entry.path().extension() == ".so";
    return n;
  };
  auto build = [&](const std::string &compiler) {
    std::string log;
    EXPECT_EQ(run("TESSEL_COMPILE=" + compiler +
                      " autotune/sweep --target=cuda:sm_90 --build-only --kernels=row_sum "
                      "--strategy=exhaustive --shapes=default --overwrite --out=" + dir,
                  log),
              0)
        << log;
  };
  build(a);
  size_t first = cached();
  ASSERT_GT(first, 0u);
  build(b);
  EXPECT_EQ(cached(), 2 * first); // b built its own
  build(a);
  EXPECT_EQ(cached(), 2 * first); // a found its own
}

TEST(Sweep, BuildOnlyRunnerAndIngest) {
  // The builder / runner split, here on one machine: candidates built, run.sh run with
  // tessel-bench (as on a GPU host), its results ingested into records, summary, benchmark JSON
  // and a bundle.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/split";
  std::string log;
  ASSERT_EQ(run("autotune/sweep --kernels=row_sum,matmul --dtypes=f32 --strategy=random "
                "--budget=2 --shapes=default --min-time=0.001 --flush=off --build-only --out=" +
                    dir,
                log),
            0)
      << log;
  ASSERT_EQ(run("sh " + dir + "/run.sh $PWD/autotune/tessel-bench", log), 0) << log;
  log.clear();
  ASSERT_EQ(run("autotune/sweep --ingest=" + dir, log), 0) << log;
  EXPECT_NE(log.find("sweep: ingested 4 records"), std::string::npos) << log;
  auto records = tessel::autotune::ReadRecords(dir + "/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u);
  for (const auto &r : *records) {
    EXPECT_EQ(r.status, "ok") << r.error;
    EXPECT_GT(r.medianSeconds, 0);
    EXPECT_EQ(int64_t(r.samples.size()), r.repetitions);
    EXPECT_EQ(r.artifactSha256.size(), 64u);
    EXPECT_NE(r.environmentJson.find("host_cpu"), std::string::npos);
  }
  std::string text;
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(dir + "/benchmark.json", text));
  int withBaseline = 0;
  nlohmann::json gb = nlohmann::json::parse(text);
  for (const auto &b : gb["benchmarks"])
    withBaseline += b.value("aggregate_name", "") == "median" && b.value("vs_baseline", 0.0) > 0;
  std::string results0;
  tessel::runtime::ReadWholeFile(dir + "/results.jsonl", results0);
  // Row sum's copy baseline and matmul's GEMM (OpenBLAS here, cuBLAS on a GPU), timed in the
  // same run.
  EXPECT_EQ(withBaseline, 2);
  auto bundle = tessel::runtime::Bundle::Open(dir + "/bundle");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->entries().size(), 2u);
  // A results file from a run cut short: the candidates without a result are said, not made up.
  std::string results;
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(dir + "/results.jsonl", results));
  std::ofstream(dir + "/results.jsonl", std::ios::trunc) << results.substr(0, results.find("{\"candidate\": 2}"));
  log.clear();
  ASSERT_EQ(run("autotune/sweep --ingest=" + dir, log), 0) << log;
  EXPECT_NE(log.find("(3 built candidates had no result)"), std::string::npos) << log;
  // The group's baseline runs before its candidates: the run cut short still compares with it.
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(dir + "/benchmark.json", text));
  int cutWithBaseline = 0;
  nlohmann::json cut = nlohmann::json::parse(text);
  for (const auto &b : cut["benchmarks"])
    cutWithBaseline += b.value("aggregate_name", "") == "median" && b.value("vs_baseline", 0.0) > 0;
  EXPECT_EQ(cutWithBaseline, 1) << text;
  EXPECT_EQ(run("autotune/sweep --ingest=" + dir + "/nothing", log), 2);
  // Fields of the wrong type (a damaged or hand-edited results file): an error or a crash
  // record, never an exception escaping (each of these threw nlohmann's type_error).
  for (auto [from, to] : {std::pair<std::string, std::string>{"\"status\":\"ok\"", "\"status\":5"},
                          {"\"median_seconds\":", "\"median_seconds\":[1],\"x\":"},
                          {"\"host_cpu\":", "\"host_cpu\":[],\"y\":"}}) {
    std::string damaged = results0;
    for (size_t at = damaged.find(from); at != std::string::npos;
         at = damaged.find(from, at + to.size()))
      damaged.replace(at, from.size(), to);
    ASSERT_NE(damaged, results0) << from;
    std::ofstream(dir + "/results.jsonl", std::ios::trunc) << damaged;
    log.clear();
    int rc = run("autotune/sweep --ingest=" + dir, log);
    EXPECT_TRUE(rc == 0 || rc == 1 || rc == 2) << from << " -> " << to << ": exit " << rc << "\n"
                                               << log;
    EXPECT_EQ(log.find("terminate called"), std::string::npos) << log;
  }
}

std::set<std::string> keysOf(const std::string &path);

TEST(Sweep, ResumeKeepsTheRandomSampleAndTimeBudgetStopsEarly) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/random";
  std::string cmd = "autotune/sweep --kernels=matmul --dtypes=f32 --strategy=random --budget=3 "
                    "--shapes=M=64,N=64,K=64 --min-time=0.001 --flush=off --out=" + dir;
  std::string log;
  // No time at all: nothing is compiled or measured, and it says how to go on.
  ASSERT_EQ(run(cmd + " --time-budget=0.000001", log), 0) << log;
  EXPECT_NE(log.find("--time-budget of 0 s reached with 3 of 3 candidates left"),
            std::string::npos) << log;
  EXPECT_TRUE(keysOf(dir + "/records.jsonl").empty());
  // Resumed: the same sample of 3 (the seed is kept in OUT/seed), then nothing left.
  log.clear();
  ASSERT_EQ(run(cmd + " --resume", log), 0) << log;
  EXPECT_NE(log.find("sweep: 3 measured"), std::string::npos) << log;
  std::set<std::string> first = keysOf(dir + "/records.jsonl");
  EXPECT_EQ(first.size(), 3u);
  log.clear();
  ASSERT_EQ(run(cmd + " --resume", log), 0) << log;
  EXPECT_NE(log.find("sweep: 0 measured"), std::string::npos) << log;
  EXPECT_EQ(keysOf(dir + "/records.jsonl"), first);
  // A fresh sweep with another seed draws another sample (of 90 points).
  log.clear();
  ASSERT_EQ(run(cmd + "-other --seed=12345", log), 0) << log;
  ASSERT_EQ(run(cmd + "-other2 --seed=54321", log), 0) << log;
  EXPECT_NE(keysOf(dir + "-other/records.jsonl"), keysOf(dir + "-other2/records.jsonl"));
  EXPECT_EQ(run(cmd + "-bad --seed=abc", log), 2);
  // Numbers are parsed strictly: each of these was read as 0 (or ignored) before.
  for (const std::string &bad : {std::string("--budget=ten"), std::string("--budget=2.5"),
                                 std::string("--timeout=soon"), std::string("--min-time=x"),
                                 std::string("--time-budget=1h"), std::string("--flush=maybe"),
                                 std::string("--min-time=-1")}) {
    std::string out;
    EXPECT_EQ(run("autotune/sweep --kernels=matmul --out=" + dir + "-bad2 " + bad, out), 2)
        << bad << ": " << out;
    EXPECT_NE(out.find("sweep: "), std::string::npos) << out;
  }
  EXPECT_NE(log.find("the seed 'abc'"), std::string::npos) << log;
}

std::set<std::string> keysOf(const std::string &path) {
  std::set<std::string> keys;
  auto records = tessel::autotune::ReadRecords(path);
  EXPECT_TRUE(records.ok()) << records.status();
  if (records.ok())
    for (const auto &r : *records)
      keys.insert(r.key());
  return keys;
}

TEST(Sweep, ThreeShardsMergedEqualOneSweep) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/shards";
  std::string base = "autotune/sweep --kernels=matmul --dtypes=f32 --strategy=exhaustive "
                     "--shapes=M=64,N=64,K=64 --min-time=0.001 --flush=off --out=" + dir;
  std::string log;
  ASSERT_EQ(run(base + "/all", log), 0) << log;
  std::string merged = dir + "/merged.jsonl", inputs;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(run(base + "/" + std::to_string(i) + " --shard=" + std::to_string(i) + "/3", log), 0)
        << log;
    inputs += " " + dir + "/" + std::to_string(i) + "/records.jsonl";
  }
  ASSERT_EQ(run("autotune/merge " + merged + inputs, log), 0) << log;
  std::set<std::string> all = keysOf(dir + "/all/records.jsonl");
  EXPECT_GT(all.size(), 10u);
  EXPECT_EQ(keysOf(merged), all);
  for (int i = 0; i < 3; ++i)
    EXPECT_LT(keysOf(dir + "/" + std::to_string(i) + "/records.jsonl").size(), all.size());
}

TEST(Sweep, ResumeAfterAnInterruptedSweepMeasuresNothingTwice) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/interrupted";
  std::string cmd = "autotune/sweep --kernels=matmul --dtypes=f32 --strategy=exhaustive "
                    "--shapes=M=64,N=64,K=64 --min-time=0.05 --flush=off --out=" + dir;
  // Kill the sweep once a few records are on disk.
  std::string log;
  ASSERT_EQ(run("(" + cmd + " > /dev/null 2>&1 & pid=$!; "
                "while kill -0 $pid 2>/dev/null && "
                "[ \"$(cat " + dir + "/records.jsonl 2>/dev/null | wc -l)\" -lt 5 ]; do sleep 0.05; done; "
                "kill -9 $pid; wait $pid; true)", log), 0) << log;
  size_t before = keysOf(dir + "/records.jsonl").size();
  EXPECT_GE(before, 5u);
  log.clear();
  ASSERT_EQ(run(cmd + " --resume", log), 0) << log;
  auto records = tessel::autotune::ReadRecords(dir + "/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  std::set<std::string> keys;
  for (const auto &r : *records)
    EXPECT_TRUE(keys.insert(r.key()).second) << "measured twice: " << r.key();
  // Everything is there: the same set as an uninterrupted sweep.
  log.clear();
  ASSERT_EQ(run("autotune/sweep --kernels=matmul --dtypes=f32 --strategy=exhaustive "
                "--shapes=M=64,N=64,K=64 --min-time=0.001 --flush=off --out=" + dir + "-full", log),
            0);
  EXPECT_EQ(keys, keysOf(dir + "-full/records.jsonl"));
}

TEST(Sweep, ResumeAfterTheSourceChangedRebuildsTheBundledArtifact) {
  // Row sum tuned from a copy of the zoo's source; the copy is then edited so that it sums
  // twice the row. Resumed, the sweep measures nothing again but must not put the object built
  // from the old source into the bundle: the bundle's kernel computes the edited sum.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/edited";
  std::string log;
  ASSERT_EQ(run("mkdir -p " + dir + "/zoo/row_sum && cp kernels/row_sum/row_sum.py " + dir + "/zoo/row_sum/", log), 0);
  std::string cmd = "TESSEL_ZOO_DIR=" + dir + "/zoo autotune/sweep --kernels=row_sum "
                    "--strategy=exhaustive --min-time=0.001 --flush=off --out=" + dir + "/out";
  ASSERT_EQ(run(cmd, log), 0) << log;
  std::string source;
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(dir + "/zoo/row_sum/row_sum.py", source));
  const std::string from = "tl.store(out_ptr + row, tl.sum(x, axis=0))";
  size_t at = source.find(from);
  ASSERT_NE(at, std::string::npos);
  source.replace(at, from.size(), "tl.store(out_ptr + row, 2.0 * tl.sum(x, axis=0))");
  std::ofstream(dir + "/zoo/row_sum/row_sum.py") << source;
  log.clear();
  ASSERT_EQ(run(cmd + " --resume", log), 0) << log;
  EXPECT_NE(log.find("sweep: 0 measured"), std::string::npos) << log;

  auto bundle = tessel::runtime::Bundle::Open(dir + "/out/bundle");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  auto choice = (*bundle)->Find("row_sum", {{"rows", 1024}, {"cols", 1000}}, "f32");
  ASSERT_TRUE(choice.ok()) << choice.status();
  auto module = (*bundle)->Load(*choice->entry, cpuDevice());
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = (*module)->GetKernel(choice->entry->entry);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const int rows = 3, cols = 1000;
  std::vector<float> x(rows * cols), out(rows, NAN);
  for (int i = 0; i < rows * cols; ++i)
    x[i] = float((i * 7919) % 13) - 6.0f;
  // The cpu device's buffers are host memory: host arrays are valid arguments.
  ASSERT_TRUE(cpuDevice().Launch(*kernel, {rows, 1, 1}, {x.data(), out.data(), cols, cols}).ok());
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c)
      sum += x[r * cols + c];
    EXPECT_EQ(out[r], float(2 * sum)) << "row " << r;
  }
}

TEST(Sweep, CrashingAndHangingCandidatesAreRecordedAndTheSweepGoesOn) {
  // An edited row_sum: program 1 spins forever, program 2 stores far out of bounds. With one,
  // two and three rows, the candidates measure, hang and crash.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/faulty";
  std::string log;
  ASSERT_EQ(run("mkdir -p " + dir + "/zoo/row_sum", log), 0);
  std::ofstream(dir + "/zoo/row_sum/row_sum.py") << R"(import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
    spin = row
    while spin == 1:
        tl.store(out_ptr + row, spin.to(tl.float32))  # a side effect: the loop stays
    far = (row == 2).to(tl.int64) * 4000000000000
    tl.store(out_ptr + row + far, tl.sum(x, axis=0))
)";
  ASSERT_EQ(run("TESSEL_ZOO_DIR=" + dir + "/zoo autotune/sweep --kernels=row_sum "
                "--strategy=exhaustive --timeout=3 --min-time=0.001 "
                "'--shapes=rows=1,cols=8;rows=2,cols=8;rows=3,cols=8' --out=" + dir + "/out",
                log),
            0)
      << log;
  auto records = tessel::autotune::ReadRecords(dir + "/out/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  std::map<std::string, int> byStatus;
  for (const auto &r : *records) {
    std::string expected = r.shape.at("rows") == 1 ? "ok" : r.shape.at("rows") == 2 ? "timeout" : "crash";
    EXPECT_EQ(r.status, expected) << r.error;
    ++byStatus[r.status];
    if (r.status != "ok")
      EXPECT_FALSE(r.error.empty());
  }
  EXPECT_EQ(byStatus["ok"], 4); // 4 configurations per shape
  EXPECT_EQ(byStatus["timeout"], 4);
  EXPECT_EQ(byStatus["crash"], 4);
  EXPECT_NE(log.find("(none succeeded)"), std::string::npos) << log;
}

TEST(Sweep, WhereKeepsTheListedValues) {
  // row_sum's CPU space (vector width 0 or 64, prefetch 0 or 1) restricted to prefetch = 1:
  // two records, both with it; the whole space gives four.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/where";
  std::string base = "autotune/sweep --kernels=row_sum --strategy=exhaustive --min-time=0.001 "
                     "--flush=off --out=" + dir;
  std::string log;
  ASSERT_EQ(run(base + "/some --where=knob.prefetch=1", log), 0) << log;
  auto some = tessel::autotune::ReadRecords(dir + "/some/records.jsonl");
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_EQ(some->size(), 2u);
  for (const auto &r : *some)
    EXPECT_NE(r.configJson.find("\"knob.prefetch\":1"), std::string::npos) << r.configJson;
  ASSERT_EQ(run(base + "/both '--where=knob.prefetch=0|1'", log), 0) << log;
  auto both = tessel::autotune::ReadRecords(dir + "/both/records.jsonl");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(both->size(), 4u);
  // A knob of the compiler's (the CPU backend's unroll) that the space does not vary: the
  // space takes it at the values listed, every candidate built and measured with it.
  ASSERT_EQ(run(base + "/knob '--where=knob.prefetch=1,knob.unroll=1|2'", log), 0) << log;
  auto knob = tessel::autotune::ReadRecords(dir + "/knob/records.jsonl");
  ASSERT_TRUE(knob.ok()) << knob.status();
  EXPECT_EQ(knob->size(), 4u);
  std::map<std::string, int> unrolls;
  for (const auto &r : *knob) {
    EXPECT_EQ(r.status, "ok") << r.configJson;
    for (const char *u : {"\"knob.unroll\":1", "\"knob.unroll\":2"})
      unrolls[u] += r.configJson.find(u) != std::string::npos;
  }
  EXPECT_EQ(unrolls["\"knob.unroll\":1"], 2);
  EXPECT_EQ(unrolls["\"knob.unroll\":2"], 2);
  // Names and values the space does not have (nor the compiler: unroll is 1..8), malformed
  // text, and the evolutionary search.
  for (const char *bad : {"--where=NOPE=1", "--where=knob.prefetch=2", "--where=knob.prefetch=x",
                          "--where=knob.prefetch", "'--where=knob.prefetch=0,knob.prefetch=1'",
                          "--where=knob.unroll=9", "--where=knob.nope=1"}) {
    log.clear();
    EXPECT_EQ(run(base + "/bad " + bad, log), 2) << bad;
    EXPECT_NE(log.find("--where"), std::string::npos) << bad << ": " << log;
  }
  log.clear();
  EXPECT_EQ(run("autotune/sweep --strategy=evolutionary --where=knob.prefetch=1", log), 2);
  EXPECT_NE(log.find("--where restricts exhaustive and random"), std::string::npos) << log;
}

/// The bytes of `path`, or "(none)" when it cannot be read.
std::string contentsOf(const std::string &path) {
  std::string text;
  return tessel::runtime::ReadWholeFile(path, text) ? text : "(none)";
}

TEST(Sweep, AnEarlierSweepInTheOutputDirectoryIsKeptUnlessOverwritten) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/earlier";
  std::string cmd = "autotune/sweep --kernels=matmul --dtypes=f32 --strategy=exhaustive "
                    "--shapes=M=64,N=64,K=64 --min-time=0.05 --flush=off --out=" + dir;
  std::string log;
  ASSERT_EQ(run(cmd + " --where=BLOCK_M=32,BLOCK_N=32,BLOCK_K=16", log), 0) << log;
  const std::vector<std::string> outputs = {"records.jsonl", "benchmark.json",
                                            "bundle/manifest.json", "seed"};
  std::map<std::string, std::string> earlier;
  for (const std::string &name : outputs)
    earlier[name] = contentsOf(dir + "/" + name);
  ASSERT_NE(earlier["bundle/manifest.json"], "(none)");

  // A fresh sweep there is refused and changes nothing.
  log.clear();
  EXPECT_EQ(run(cmd, log), 2) << log;
  EXPECT_NE(log.find("--overwrite"), std::string::npos) << log;
  EXPECT_NE(log.find("--resume"), std::string::npos) << log;
  for (const std::string &name : outputs)
    EXPECT_EQ(contentsOf(dir + "/" + name), earlier[name]) << name;

  // --overwrite, killed once a new record is on disk: the earlier sweep's bundle and
  // benchmark JSON are gone with its records, never left beside the new ones.
  std::string old = dir + "-records-before";
  std::ofstream(old) << earlier["records.jsonl"];
  std::string recordsPath = dir + "/records.jsonl";
  log.clear();
  ASSERT_EQ(run("(" + cmd + " --overwrite > /dev/null 2>&1 & pid=$!; "
                "while kill -0 $pid 2>/dev/null && { cmp -s " + recordsPath + " " + old + " || "
                "[ \"$(cat " + recordsPath + " 2>/dev/null | wc -l)\" -lt 1 ]; }; do sleep 0.02; done; "
                "kill -9 $pid; wait $pid; true)", log), 0) << log;
  EXPECT_NE(contentsOf(dir + "/records.jsonl"), earlier["records.jsonl"]);
  EXPECT_FALSE(std::filesystem::exists(dir + "/bundle"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/benchmark.json"));
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();

  // --overwrite to the end: a new sweep's outputs.
  log.clear();
  ASSERT_EQ(run(cmd + " --overwrite --where=BLOCK_M=32,BLOCK_N=32,BLOCK_K=16", log), 0) << log;
  auto records = tessel::autotune::ReadRecords(dir + "/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  EXPECT_FALSE(records->empty());
  EXPECT_TRUE(tessel::runtime::Bundle::Open(dir + "/bundle").ok());
  EXPECT_NE(contentsOf(dir + "/benchmark.json"), "(none)");
}

TEST(Sweep, AFifoForRecordsIsRefusedNotWaitedOn) {
  // --resume reads records.jsonl: a FIFO there would block forever. Under a timeout, so that a
  // sweep that waits fails the test rather than hanging it.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/fifo-records";
  std::filesystem::create_directories(dir);
  ASSERT_EQ(mkfifo((dir + "/records.jsonl").c_str(), 0600), 0);
  std::string log;
  EXPECT_EQ(run("timeout 30 autotune/sweep --kernels=row_sum --dtypes=f32 --strategy=random "
                "--budget=1 --shapes=rows=4,cols=8 --min-time=0.001 --flush=off --resume --out=" +
                    dir,
                log),
            2)
      << log;
  EXPECT_NE(log.find(dir + "/records.jsonl is not a regular file"), std::string::npos) << log;
}

TEST(Sweep, BadArgumentsAreRefused) {
  std::string log;
  EXPECT_EQ(run("autotune/sweep --strategy=magic", log), 2);
  EXPECT_NE(log.find("--strategy: magic not in {exhaustive,random,evolutionary}"),
            std::string::npos) << log;
  log.clear();
  EXPECT_EQ(run("autotune/sweep --kernels=nope", log), 2);
  EXPECT_NE(log.find("no zoo kernel named 'nope'"), std::string::npos) << log;
  log.clear();
  EXPECT_EQ(run("autotune/sweep --shard=3/3", log), 2);
  log.clear();
  EXPECT_EQ(run("autotune/sweep --target=cpu:nosuch", log), 2);
  EXPECT_NE(log.find("'nosuch' is not a CPU LLVM knows"), std::string::npos) << log;
  log.clear();
  EXPECT_EQ(run("autotune/sweep --target=gpu", log), 2);
  EXPECT_NE(log.find("unknown target 'gpu' (expected cpu"), std::string::npos) << log;
}

TEST(Sweep, TargetAnotherCpu) {
  // Built for x86-64-v3 (AVX2, no AVX-512), measured here: the records and the bundle name that
  // CPU and its features, so the bundle loads on any machine with AVX2.
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/target";
  std::string log;
  ASSERT_EQ(run("autotune/sweep --kernels=row_sum --strategy=exhaustive --min-time=0.001 "
                "--flush=off --target=cpu:x86-64-v3 --out=" + dir, log), 0) << log;
  auto records = tessel::autotune::ReadRecords(dir + "/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u);
  for (const auto &r : *records) {
    EXPECT_EQ(r.status, "ok") << r.error;
    EXPECT_EQ(r.target.cpu, "x86-64-v3");
    EXPECT_NE(r.key().find("x86-64-v3"), std::string::npos);
  }
  auto bundle = tessel::runtime::Bundle::Open(dir + "/bundle");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const auto &features = (*bundle)->target().features;
  EXPECT_EQ((*bundle)->target().cpu, "x86-64-v3");
  EXPECT_NE(std::find(features.begin(), features.end(), "avx2"), features.end());
  EXPECT_EQ(std::find(features.begin(), features.end(), "avx512f"), features.end());
  auto choice = (*bundle)->Find("row_sum", {{"rows", 1024}, {"cols", 1000}}, "f32");
  ASSERT_TRUE(choice.ok()) << choice.status();
  EXPECT_TRUE((*bundle)->Load(*choice->entry, cpuDevice()).ok());
}

} // namespace
