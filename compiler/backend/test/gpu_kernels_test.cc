//===- gpu_kernels_test.cc - what the GPU backends write -*- C++ -*-===//
//
// writeGpuArtifact writes only artifacts the runtime's parser accepts: one it would refuse (here
// a tensor map over an argument that is not a pointer) is an internal error and no file.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/GpuKernels.h"
#include "runtime/Files.h"
#include "runtime/target/GpuArtifact.h"

#include "gtest/gtest.h"

#include <filesystem>

namespace {

tessel::GpuArtifact withMap(int32_t pointer) {
  tessel::GpuArtifact a;
  a.arch = "sm_90a";
  a.ptxVersion = "8.0";
  a.ptx = "// ptx";
  tessel::GpuKernelInfo k;
  k.name = "k";
  k.signature = "ptr:bf16,i32";
  tessel::GpuTensorMap m;
  m.pointer = pointer;
  m.pitchArgument = 1;
  m.elementBytes = 2;
  m.box = {64, 64};
  m.swizzle = 128;
  k.tensorMaps = {m};
  a.kernels = {k};
  return a;
}

TEST(WriteGpuArtifact, WritesWhatTheRuntimeLoadsAndRefusesTheRest) {
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/artifacts";
  std::filesystem::create_directories(dir);
  auto good = tessel::writeGpuArtifact(withMap(0), dir + "/good.artifact");
  ASSERT_TRUE(good.ok()) << good.status();
  std::string text;
  ASSERT_TRUE(tessel::runtime::ReadWholeFile(*good, text));
  auto back = tessel::ParseGpuArtifact(text);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->kernels.size(), 1u);
  EXPECT_EQ(back->kernels[0].tensorMaps.size(), 1u);
  // A map over argument #1, an i32: refused by the parser, so not written.
  auto bad = tessel::writeGpuArtifact(withMap(1), dir + "/bad.artifact");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(bad.status().message().find("the runtime would refuse"), std::string::npos)
      << bad.status();
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.artifact"));
}

} // namespace
