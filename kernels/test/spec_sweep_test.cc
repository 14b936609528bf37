//===- spec_sweep_test.cc - sweep --spec: users' kernel files tuned to records and bundles -===//

#include "autotune/Records.h"
#include "autotune/test/RunCommand.h"
#include "runtime/Bundle.h"
#include "runtime/Files.h"
#include "runtime/Launcher.h"

#include "nlohmann/json.hpp"

#include "gtest/gtest.h"

#include <filesystem>
#include <cmath>
#include <fstream>
#include <random>

namespace {

using tessel::test::RunCommand;

std::string Tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

nlohmann::json Manifest(const std::string &out) {
  std::string text;
  EXPECT_TRUE(tessel::runtime::ReadWholeFile(out + "/bundle/manifest.json", text));
  return nlohmann::json::parse(text, nullptr, false);
}

TEST(SpecSweep, ExamplesTunedToRecordsAndABundleDispatchingOnTheKey) {
  std::string out = Tmp("examples");
  std::string log;
  ASSERT_EQ(RunCommand("autotune/sweep --spec=examples --strategy=exhaustive --min-time=0.01 "
                       "--out=" + out, log), 0) << log;
  EXPECT_NE(log.find("'num_warps', which the cpu backend does not have: dropped"),
            std::string::npos) << log;
  auto records = tessel::autotune::ReadRecords(out + "/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  // matmul: 4 configs x 2 shapes; rms_norm: its 4 configs differ only in num_warps (no cpu
  // knob), measured once per shape.
  ASSERT_EQ(records->size(), 10u) << log;
  for (const auto &r : *records) {
    EXPECT_EQ(r.status, "ok") << r.kernel << " " << r.configJson << ": " << r.error;
    EXPECT_EQ(r.specSha256.size(), 64u);
    EXPECT_EQ(r.sourceSha256.size(), 64u);
  }
  nlohmann::json m = Manifest(out);
  ASSERT_TRUE(m.is_object()) << log;
  int entries = 0;
  for (const auto &k : m["kernels"])
    for (const auto &e : k["entries"]) {
      ++entries;
      if (k["name"] == "rms_norm_kernel") {
        // key=["n_cols"]: entries dispatch on COLS alone.
        EXPECT_EQ(e["shape"].size(), 1u) << e.dump();
        EXPECT_TRUE(e["shape"].contains("COLS")) << e.dump();
        EXPECT_EQ(e["config"]["BLOCK"], 1024) << e.dump();
      } else {
        ASSERT_EQ(k["name"], "matmul_kernel");
        EXPECT_EQ(e["shape"].size(), 3u) << e.dump();
        // The heuristic, per shape: K = 128 is a multiple of BLOCK_K = 32, K = 100 is not.
        EXPECT_EQ(e["config"]["EVEN_K"], e["shape"]["K"].get<int>() % 32 == 0) << e.dump();
      }
    }
  EXPECT_EQ(entries, 4);
  // The runtime opens it, each kernel with its launch contract from the spec.
  auto bundle = tessel::runtime::Bundle::Open(out + "/bundle");
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  for (const tessel::runtime::BundleEntry &e : (*bundle)->entries()) {
    ASSERT_TRUE(e.launch) << e.kernel;
    if (e.kernel != "matmul_kernel") {
      EXPECT_EQ(e.launch->dispatch, (std::vector<std::string>{"COLS"}));
      continue;
    }
    EXPECT_EQ(e.launch->grid, "(cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)");
    EXPECT_EQ(e.launch->dims, (std::vector<std::string>{"M", "N", "K"}));
    ASSERT_EQ(e.launch->args.size(), 17u); // 3 tensors, M N K, 6 strides, 5 meta-parameters
    EXPECT_EQ(e.launch->args[1].shape, (std::vector<std::string>{"K", "N"}));
    EXPECT_EQ(e.launch->args[2].role, "out");
    EXPECT_EQ(e.launch->args[6].value, "stride(a_ptr, 0)");
    EXPECT_EQ(e.launch->args[7].kind, "constexpr");
    EXPECT_EQ(e.launch->args[16].kind, "meta"); // EVEN_K, from the heuristic: the entry's config
  }

  // Launched by the runtime from the contract alone, on sizes it was not tuned for.
  auto device = tessel::runtime::Device::Create("cpu");
  ASSERT_TRUE(device.ok()) << device.status();
  tessel::runtime::Launcher launcher(**bundle, **device);
  std::mt19937_64 gen(std::random_device{}());
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  {
    const int64_t m = 70, n = 90, k = 100; // K = 100: the K=128 entry (EVEN_K) cannot serve it
    std::vector<float> a(m * k), b(k * n), c(m * n, NAN);
    for (float &x : a)
      x = u(gen);
    for (float &x : b)
      x = u(gen);
    tessel::runtime::LaunchRequest req;
    req.tensors = {{"a_ptr", {a.data(), "f32", {m, k}, {}}},
                   {"b_ptr", {b.data(), "f32", {k, n}, {}}},
                   {"c_ptr", {c.data(), "f32", {m, n}, {}}}};
    auto report = launcher.Launch("matmul_kernel", req);
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_TRUE((*device)->Synchronize().ok());
    EXPECT_EQ(report->choice.entry->shape.at("K"), 100) << report->choice.explanation;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double want = 0;
        for (int64_t l = 0; l < k; ++l)
          want += double(a[i * k + l]) * b[l * n + j];
        ASSERT_NEAR(c[i * n + j], want, 1e-3 * (10 + std::fabs(want))) << i << "," << j;
      }
    // Mismatches are errors before anything runs.
    auto bad = req;
    bad.tensors.erase("b_ptr");
    EXPECT_NE(std::string(launcher.Launch("matmul_kernel", bad).status().message())
                  .find("tensor 'b_ptr' is missing"), std::string::npos);
    bad = req;
    bad.tensors["b_ptr"].shape = {k + 1, n};
    EXPECT_NE(std::string(launcher.Launch("matmul_kernel", bad).status().message())
                  .find("has K = 101, elsewhere it is 100"), std::string::npos)
        << launcher.Launch("matmul_kernel", bad).status();
    bad = req;
    bad.tensors["c_ptr"].dtype = "f16";
    EXPECT_NE(std::string(launcher.Launch("matmul_kernel", bad).status().message())
                  .find("tensor 'c_ptr' is f16, the kernel takes f32"), std::string::npos)
        << launcher.Launch("matmul_kernel", bad).status();
    bad = req;
    bad.tensors["a_ptr"].shape = {m * k};
    EXPECT_FALSE(launcher.Launch("matmul_kernel", bad).ok());
    EXPECT_FALSE(launcher.Launch("no_such_kernel", req).ok());
  }
  {
    // rms_norm: keyed by COLS alone; ROWS (5) was never tuned.
    const int64_t rows = 5, cols = 1000;
    std::vector<float> x(rows * cols), w(cols), y(rows * cols, NAN);
    for (float &v : x)
      v = u(gen);
    for (float &v : w)
      v = u(gen);
    tessel::runtime::LaunchRequest req;
    req.tensors = {{"x_ptr", {x.data(), "f32", {rows, cols}, {}}},
                   {"w_ptr", {w.data(), "f32", {cols}, {}}},
                   {"y_ptr", {y.data(), "f32", {rows, cols}, {}}}};
    auto report = launcher.Launch("rms_norm_kernel", req);
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_TRUE((*device)->Synchronize().ok());
    EXPECT_EQ(report->grid.x, rows);
    for (int64_t r = 0; r < rows; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < cols; ++c)
        ss += double(x[r * cols + c]) * x[r * cols + c];
      double scale = 1 / std::sqrt(ss / cols + 1e-6);
      for (int64_t c = 0; c < cols; ++c)
        ASSERT_NEAR(y[r * cols + c], x[r * cols + c] * scale * w[c], 1e-4) << r << "," << c;
    }
  }
}

