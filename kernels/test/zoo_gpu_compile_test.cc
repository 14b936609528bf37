//===- zoo_gpu_compile_test.cc - every zoo kernel compiles for NVIDIA and AMD GPUs -===//
//
// Every zoo kernel, in each of its GPU dtypes, at its smallest GPU configuration (the first
// point of its space for that target kind) and default GPU shape, compiles:
//   - for cuda:sm_80, sm_90 and sm_90a (wgmma) to an artifact the cuda device reads, its body
//     inlined into the entry: PTX always (no toolkit needed), a cubin where a CUDA toolkit's
//     ptxas exists;
//   - for rocm:gfx90a, gfx942 and gfx1100 to an artifact the hip device reads, whose code
//     object says what the launch metadata says (CodeObjectCheck.h: symbol, kernarg segment,
//     LDS, registers, wavefront size); the matmuls and attention of 16-bit floats run on the
//     matrix cores (v_mfma_* on CDNA, v_wmma_* on RDNA3 in the disassembly).
// Running them needs a GPU: sweep --build-only --pack=DIR and DIR/run on the GPU host.
//
//===----------------------------------------------------------------------===//

#include "autotune/Builder.h"
#include "compiler/backend/Registry.h"
#include "compiler/backend/rocm/test/CodeObjectCheck.h"
#include "runtime/Files.h"
#include "runtime/target/GpuArtifact.h"

#include "gtest/gtest.h"

#include <unistd.h>

