//===- bundle_test.cc - opening, verifying and using tuned kernel bundles -*- C++ -*-===//
//
// A bundle with two vector-add entries (tuned for n = 1000 and n = 100000; TestBundle.h) built
// from the Triton-printed vadd: exact and nearest lookups, loading and running an entry; and each
// refusal: corrupt manifest, wrong schema, another architecture, missing CPU features, a
// tampered artifact, a path outside the bundle, a missing artifact, a wrong signature.
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline/Compiler.h"
#include "runtime/test/TestBundle.h"
#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/Sha256.h"
#include "runtime/target/GpuArtifact.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using tessel::runtime::Bundle;
using namespace tessel::runtime::test;

TEST(Bundle, ExactAndNearestLookupsAndARun) {
  auto bundle = Bundle::Open(makeBundle("good"));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->compilerVersion(), tessel::kCompilerVersion);
  EXPECT_EQ((*bundle)->entries().size(), 2u);

  auto exact = (*bundle)->Find("vadd", {{"n", 100000}}, "f32");
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_TRUE(exact->exact);
  EXPECT_EQ(exact->entry->shape.at("n"), 100000);
  EXPECT_EQ(exact->explanation, "tuned for n=100000 (exact)");

  auto near = (*bundle)->Find("vadd", {{"n", 3000}});
  ASSERT_TRUE(near.ok()) << near.status();
  EXPECT_FALSE(near->exact);
  EXPECT_EQ(near->entry->shape.at("n"), 1000); // log2 distance 1.6 vs 5.1
  EXPECT_EQ(near->explanation, "nearest tuned shape n=1000 for n=3000");
  EXPECT_EQ(near->entry->configJson, "{\"BLOCK\":128}");

  EXPECT_EQ((*bundle)->Find("no_such_kernel", {{"n", 1}}).status().message(),
            "the bundle has no kernel named 'no_such_kernel'");
  EXPECT_FALSE((*bundle)->Find("vadd", {{"m", 1}}).ok());

  // Load the chosen entry and run it on fresh random data.
  auto device = tessel::runtime::Device::Create("cpu");
  ASSERT_TRUE(device.ok());
  auto module = (*bundle)->Load(*near->entry, **device);
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = (*module)->GetKernel(near->entry->entry);
  ASSERT_TRUE(kernel.ok());
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> d(-1, 1);
  int n = 3000;
  std::vector<float> x(n), y(n), out(n, NAN);
  for (int i = 0; i < n; ++i)
    x[i] = d(gen), y[i] = d(gen);
  // The cpu device's buffers are host memory: host arrays are valid arguments.
  ASSERT_TRUE((*device)->Launch(*kernel, {(n + 127) / 128, 1, 1}, {x.data(), y.data(), out.data(), n})
                  .ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
}

std::string openError(const std::string &dir, const tessel::Target &host =
                                                 tessel::Target::Host());