const char *const kKernel = R"(import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (3, 64, 128, 256)], key=["n"])
@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    if BLOCK == 128:
        x = x + 0.1
    tl.store(y_ptr + i, x * 2, mask=i < n)
)";

const char *const kSpec = R"SPEC(source = "k.py"
kernel = "scale"
dims = ["N"]
grid = "lambda META: (cdiv(N, META['BLOCK']),)"
[args]
x_ptr = { tensor = "f32[N]", init = "uniform(1, 2)" }
y_ptr = { tensor = "f32[N]", role = "out" }
n = "N"
[shapes]
cpu = { default = { N = 5000 } }
)SPEC";

TEST(SpecSweep, WrongResultsAndCompileErrorsAreRecordedNotBundled) {
  std::string dir = Tmp("wrong");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/k.py") << kKernel;
  std::ofstream(dir + "/s.toml") << kSpec;
  std::string out = Tmp("wrong-out"), log;
  ASSERT_EQ(RunCommand("autotune/sweep --spec=" + dir + "/s.toml --strategy=exhaustive "
                       "--min-time=0.01 --out=" + out, log), 0) << log;
  auto records = tessel::autotune::ReadRecords(out + "/records.jsonl");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u) << log;
  std::map<std::string, std::string> status;
  for (const auto &r : *records)
    status[r.configJson] = r.status + ": " + r.error;
  // BLOCK = 3 does not compile (tl.arange needs a power of two): the error names the source.
  EXPECT_EQ(status["{\"BLOCK\":3}"].rfind("compile_error", 0), 0u) << status["{\"BLOCK\":3}"];
  EXPECT_NE(status["{\"BLOCK\":3}"].find("k.py:8:"), std::string::npos) << status["{\"BLOCK\":3}"];
  // BLOCK = 128 adds 0.1 before doubling: checked against the reference configuration
  // (BLOCK = 64, the first that compiles) on the same inputs, a mismatch.
  EXPECT_EQ(status["{\"BLOCK\":128}"].rfind("mismatch", 0), 0u) << status["{\"BLOCK\":128}"];
  EXPECT_EQ(status["{\"BLOCK\":64}"], "ok: ");
  EXPECT_EQ(status["{\"BLOCK\":256}"], "ok: ");
  nlohmann::json m = Manifest(out);
  ASSERT_TRUE(m.is_object());
  for (const auto &k : m["kernels"])
    for (const auto &e : k["entries"])
      EXPECT_NE(e["config"]["BLOCK"], 128);
}

