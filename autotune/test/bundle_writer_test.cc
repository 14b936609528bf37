//===- bundle_writer_test.cc - bundles written atomically, read back by the runtime -*- C++ -*-===//

#include "autotune/BundleWriter.h"
#include "compiler/pipeline/Compiler.h"
#include "runtime/Bundle.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using tessel::autotune::TunedEntry;
using tessel::autotune::WriteBundle;
using tessel::runtime::Bundle;

std::string tmp() { return std::string(getenv("TEST_TMPDIR")); }

std::string compileVadd() {
  std::ifstream in("compiler/dialect/triton/test/triton_printed/vadd_block128.ttir");
  std::stringstream s;
  s << in.rdbuf();
  tessel::CompileOptions options;
  options.entry = "vadd";
  options.outputPath = tmp() + "/vadd.so";
  auto so = tessel::compileTTIR(s.str(), "vadd.ttir", options);
  EXPECT_TRUE(so.ok()) << so.status();
  return options.outputPath;
}

TunedEntry vaddEntry(const std::string &so, int64_t n) {
  TunedEntry e;
  e.kernel = "vadd";
  e.signature = "ptr:f32,ptr:f32,ptr:f32,i32";
  e.dtype = "f32";
  e.entry = "vadd";
  e.shape = {{"n", n}};
  e.artifact = so;
  e.configJson = "{\"BLOCK\": 128}";
  e.metricsJson = "{\"time_ms\": 0.5}";
  return e;
}

TEST(BundleWriter, WrittenBundleOpensAndReplacesAtomically) {
  std::string so = compileVadd();
  std::string dir = tmp() + "/bundle";
  tessel::Target host = tessel::Target::Host();
  host.features = {"sse2"};
  ASSERT_TRUE(WriteBundle(dir, host, "tessel test", {vaddEntry(so, 1000), vaddEntry(so, 4096)}).ok());
  auto bundle = Bundle::Open(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->entries().size(), 2u);
  // One artifact for two entries with identical objects.
  int artifacts = 0;
  for (auto &f : fs::directory_iterator(dir + "/artifacts"))
    artifacts += f.is_regular_file();
  EXPECT_EQ(artifacts, 1);
  auto choice = (*bundle)->Find("vadd", {{"n", 4000}});
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->entry->shape.at("n"), 4096);
  auto device = tessel::runtime::Device::Create("cpu");
  ASSERT_TRUE(device.ok());
  EXPECT_TRUE((*bundle)->Load(*choice->entry, **device).ok());

  // Replacing: the new bundle is complete when it appears; nothing temporary is left.
  ASSERT_TRUE(WriteBundle(dir, host, "tessel test 2", {vaddEntry(so, 64)}).ok());
  auto again = Bundle::Open(dir);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->compilerVersion(), "tessel test 2");
  EXPECT_EQ((*again)->entries().size(), 1u);
  for (auto &f : fs::directory_iterator(tmp()))
    EXPECT_EQ(f.path().filename().string().find("bundle.tmp-"), std::string::npos) << f.path();
}

TEST(BundleWriter, FailedWriteLeavesTheOldBundle) {
  std::string so = compileVadd();
  std::string dir = tmp() + "/kept";
  tessel::Target host = tessel::Target::Host();
  host.features = {};
  ASSERT_TRUE(WriteBundle(dir, host, "v1", {vaddEntry(so, 1000)}).ok());
  TunedEntry broken = vaddEntry(tmp() + "/no-such.so", 2000);
  absl::Status s = WriteBundle(dir, host, "v2", {vaddEntry(so, 1000), broken});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("cannot read the artifact"), std::string::npos);
  TunedEntry badConfig = vaddEntry(so, 3000);
  badConfig.configJson = "{not json";
  EXPECT_FALSE(WriteBundle(dir, host, "v3", {badConfig}).ok());
  auto bundle = Bundle::Open(dir);
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  EXPECT_EQ((*bundle)->compilerVersion(), "v1");
  for (auto &f : fs::directory_iterator(tmp()))
    EXPECT_EQ(f.path().filename().string().find("kept.tmp-"), std::string::npos) << f.path();
}

} // namespace