TEST(Bundle, AnArtifactSwappedAfterVerificationIsNeverLoaded) {
  std::string dir = makeBundle("swap");
  std::string evil = evilArtifact(dir + "/evil.so");
  auto bundle = Bundle::Open(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  // Deterministically: the swap happens exactly between verification and loading.
  tessel::runtime::SetArtifactVerifiedHookForTesting([&](const std::string &artifact) {
    fs::copy_file(evil, artifact + ".new", fs::copy_options::overwrite_existing);
    fs::rename(artifact + ".new", artifact);
  });
  absl::StatusOr<bool> verified = loadsTheVerifiedKernel(**bundle);
  tessel::runtime::SetArtifactVerifiedHookForTesting(nullptr);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_TRUE(*verified) << "the swapped artifact was loaded";
}

TEST(Bundle, AnArtifactSwappedInALoopIsNeverLoaded) {
  // A second thread keeps swapping the good and the evil artifact; every load that succeeds
  // must run the verified one (the others fail their checksum).
  std::string dir = makeBundle("swaploop");
  std::string artifact = dir + "/artifacts/vadd.so";
  std::string good = dir + "/good.so", evil = evilArtifact(dir + "/evil.so");
  fs::copy_file(artifact, good);
  auto bundle = Bundle::Open(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    for (int i = 0; !stop; ++i) {
      fs::copy_file(i % 2 ? good : evil, artifact + ".new", fs::copy_options::overwrite_existing);
      fs::rename(artifact + ".new", artifact);
    }
  });
  int loaded = 0, refused = 0, wrong = 0;
  for (int i = 0; i < 300; ++i) {
    absl::StatusOr<bool> verified = loadsTheVerifiedKernel(**bundle);
    if (!verified.ok())
      ++refused;
    else if (*verified)
      ++loaded;
    else
      ++wrong;
  }
  stop = true;
  swapper.join();
  std::printf("swap loop: %d loaded the verified artifact, %d refused, %d loaded the swapped one\n",
              loaded, refused, wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(loaded + refused, 0);
}

TEST(Bundle, OnlyRegularFilesInsideTheBundleAreRead) {
  // A symlinked artifact (even to a byte-identical file), a symlinked artifacts directory, a
  // link to a system file and a FIFO: each refused, none followed, none blocks.
  std::string outside = std::string(getenv("TEST_TMPDIR")) + "/outside";
  fs::remove_all(outside);
  fs::create_directories(outside);
  std::string dir = makeBundle("links-file");
  fs::copy_file(dir + "/artifacts/vadd.so", outside + "/vadd.so");
  fs::remove(dir + "/artifacts/vadd.so");
  fs::create_symlink(outside + "/vadd.so", dir + "/artifacts/vadd.so");
  EXPECT_NE(openError(dir).find("is not a regular file inside"), std::string::npos)
      << openError(dir);
  dir = makeBundle("links-dir");
  fs::remove_all(dir + "/artifacts");
  fs::create_directory_symlink(outside, dir + "/artifacts");
  EXPECT_NE(openError(dir).find("is not a regular file inside"), std::string::npos)
      << openError(dir);
  dir = makeBundle("links-passwd");
  fs::remove(dir + "/artifacts/vadd.so");
  fs::create_symlink("/etc/passwd", dir + "/artifacts/vadd.so");
  EXPECT_NE(openError(dir).find("is not a regular file inside"), std::string::npos)
      << openError(dir);
  // A FIFO: opening it for reading would block until a writer comes. Checked in a child so a
  // hang is a failure, not a stuck test.
  dir = makeBundle("fifo");
  fs::remove(dir + "/artifacts/vadd.so");
  ASSERT_EQ(mkfifo((dir + "/artifacts/vadd.so").c_str(), 0600), 0);
  pid_t child = fork();
  if (child == 0) {
    auto bundle = Bundle::Open(dir);
    _exit(!bundle.ok() && bundle.status().message().find("is not a regular file inside") !=
                              std::string::npos
              ? 0
              : 1);
  }
  int status = 0;
  for (int waited = 0; waited < 100 && waitpid(child, &status, WNOHANG) == 0; ++waited)
    usleep(50000);
  if (waitpid(child, &status, WNOHANG) == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "opening a bundle whose artifact is a FIFO hangs";
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

std::string openError(const std::string &dir, const tessel::Target &host) {
  auto bundle = Bundle::Open(dir, host);
  EXPECT_FALSE(bundle.ok());
  return bundle.ok() ? "" : std::string(bundle.status().message());
}

TEST(Bundle, LookupsKeepToTheDimensionsAnEntryServes) {
  // The first entry (n=1000) was compiled for n in [1, 2000] only; the second serves any n.
  auto bundle = Bundle::Open(makeBundle("serves", [](std::string &m) {
    replace(m, R"("metrics": {"time_ms": 0.01}})",
            R"("metrics": {"time_ms": 0.01}, "serves": {"n": [1, 2000]}})");
  }));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->entries()[0].serves.at("n"), std::make_pair(int64_t(1), int64_t(2000)));
  auto near = (*bundle)->Find("vadd", {{"n", 1500}});
  ASSERT_TRUE(near.ok()) << near.status();
  EXPECT_EQ(near->entry->shape.at("n"), 1000);
  // 3000 is nearer to 1000 than to 100000, but outside what that entry serves.
  auto far = (*bundle)->Find("vadd", {{"n", 3000}});
  ASSERT_TRUE(far.ok()) << far.status();
  EXPECT_EQ(far->entry->shape.at("n"), 100000);

  // No entry serving the shape: an error that says why.
  auto only = Bundle::Open(makeBundle("serves-only", [](std::string &m) {
    replace(m, R"("metrics": {"time_ms": 0.01}})",
            R"("metrics": {"time_ms": 0.01}, "serves": {"n": [1, 2000]}})");
    replace(m, R"("metrics": {"time_ms": 0.1}})",
            R"("metrics": {"time_ms": 0.1}, "serves": {"n": [50000, 100000]}})");
  }));
  ASSERT_TRUE(only.ok()) << only.status();
  EXPECT_EQ((*only)->Find("vadd", {{"n", 3000}}).status().message(),
            "no tuned entry of 'vadd' serves n=3000; the entry tuned for n=1000 was compiled "
            "for n in [1, 2000]");

  // A malformed range is refused when the bundle is opened.
  for (const char *bad : {R"("serves": {"n": [5, 1]})", R"("serves": {"n": 5})",
                          R"("serves": {"m": [1, 2]})", R"("serves": [1, 2])"}) {
    std::string error = openError(makeBundle("serves-bad", [&](std::string &m) {
      replace(m, R"("metrics": {"time_ms": 0.01}})",
              std::string(R"("metrics": {"time_ms": 0.01}, )") + bad + "}");
    }));
    EXPECT_NE(error.find("serves"), std::string::npos) << bad << ": " << error;
  }
}

TEST(Bundle, CorruptManifestIsRefused) {
  std::string dir = makeBundle("corrupt", [](std::string &m) { m = m.substr(0, m.size() / 2); });
  EXPECT_NE(openError(dir).find("manifest.json: not valid JSON"), std::string::npos);
  dir = makeBundle("badtype", [](std::string &m) { replace(m, "{\"n\": 1000}", "{\"n\": \"big\"}"); });
  EXPECT_NE(openError(dir).find("kernels[0].entries[0].shape.n: expected a non-negative integer"),
            std::string::npos);
  dir = makeBundle("nofield", [](std::string &m) { replace(m, "\"compiler_version\"", "\"compiler\""); });
  EXPECT_NE(openError(dir).find("missing \"compiler_version\""), std::string::npos);
  EXPECT_NE(openError(std::string(getenv("TEST_TMPDIR")) + "/nothing-here").find("cannot read"),
            std::string::npos);
}

TEST(Bundle, DeeplyNestedManifestIsRefused) {
  std::string dir = makeBundle("deep", [](std::string &m) {
    replace(m, R"("metrics": {"time_ms": 0.01})",
            R"("metrics": )" + std::string(100000, '[') + std::string(100000, ']'));
  });
  EXPECT_NE(openError(dir).find("nested"), std::string::npos) << openError(dir);
}

TEST(Bundle, OtherSchemaVersionIsRefused) {
  std::string dir = makeBundle("schema", [](std::string &m) { replace(m, "\"schema_version\": 1", "\"schema_version\": 7"); });
  EXPECT_NE(openError(dir).find("schema version 7 is not one this runtime reads (1 to 2)"),
            std::string::npos)
      << openError(dir);
}

// Schema 2: a kernel's launch contract is read, every expression parsed; version 1 bundles
// (makeBundle's) still open without one.
TEST(Bundle, LaunchContractsAreReadAndChecked) {
  const std::string launch =
      R"L("launch": {"dims": ["n"], "dispatch": ["n"], "grid": "(cdiv(n, BLOCK),)",
                    "args": [{"name": "x", "kind": "tensor", "dtype": "{dtype}", "shape": ["n"], "role": "in"},
                             {"name": "y", "kind": "tensor", "dtype": "f32", "shape": ["n"], "role": "in"},
                             {"name": "out", "kind": "tensor", "dtype": "f32", "shape": ["n"], "role": "out"},
                             {"name": "n", "kind": "scalar", "type": "i32", "value": "n"},
                             {"name": "BLOCK", "kind": "meta"}]}, "entries": [)L";
  auto withLaunch = [&](const std::string &from, const std::string &to) {
    return [=](std::string &m) {
      replace(m, "\"schema_version\": 1", "\"schema_version\": 2");
      std::string l = launch;
      if (!from.empty())
        replace(l, from, to);
      replace(m, "\"entries\": [", l);
    };
  };
  auto bundle = tessel::runtime::Bundle::Open(makeBundle("launch", withLaunch("", "")));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  const auto &launchOf = (*bundle)->entries().front().launch;
  ASSERT_TRUE(launchOf);
  EXPECT_EQ(launchOf->grid, "(cdiv(n, BLOCK),)");
  ASSERT_EQ(launchOf->args.size(), 5u);
  EXPECT_EQ(launchOf->args[2].role, "out");
  EXPECT_EQ(launchOf->args[3].type, "i32");
  auto old = tessel::runtime::Bundle::Open(makeBundle("no-launch", nullptr));
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_FALSE(old->get()->entries().front().launch);
  struct Case {
    const char *from, *to, *error;
  };
  for (const Case &c : std::vector<Case>{
           {"(cdiv(n, BLOCK),)", "(cdiv(n, BLOCK),", "kernels[0].launch.grid: "},
           {"\"dispatch\": [\"n\"]", "\"dispatch\": [\"m\"]", "'m' is not one of the dims"},
           {"\"kind\": \"meta\"", "\"kind\": \"magic\"", "expected tensor, scalar, constexpr or meta"},
           {"\"role\": \"out\"", "\"role\": \"sideways\"", "expected in, out or inout"},
           {"\"value\": \"n\"", "\"value\": \"n +\"", "kernels[0].launch.args[3].value: "},
           {"\"type\": \"i32\"", "\"type\": \"i7\"", "expected i32, i64, fp32 or fp64"},
           {"\"shape\": [\"n\"], \"role\": \"in\"}", "\"shape\": [], \"role\": \"in\"}", "expected one to four expressions"},
           {"\"name\": \"x\"", "\"name\": \"x-1\"", "expected a Python name"},
       }) {
    std::string dir = makeBundle("bad-launch", withLaunch(c.from, c.to));
    EXPECT_NE(openError(dir).find(c.error), std::string::npos) << c.from << ": " << openError(dir);
  }
}

TEST(Bundle, BundleForAnotherTargetIsRefused) {
  std::string dir = makeBundle("target");
  tessel::Target arm = tessel::Target::Host();
  arm.arch = "aarch64";
  EXPECT_NE(openError(dir, arm).find("this machine is cpu aarch64; its artifacts cannot run here"),
            std::string::npos);
  tessel::Target gpu = tessel::Target::Host();
  gpu.kind = tessel::TargetKind::Cuda;
  EXPECT_NE(openError(dir, gpu).find("the bundle is for cpu"), std::string::npos);
  std::string amx = makeBundle("features", [](std::string &m) { replace(m, "[\"sse2\"]", "[\"sse2\", \"no_such_feature\"]"); });
  EXPECT_NE(openError(amx).find("CPU features this machine lacks (no_such_feature)"),
            std::string::npos);
}

TEST(Bundle, GpuBundleOpensOnTheCpuHostAndIsCheckedByItsDevice) {
  // A cuda bundle on a machine whose host target is the CPU: the host cannot know the GPU's
  // chip, so Open verifies schema and checksums and the device checks the chip at Load (the
  // H100 run of the bundle consumer was refused as "for cuda sm_90, this machine is cpu"
  // before). Loading it on the CPU device is refused.
  std::string dir = makeBundle("gpu", [](std::string &m) {
    std::string cpu = m.substr(m.find("{\"kind\": \"cpu\""));
    cpu = cpu.substr(0, cpu.find('}') + 1);
    replace(m, cpu, R"({"kind": "cuda", "arch": "sm_90", "features": []})");
  });
  // Its artifact: vadd's launch metadata for sm_90 (no device runs it here).
  tessel::GpuArtifact gpu;
  gpu.arch = "sm_90";
  gpu.ptxVersion = *tessel::PtxVersionFor(gpu.arch);
  gpu.ptx = "// never run";
  tessel::GpuKernelInfo vadd;
  vadd.name = "vadd";
  vadd.signature = "ptr:f32,ptr:f32,ptr:f32,i32";
  vadd.block = {128, 1, 1};
  gpu.kernels = {vadd};
  gpu.buildInfo = std::string(R"({"entry": "vadd", "target": "cuda:sm_90", "compiler_version": ")") +
                  tessel::kCompilerVersion + R"(", "knobs": {}, "constexprs": {"BLOCK": "128"}})";
  std::string cpuSha = tessel::runtime::Sha256Hex(read(dir + "/artifacts/vadd.so"));
  std::string bytes = tessel::SerializeGpuArtifact(gpu), manifest = read(dir + "/manifest.json");
  write(dir + "/artifacts/vadd.so", bytes);
  for (size_t at; (at = manifest.find(cpuSha)) != std::string::npos;)
    manifest.replace(at, cpuSha.size(), tessel::runtime::Sha256Hex(bytes));
  write(dir + "/manifest.json", manifest);
  auto bundle = Bundle::Open(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->target().str(), "cuda:sm_90");
  auto device = tessel::runtime::Device::Create("cpu");
  ASSERT_TRUE(device.ok());
  auto module = (*bundle)->Load((*bundle)->entries()[0], **device);
  ASSERT_FALSE(module.ok());
  EXPECT_NE(std::string(module.status().message()).find("cuda device"), std::string::npos)
      << module.status();
  std::string unknown = makeBundle("gpu_unknown_chip", [](std::string &m) {
    std::string cpu = m.substr(m.find("{\"kind\": \"cpu\""));
    cpu = cpu.substr(0, cpu.find('}') + 1);
    replace(m, cpu, R"({"kind": "cuda", "arch": "sm_75", "features": []})");
  });
  EXPECT_NE(openError(unknown).find("'sm_75' is not a CUDA chip tessel builds for"),
            std::string::npos);
}

