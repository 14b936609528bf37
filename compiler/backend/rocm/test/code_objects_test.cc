//===- code_objects_test.cc - the end-to-end test kernels' code objects for AMD GPUs -===//
//
// The end-to-end test kernels (compiler/backend/gpu_test_kernels.bzl: Triton 3.6's TTIR, the
// frontend's math kernel, vector accesses), compiled by the build for gfx90a, gfx942 and
// gfx1100: each artifact parses, names its chip and its kernel, and its code object says what
// the launch metadata says (CodeObjectCheck.h). No AMD GPU is needed; running them is
// hip_e2e_test's, on an AMD host.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/rocm/test/CodeObjectCheck.h"
#include "runtime/Files.h"

#include "gtest/gtest.h"

namespace tessel {
namespace {

TEST(RocmCodeObjects, EveryTestKernelForEveryChip) {
  const std::pair<const char *, const char *> kernels[] = {
      {"vadd", "vadd"},
      {"row_cumsum", "row_cumsum"},
      {"atomic_histogram", "atomic_histogram"},
      {"noinline_axpy", "noinline_axpy"},
      {"math", "math_kernel"},
      {"aligned", "aligned"},
      {"rows_divisible", "rows_divisible"},
  };
  int checked = 0;
  for (const char *arch : {"gfx90a", "gfx942", "gfx1100"})
    for (auto [file, entry] : kernels) {
      SCOPED_TRACE(std::string(file) + " " + arch);
      std::string text;
      ASSERT_TRUE(runtime::ReadWholeFile(
          std::string("compiler/backend/rocm/test/") + file + "_" + arch + ".artifact", text));
      absl::StatusOr<GpuArtifact> artifact = ParseGpuArtifact(text);
      ASSERT_TRUE(artifact.ok()) << artifact.status();
      EXPECT_EQ(artifact->arch, arch);
      EXPECT_TRUE(artifact->ptx.empty());
      ASSERT_EQ(artifact->kernels.size(), 1u);
      EXPECT_EQ(artifact->kernels[0].name, entry);
      for (const std::string &problem : rocm_test::CheckCodeObject(*artifact))
        ADD_FAILURE() << problem;
      ++checked;
    }
  EXPECT_EQ(checked, 21);
}

TEST(RocmCodeObjects, KernargBytesFollowTheSignature) {
  EXPECT_EQ(rocm_test::KernargBytes("ptr:f32,ptr:f32,i32"), 20);
  EXPECT_EQ(rocm_test::KernargBytes("i32,ptr:f16"), 16);
  EXPECT_EQ(rocm_test::KernargBytes("i32,i64,f32"), 20);
  EXPECT_EQ(rocm_test::KernargBytes(""), 0);
}

} // namespace
} // namespace tessel
