//===- parsers_fuzz_test.cc - the runtime's parsers on mutated input -*- C++ -*-===//
//
// .npy files, GPU artifacts and bundle manifests, each from valid seeds and their mutations
// (tools/fuzz/Fuzz.h): every input is read or refused, never a crash or an escaping exception.
//
//===----------------------------------------------------------------------===//

#include "runtime/Bundle.h"
#include "runtime/Npy.h"
#include "runtime/Sha256.h"
#include "runtime/target/GpuArtifact.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace {

std::string tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

std::string fileText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(Fuzz, Npy) {
  std::vector<std::string> seeds;
  for (const char *dtype : {"f32", "i32", "f16", "i8", "i1", "f64", "i64"}) {
    tessel::runtime::NpyArray a;
    a.dtype = dtype;
    a.shape = {3, 5};
    a.data.assign(size_t(15 * tessel::runtime::ElementBytes(dtype)), 7);
    ASSERT_TRUE(tessel::runtime::WriteNpy(tmp("seed.npy"), a).ok());
    seeds.push_back(fileText(tmp("seed.npy")));
  }
  int ok = 0;
  tessel::fuzz::Run("npy", seeds, [&](const std::string &input) {
    std::ofstream(tmp("fuzz.npy"), std::ios::binary | std::ios::trunc) << input;
    absl::StatusOr<tessel::runtime::NpyArray> a = tessel::runtime::ReadNpy(tmp("fuzz.npy"));
    if (!a.ok())
      return;
    ++ok;
    // What was accepted is consistent: the data is exactly the shape's bytes.
    int64_t bytes = tessel::runtime::ElementBytes(a->dtype);
    for (int64_t d : a->shape)
      bytes *= d;
    ASSERT_EQ(int64_t(a->data.size()), bytes);
  });
  EXPECT_GT(ok, 0);
}

TEST(Fuzz, GpuArtifact) {
  tessel::GpuArtifact a;
  a.arch = "sm_90";
  a.ptxVersion = "8.0";
  a.ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
  a.cubin = std::string("\x7f" "ELF\x02\x01", 6) + std::string(40, '\0');
  tessel::GpuKernelInfo k;
  k.name = "vadd";
  k.signature = "ptr:f32,ptr:f32,ptr:f32,i32";
  k.block = {128, 1, 1};
  a.kernels = {k};
  std::string seed = tessel::SerializeGpuArtifact(a);
  ASSERT_TRUE(tessel::ParseGpuArtifact(seed).ok()) << tessel::ParseGpuArtifact(seed).status();
  tessel::fuzz::Run("gpu-artifact", {seed}, [](const std::string &input) {
    (void)tessel::ParseGpuArtifact(input);
  });
}

TEST(Fuzz, BundleManifest) {
  std::string dir = tmp("bundle");
  std::filesystem::create_directories(dir + "/artifacts");
  std::string bytes = "not really a shared object";
  std::ofstream(dir + "/artifacts/k.so", std::ios::binary) << bytes;
  tessel::Target host = tessel::Target::Host();
  std::string seed = R"({"schema_version": 1, "compiler_version": "tessel fuzz",
  "target": {"kind": "cpu", "arch": ")" + host.arch + R"(", "features": ["sse2"]},
  "kernels": [{"name": "k", "signature": "ptr:f32,i32", "entries": [
    {"shape": {"n": 1000}, "dtype": "f32", "entry": "k", "artifact": "artifacts/k.so",
     "sha256": ")" + tessel::runtime::Sha256Hex(bytes) + R"(", "config": {"BLOCK": 128},
     "metrics": {"time_ms": 0.01}, "serves": {"n": [513, 1024]}}]}]})";
  std::ofstream(dir + "/manifest.json") << seed;
  auto opened = tessel::runtime::Bundle::Open(dir);
  ASSERT_TRUE(opened.ok()) << opened.status();
  tessel::fuzz::Run("bundle-manifest", {seed}, [&](const std::string &input) {
    std::ofstream(dir + "/manifest.json", std::ios::trunc) << input;
    auto bundle = tessel::runtime::Bundle::Open(dir);
    if (bundle.ok())
      for (const auto &e : (*bundle)->entries())
        (void)(*bundle)->Find(e.kernel, e.shape, e.dtype);
  });
}

} // namespace