TEST(Bundle, TamperedArtifactIsRefused) {
  std::string dir = makeBundle("tampered");
  std::string bytes = read(dir + "/artifacts/vadd.so");
  bytes[bytes.size() / 2] ^= 0x5a;
  write(dir + "/artifacts/vadd.so", bytes);
  EXPECT_NE(openError(dir).find("does not match its checksum"), std::string::npos);
}

TEST(Bundle, ArtifactPathsStayInsideTheBundle) {
  std::string dir = makeBundle("escape", [](std::string &m) { replace(m, "\"artifacts/vadd.so\"", "\"../good/artifacts/vadd.so\""); });
  EXPECT_NE(openError(dir).find("is not a relative path inside the bundle"), std::string::npos);
  dir = makeBundle("missing", [](std::string &m) { replace(m, "\"artifacts/vadd.so\"", "\"artifacts/gone.so\""); });
  EXPECT_NE(openError(dir).find("is missing or unreadable"), std::string::npos);
}

TEST(Bundle, WrongSignatureIsRefused) {
  // The manifest's signature is checked against the artifact's own when the bundle is opened:
  // the kernel's (4 parameters, as the artifact) beside an entry's own of 5, an entry of 2,
  // and a kernel's of 5 that its entries inherit.
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {R"("entry": "vadd",)", R"("entry": "vadd", "signature": "ptr:f32,ptr:f32,ptr:f32,i32,i32",)"},
           {R"("entry": "vadd",)", R"("entry": "vadd", "signature": "ptr:f32,i32",)"},
           {R"("signature": "ptr:f32,ptr:f32,ptr:f32,i32")", R"("signature": "ptr:f32,ptr:f32,ptr:f32,i32,i32")"}}) {
    std::string error = openError(makeBundle("signature", [&](std::string &m) { replace(m, from, to); }));
    EXPECT_NE(error.find("signature"), std::string::npos) << to << ": " << error;
    EXPECT_NE(error.find("parameters"), std::string::npos) << to << ": " << error;
  }
}

