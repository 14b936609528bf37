//===- zoo_cuda_compile_test.cc - every zoo kernel compiles for NVIDIA GPUs -===//
//
// Every zoo kernel, in each of its GPU dtypes, at its smallest GPU configuration (the first
// point of its GPU space) and default GPU shape, compiles for cuda:sm_80 and cuda:sm_90 to an
// artifact the cuda device reads: PTX always (no toolkit needed), a cubin where a CUDA
// toolkit's ptxas exists. Running them needs a GPU: tools/gpu_pack.sh and the README's
// two-machine flow.
//
//===----------------------------------------------------------------------===//

#include "autotune/Builder.h"
#include "compiler/backend/Registry.h"
#include "runtime/Files.h"
#include "runtime/target/GpuArtifact.h"

#include "gtest/gtest.h"

#include <unistd.h>

namespace tessel {
namespace {

TEST(ZooCuda, EveryKernelCompilesToPtx) {
  const std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  int compiled = 0;
  for (const char *arch : {"cuda:sm_80", "cuda:sm_90"}) {
    Target target = *ParseTarget(arch);
    autotune::Builder builder(target, std::string(getenv("TEST_TMPDIR")) + "/cache-" + arch);
    for (const zoo::Kernel &k : zoo::Kernels()) {
      ASSERT_FALSE(k.gpu.dtypes.empty()) << k.name << " has no GPU spec";
      std::vector<autotune::Point> points = k.gpu.space.Enumerate();
      ASSERT_FALSE(points.empty()) << k.name;
      for (const std::string &dtype : k.gpu.dtypes) {
        SCOPED_TRACE(std::string(arch) + " " + k.name + " " + dtype);
        autotune::Built built =
            builder.Build({&k, dtype, k.gpu.defaultShapes.front(), points.front()},
                          sources.at(k.name));
        ASSERT_TRUE(built.artifact.ok()) << built.artifact.status();
        std::string text;
        ASSERT_TRUE(runtime::ReadWholeFile(*built.artifact, text));
        absl::StatusOr<GpuArtifact> artifact = ParseGpuArtifact(text);
        ASSERT_TRUE(artifact.ok()) << artifact.status();
        EXPECT_EQ("cuda:" + artifact->arch, std::string(arch));
        EXPECT_NE(artifact->ptx.find(".visible .entry " + k.entry + "("), std::string::npos);
        ASSERT_EQ(artifact->kernels.size(), 1u);
        EXPECT_EQ(artifact->kernels[0].signature, zoo::RuntimeSignature(k.signature(dtype)));
        ++compiled;
      }
    }
  }
  EXPECT_GE(compiled, 20);
}

TEST(ZooCuda, CacheKeyNamesThePtxas) {
  // A cubin depends on the ptxas that assembled it: the compile cache keys on its version.
  absl::StatusOr<const Backend *> cuda = lookupBackend(TargetKind::Cuda);
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  std::string identity = (*cuda)->toolchainIdentity();
  const char *cudaPath = getenv("CUDA_PATH");
  std::string root = cudaPath && *cudaPath ? cudaPath : "/usr/local/cuda";
  if (access((root + "/bin/ptxas").c_str(), X_OK) == 0)
    EXPECT_TRUE(identity.rfind("ptxas=Build cuda_", 0) == 0) << identity;
  else
    EXPECT_EQ(identity, "ptxas=none");
}

} // namespace
} // namespace tessel
