//===- TestBundle.cpp - vector-add bundles built for the runtime's tests -*- C++ -*-===//

#include "runtime/test/TestBundle.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/Device.h"
#include "runtime/Sha256.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessel::runtime::test {

namespace fs = std::filesystem;

std::string read(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string makeBundle(const std::string &name,
                       const std::function<void(std::string &)> &edit) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  fs::remove_all(dir);
  fs::create_directories(dir + "/artifacts");
  tessel::CompileOptions options;
  options.entry = "vadd";
  options.outputPath = dir + "/artifacts/vadd.so";
  // Recorded in the artifact's build info, as the builder records a kernel's constexprs (the
  // TTIR's block is 128).
  options.constexprs = {{"BLOCK", "128"}};
  auto so = tessel::compileTTIR(
      read("compiler/dialect/triton/test/triton_printed/vadd_block128.ttir"), "vadd.ttir",
      options);
  EXPECT_TRUE(so.ok()) << so.status();
  std::string sha = tessel::runtime::Sha256Hex(read(options.outputPath));
  tessel::Target host = tessel::Target::Host();
  std::string features = "\"sse2\""; // a feature every x86-64 machine has
  std::string manifest = R"({
  "schema_version": 1,
  "compiler_version": ")" + std::string(tessel::kCompilerVersion) + R"(",
  "target": {"kind": "cpu", "arch": ")" + host.arch + R"(", "features": [)" + features + R"(]},
  "kernels": [{"name": "vadd", "signature": "ptr:f32,ptr:f32,ptr:f32,i32", "entries": [
    {"shape": {"n": 1000}, "dtype": "f32", "entry": "vadd", "artifact": "artifacts/vadd.so",
     "sha256": ")" + sha + R"(", "config": {"BLOCK": 128}, "metrics": {"time_ms": 0.01}},
    {"shape": {"n": 100000}, "dtype": "f32", "entry": "vadd", "artifact": "artifacts/vadd.so",
     "sha256": ")" + sha + R"(", "config": {"BLOCK": 128}, "metrics": {"time_ms": 0.1}}]}]
})";
  if (edit)
    edit(manifest);
  write(dir + "/manifest.json", manifest);
  return dir;
}

void replace(std::string &text, const std::string &from, const std::string &to) {
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

std::string evilArtifact(const std::string &path) {
  std::string ttir = read("compiler/dialect/triton/test/triton_printed/vadd_block128.ttir");
  size_t at = ttir.find("arith.addf");
  EXPECT_NE(at, std::string::npos);
  ttir.replace(at, 10, "arith.subf");
  tessel::CompileOptions options;
  options.entry = "vadd";
  options.outputPath = path;
  auto so = tessel::compileTTIR(ttir, "evil.ttir", options);
  EXPECT_TRUE(so.ok()) << so.status();
  return path;
}

absl::StatusOr<bool> loadsTheVerifiedKernel(const Bundle &bundle) {
  auto device = tessel::runtime::Device::Create("cpu");
  if (!device.ok())
    return device.status();
  auto choice = bundle.Find("vadd", {{"n", 1000}}, "f32");
  if (!choice.ok())
    return choice.status();
  auto module = bundle.Load(*choice->entry, **device);
  if (!module.ok())
    return module.status();
  auto kernel = (*module)->GetKernel("vadd");
  if (!kernel.ok())
    return kernel.status();
  std::vector<float> x(128, 2.0f), y(128, 1.0f), out(128, NAN);
  if (absl::Status s = (*device)->Launch(*kernel, {1, 1, 1}, {x.data(), y.data(), out.data(), 128});
      !s.ok())
    return s;
  EXPECT_TRUE(out[0] == 3.0f || out[0] == 1.0f) << out[0];
  return out[0] == 3.0f;
}

} // namespace tessel::runtime::test