namespace tessel {
namespace {

/// The artifact of kernel `k` in `dtype` at `point` and `shape`.
absl::StatusOr<GpuArtifact> buildAt(const autotune::Builder &builder, const zoo::Kernel &k,
                                    const std::string &dtype, const zoo::Shape &shape,
                                    const autotune::Point &point,
                                    const autotune::KernelSource &source) {
  autotune::Built built = builder.Build({&k, dtype, shape, point}, source);
  if (!built.artifact.ok())
    return built.artifact.status();
  std::string text;
  if (!runtime::ReadWholeFile(*built.artifact, text))
    return absl::NotFoundError("cannot read " + *built.artifact);
  return ParseGpuArtifact(text);
}

/// The artifact of kernel `k` in `dtype` at the first point and default shape of `spec`.
absl::StatusOr<GpuArtifact> buildFirst(const autotune::Builder &builder, const zoo::Kernel &k,
                                       const zoo::TargetSpec &spec, const std::string &dtype,
                                       const autotune::KernelSource &source) {
  std::vector<autotune::Point> points = spec.space.Enumerate();
  if (points.empty())
    return absl::InvalidArgumentError(k.name + " has an empty GPU space");
  return buildAt(builder, k, dtype, spec.defaultShapes.front(), points.front(), source);
}

TEST(ZooCuda, EveryKernelCompilesToPtx) {
  const std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  int compiled = 0;
  for (const char *arch : {"cuda:sm_80", "cuda:sm_90", "cuda:sm_90a"}) {
    Target target = *ParseTarget(arch);
    autotune::Builder builder(target, std::string(getenv("TEST_TMPDIR")) + "/cache-" + arch);
    for (const zoo::Kernel &k : zoo::Kernels()) {
      const zoo::TargetSpec spec = k.For(TargetKind::Cuda);
      ASSERT_FALSE(spec.dtypes.empty()) << k.name << " has no GPU spec";
      for (const std::string &dtype : spec.dtypes) {
        SCOPED_TRACE(std::string(arch) + " " + k.name + " " + dtype);
        absl::StatusOr<GpuArtifact> artifact =
            buildFirst(builder, k, spec, dtype, sources.at(k.name));
        ASSERT_TRUE(artifact.ok()) << artifact.status();
        EXPECT_EQ("cuda:" + artifact->arch, std::string(arch));
        EXPECT_NE(artifact->ptx.find(".visible .entry " + k.entry + "("), std::string::npos);
        // The kernel's body is inlined into its entry (a PTX .func call would be compiled by
        // ptxas with the calling convention: a stack frame, spills).
        EXPECT_EQ(artifact->ptx.find(".func " + k.entry + "__body"), std::string::npos);
        ASSERT_EQ(artifact->kernels.size(), 1u);
        EXPECT_EQ(artifact->kernels[0].signature, zoo::RuntimeSignature(k.signature(dtype)));
        ++compiled;
      }
    }
  }
  EXPECT_GE(compiled, 20);
}

// A large tile (bf16 128 x 128 x 64, 8 warps, 3 stages on mma.sync): LLVM's inliner declined
// its body, which stayed a .func the entry called.
TEST(ZooCuda, LargeKernelBodyIsInlined) {
  const std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  const zoo::Kernel *matmul = zoo::Find("matmul");
  ASSERT_NE(matmul, nullptr);
  Target target = *ParseTarget("cuda:sm_90");
  autotune::Builder builder(target, std::string(getenv("TEST_TMPDIR")) + "/cache-large");
  const zoo::TargetSpec spec = matmul->For(TargetKind::Cuda);
  autotune::Point point = {{"BLOCK_K", 64},         {"BLOCK_M", 128},        {"BLOCK_N", 128},
                           {"GROUP_M", 8},          {"knob.num_stages", 3}, {"knob.num_warps", 8}};
  absl::StatusOr<GpuArtifact> artifact = buildAt(builder, *matmul, "bf16",
                                                 spec.defaultShapes.front(), point,
                                                 sources.at("matmul"));
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_NE(artifact->ptx.find("mma.sync"), std::string::npos);
  EXPECT_EQ(artifact->ptx.find(".func matmul__body"), std::string::npos);
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

TEST(ZooRocm, EveryKernelCompilesToACheckedCodeObject) {
  const std::map<std::string, autotune::KernelSource> sources = autotune::ReadZooSources();
  int compiled = 0, matrixKernels = 0;
  for (const char *name : {"rocm:gfx90a", "rocm:gfx942", "rocm:gfx1100"}) {
    Target target = *ParseTarget(name);
    RocmChip chip = *RocmChipFor(target.arch);
    autotune::Builder builder(target, std::string(getenv("TEST_TMPDIR")) + "/cache-" + name);
    for (const zoo::Kernel &k : zoo::Kernels()) {
      const zoo::TargetSpec spec = k.For(TargetKind::Rocm);
      ASSERT_FALSE(spec.dtypes.empty()) << k.name << " has no GPU spec";
      for (const auto &[param, values] : spec.space.params)
        for (const char *knob : zoo::kCudaOnlyKnobs)
          EXPECT_NE(param, knob) << "a cuda-only knob in the rocm space";
      for (const std::string &dtype : spec.dtypes) {
        SCOPED_TRACE(std::string(name) + " " + k.name + " " + dtype);
        absl::StatusOr<GpuArtifact> artifact =
            buildFirst(builder, k, spec, dtype, sources.at(k.name));
        ASSERT_TRUE(artifact.ok()) << artifact.status();
        EXPECT_EQ("rocm:" + artifact->arch, std::string(name));
        ASSERT_EQ(artifact->kernels.size(), 1u);
        EXPECT_EQ(artifact->kernels[0].name, k.entry);
        EXPECT_EQ(artifact->kernels[0].signature, zoo::RuntimeSignature(k.signature(dtype)));
        for (const std::string &problem : rocm_test::CheckCodeObject(*artifact))
          ADD_FAILURE() << problem;
        bool matrix = (dtype == "f16" || dtype == "bf16") &&
                      (k.name.find("matmul") != std::string::npos || k.name == "attention");
        if (matrix) {
          absl::StatusOr<std::string> code = rocm_test::Disassemble(artifact->hsaco);
          ASSERT_TRUE(code.ok()) << code.status();
          const char *instruction = chip.mfma ? "v_mfma_f32_16x16x16" : "v_wmma_f32_16x16x16";
          EXPECT_NE(code->find(instruction), std::string::npos)
              << "no " << instruction << " in the code";
          ++matrixKernels;
        }
        ++compiled;
      }
    }
  }
  EXPECT_GE(compiled, 30);
  EXPECT_GE(matrixKernels, 9);
}

} // namespace
} // namespace tessel