/// Opens `dir` in a child process whose memory is capped and which is killed after 10 s, so
/// that a hang or a crash fails the test instead of stalling or ending it: Open's error, or
/// "OPENED", "HANG", "CRASH".
std::string openErrorInChild(const std::string &dir) {
  int fds[2];
  if (pipe(fds) != 0)
    return "pipe failed";
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    // Room for what Open needs, not for a file without end read into memory.
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    rlim_t cap = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + (rlim_t(1) << 30);
    struct rlimit limit = {cap, cap};
    setrlimit(RLIMIT_AS, &limit);
    auto bundle = Bundle::Open(dir);
    std::string message = bundle.ok() ? "OPENED" : std::string(bundle.status().message());
    ssize_t ignored = ::write(fds[1], message.data(), message.size());
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  int status = 0;
  for (int waited = 0; waited < 200 && waitpid(child, &status, WNOHANG) == 0; ++waited)
    usleep(50000);
  std::string message;
  if (waitpid(child, &status, WNOHANG) == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    message = "HANG";
  } else if (!WIFEXITED(status)) {
    message = "CRASH";
  } else {
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
      message.append(buffer, size_t(n));
  }
  close(fds[0]);
  return message;
}

TEST(Bundle, TheManifestIsReadOnlyAsARegularFileInsideTheBundle) {
  // A FIFO, links to /dev/zero, to a system file and to a good manifest elsewhere, and a file
  // larger than any manifest: each refused with the file named, none followed, none blocks.
  std::string outside = std::string(getenv("TEST_TMPDIR")) + "/outside-manifest.json";
  std::string dir = makeBundle("manifest-fifo");
  fs::copy_file(dir + "/manifest.json", outside, fs::copy_options::overwrite_existing);
  fs::remove(dir + "/manifest.json");
  ASSERT_EQ(mkfifo((dir + "/manifest.json").c_str(), 0600), 0);
  std::vector<std::string> dirs = {dir};
  for (const char *target : {"/dev/zero", "/etc/passwd", outside.c_str()}) {
    dirs.push_back(makeBundle("manifest-link" + std::to_string(dirs.size())));
    fs::remove(dirs.back() + "/manifest.json");
    fs::create_symlink(target, dirs.back() + "/manifest.json");
  }
  for (const std::string &d : dirs) {
    std::string error = openErrorInChild(d);
    EXPECT_NE(error.find(d + "/manifest.json is not a regular file inside"), std::string::npos)
        << error;
  }
  dir = makeBundle("manifest-huge");
  ASSERT_EQ(truncate((dir + "/manifest.json").c_str(), tessel::runtime::kMaxManifestBytes + 1), 0);
  std::string error = openErrorInChild(dir);
  EXPECT_NE(error.find("manifest.json is larger than"), std::string::npos) << error;
}