TEST(SpecSweep, ABadSpecIsAnErrorBeforeAnyRecord) {
  std::string dir = Tmp("bad");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/k.py") << kKernel;
  std::string spec = kSpec;
  spec.replace(spec.find("n = \"N\""), 7, "n = \"N + M\"");
  std::ofstream(dir + "/s.toml") << spec;
  std::string out = Tmp("bad-out"), log;
  EXPECT_NE(RunCommand("autotune/sweep --spec=" + dir + "/s.toml --out=" + out, log), 0);
  EXPECT_NE(log.find(dir + "/s.toml:8:10: error: name 'M' is not defined"), std::string::npos)
      << log;
  EXPECT_FALSE(std::filesystem::exists(out + "/records.jsonl"));
}

} // namespace

namespace {

TEST(SpecSweep, HelpAndListings) {
  std::string out;
  ASSERT_EQ(RunCommand("autotune/sweep --help", out), 0) << out;
  for (const char *option : {"--spec ", "--list-kernels", "--list-shapes", "--list-space ",
                             "--build-only", "--ingest ", "--where ", "--shard "})
    EXPECT_NE(out.find(option), std::string::npos) << option << "\n" << out;
  out.clear();
  ASSERT_EQ(RunCommand("autotune/sweep --list-kernels --spec=examples", out), 0) << out;
  for (const char *kernel : {"matmul ", "attention ", "vector_add ", "rms_norm_kernel "})
    EXPECT_NE(out.find(kernel), std::string::npos) << kernel << "\n" << out;
  out.clear();
  ASSERT_EQ(RunCommand("autotune/sweep --list-space=matmul --target=cuda:sm_90a", out), 0) << out;
  EXPECT_NE(out.find("knob.warp_m"), std::string::npos) << out;
  out.clear();
  ASSERT_EQ(RunCommand("autotune/sweep --list-shapes=attention --target=cuda:sm_90a", out), 0);
  EXPECT_NE(out.find("large    CAUSAL=1,D=128,H=16,N_CTX=16384,Z=2"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(RunCommand("autotune/sweep --list-space=nope", out), 2);
  EXPECT_NE(out.find("no kernel named 'nope'"), std::string::npos) << out;
}

} // namespace