TEST(Bundle, AManifestInconsistentWithItsArtifactsIsRefused) {
  struct Case {
    std::string what, from, to, message;
  } cases[] = {
      {"a NUL in the artifact's path", R"("artifact": "artifacts/vadd.so")",
       R"("artifact": "artifacts/vadd.so\u0000.other")", "NUL"},
      {"a block size the artifact was not built with", R"("config": {"BLOCK": 128})",
       R"("config": {"BLOCK": 700})", "BLOCK"},
      {"a knob the artifact was not built with", R"("config": {"BLOCK": 128})",
       R"("config": {"BLOCK": 128, "knob.vector_width": 8})", "vector_width"},
      {"a config value that is no scalar", R"("config": {"BLOCK": 128})",
       R"("config": {"BLOCK": [128]})", "config"},
      {"a config that is no object", R"("config": {"BLOCK": 128})", R"("config": 128)", "config"},
      {"an empty compiler version", tessel::kCompilerVersion, "", "compiler_version"},
      {"control characters in the version", tessel::kCompilerVersion, "tessel\\u0007\\u001b[2J",
       "compiler_version"},
      {"a version of ten thousand characters", tessel::kCompilerVersion, std::string(10000, 'v'),
       "compiler_version"},
      {"metrics of text", R"("metrics": {"time_ms": 0.01})", R"("metrics": {"time_ms": "fast"})",
       "metrics"},
      {"metrics that are no object", R"("metrics": {"time_ms": 0.01})", R"("metrics": [0.01])",
       "metrics"},
  };
  for (const Case &c : cases) {
    std::string error = openError(makeBundle("inconsistent", [&](std::string &m) { replace(m, c.from, c.to); }));
    EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": " << error;
  }
}

} // namespace

namespace {

TEST(Bundle, MutatedManifestsNeverCrash) {
  // The manifest is untrusted input: random byte edits give an error or a valid bundle.
  std::string dir = makeBundle("mutated");
  std::string good = read(dir + "/manifest.json");
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  std::mt19937 gen(seed);
  const std::string alphabet = "{}[]:,\"0123456789-.eE truefalsnul\\/abcdxyz";
  for (int i = 0; i < 400; ++i) {
    std::string m = good;
    for (int e = 0, edits = 1 + int(gen() % 3); e < edits && !m.empty(); ++e) {
      size_t pos = gen() % m.size();
      if (gen() % 2)
        m[pos] = alphabet[gen() % alphabet.size()];
      else
        m.erase(pos, 1 + gen() % 6);
    }
    write(dir + "/manifest.json", m);
    auto bundle = Bundle::Open(dir);
    if (bundle.ok())
      for (const auto &entry : (*bundle)->entries())
        (void)(*bundle)->Find(entry.kernel, entry.shape);
  }
}

} // namespace
