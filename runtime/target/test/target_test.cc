//===- target_test.cc - parsing and printing targets -------------------------===//

#include "runtime/target/GpuArtifact.h"
#include "runtime/target/Target.h"

#include "gtest/gtest.h"

namespace tessel {
namespace {

TEST(GpuArtifact, DeeplyNestedJsonIsRefused) {
  std::string deep = "{\"arch\": \"sm_90\", \"x\": " + std::string(100000, '[') +
                     std::string(100000, ']') + "}";
  absl::StatusOr<GpuArtifact> a = ParseGpuArtifact(deep);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("nested"), std::string::npos) << a.status();
}

TEST(GpuArtifact, FieldsOfTheWrongTypeAreErrorsNotExceptions) {
  // The fuzz test found "format": [...] escaping as nlohmann's type_error.
  for (const char *text : {"{\"format\": [\"sse2\"], \"version\": 1}",
                           "{\"format\": 7}", "{\"format\": null, \"arch\": \"sm_90\"}"}) {
    absl::StatusOr<GpuArtifact> a = ParseGpuArtifact(text);
    ASSERT_FALSE(a.ok()) << text;
    EXPECT_NE(a.status().message().find("\"format\""), std::string::npos) << a.status();
  }
}

/// An sm_90 artifact of one kernel "k" with `signature`.
GpuArtifact oneKernel(const std::string &signature) {
  GpuArtifact a;
  a.arch = "sm_90";
  a.ptxVersion = "7.8";
  a.ptx = "// ptx";
  GpuKernelInfo k;
  k.name = "k";
  k.signature = signature;
  a.kernels.push_back(k);
  return a;
}

TEST(GpuArtifact, DivisibilityRoundTripsAndBadOnesAreRefused) {
  GpuArtifact a = oneKernel("ptr:f32,ptr:f32,i32");
  a.kernels[0].divisibility = {16, 8, 1};
  absl::StatusOr<GpuArtifact> back = ParseGpuArtifact(SerializeGpuArtifact(a));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kernels[0].divisibility, (std::vector<int64_t>{16, 8, 1}));
  // None recorded: none assumed.
  a.kernels[0].divisibility.clear();
  back = ParseGpuArtifact(SerializeGpuArtifact(a));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->kernels[0].divisibility.empty());
  for (std::vector<int64_t> bad : std::vector<std::vector<int64_t>>{
           {16, 16}, {16, 16, 16, 16}, {16, 12, 1}, {16, 0, 1}, {16, -16, 1}}) {
    a.kernels[0].divisibility = bad;
    back = ParseGpuArtifact(SerializeGpuArtifact(a));
    ASSERT_FALSE(back.ok()) << bad.size();
    EXPECT_NE(back.status().message().find("divisibility"), std::string::npos) << back.status();
  }
}

TEST(GpuArtifact, PersistentRoundTripsAndBadOnesAreRefused) {
  GpuArtifact a = oneKernel("ptr:f32,i32");
  absl::StatusOr<GpuArtifact> back = ParseGpuArtifact(SerializeGpuArtifact(a));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kernels[0].persistent, 0);
  a.kernels[0].persistent = 2;
  back = ParseGpuArtifact(SerializeGpuArtifact(a));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kernels[0].persistent, 2);
  std::string text = SerializeGpuArtifact(a);
  for (const char *bad : {"-1", "33", "1.5", "\"2\"", "null"}) {
    std::string edited = text;
    size_t at = edited.find("\"persistent\": 2");
    ASSERT_NE(at, std::string::npos) << text;
    edited.replace(at, std::string("\"persistent\": 2").size(),
                   std::string("\"persistent\": ") + bad);
    back = ParseGpuArtifact(edited);
    ASSERT_FALSE(back.ok()) << bad;
    EXPECT_NE(back.status().message().find("persistent"), std::string::npos) << back.status();
  }
}

TEST(GpuArtifact, TensorMapsRoundTripAndBadOnesAreRefused) {
  GpuArtifact a = oneKernel("ptr:bf16,ptr:bf16,i32,f32");
  GpuTensorMap byArgument;
  byArgument.pointer = 1;
  byArgument.pitchArgument = 2;
  byArgument.box = {128, 64};
  byArgument.swizzle = 128;
  GpuTensorMap fixed;
  fixed.pitch = 4096;
  fixed.elementBytes = 4;
  fixed.box = {8, 32};
  a.kernels[0].tensorMaps = {byArgument, fixed};
  absl::StatusOr<GpuArtifact> back = ParseGpuArtifact(SerializeGpuArtifact(a));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->kernels[0].tensorMaps.size(), 2u);
  const GpuTensorMap &m0 = back->kernels[0].tensorMaps[0], &m1 = back->kernels[0].tensorMaps[1];
  EXPECT_EQ(m0.pointer, 1);
  EXPECT_EQ(m0.pitchArgument, 2);
  EXPECT_EQ(m0.elementBytes, 2);
  EXPECT_EQ(m0.box, (std::array<int32_t, 2>{128, 64}));
  EXPECT_EQ(m0.swizzle, 128);
  EXPECT_EQ(m1.pointer, 0);
  EXPECT_EQ(m1.pitchArgument, -1);
  EXPECT_EQ(m1.pitch, 4096);
  EXPECT_EQ(m1.elementBytes, 4);
  EXPECT_EQ(m1.swizzle, 0);
  // Each edit of the first map's JSON is refused with a message naming the kernel.
  std::string text = SerializeGpuArtifact(a);
  struct Edit {
    const char *from, *to;
  } edits[] = {
      {"\"pointer\": 1", "\"pointer\": 2"},          // an i32, not a pointer
      {"\"pointer\": 1", "\"pointer\": 7"},          // no such argument
      {"\"pitch_argument\": 2", "\"pitch_argument\": 3"}, // an f32
      {"\"pitch_argument\": 2", "\"pitch_argument\": 0"}, // a pointer
      {"\"pitch_argument\": 2", "\"pitch\": 0"},     // no pitch
      {"\"element_bytes\": 2", "\"element_bytes\": 3"},
      {"\"swizzle\": 128", "\"swizzle\": 96"},
      {"\"swizzle\": 128", "\"swizzle\": 64"},       // a 128-byte row in a 64-byte swizzle
      {"128,\n", "257,\n"},                         // a box side over 256
      {"128,\n", "0,\n"},
  };
  for (const Edit &e : edits) {
    std::string edited = text;
    size_t at = edited.find(e.from);
    ASSERT_NE(at, std::string::npos) << e.from << " in " << text;
    edited.replace(at, std::string(e.from).size(), e.to);
    back = ParseGpuArtifact(edited);
    ASSERT_FALSE(back.ok()) << e.to;
    EXPECT_NE(back.status().message().find("tensor map"), std::string::npos) << back.status();
    EXPECT_NE(back.status().message().find("kernel"), std::string::npos) << back.status();
  }
}

TEST(Target, ParsesAndPrintsEveryForm) {
  struct Case {
    const char *text;
    TargetKind kind;
    const char *arch, *cpu, *printed, *device;
  } cases[] = {
      {"cpu", TargetKind::Cpu, "", "", "cpu", "cpu"},
      {"cpu:znver4", TargetKind::Cpu, "", "znver4", "cpu:znver4", "cpu"},
      {"cpu:x86-64-v3", TargetKind::Cpu, "", "x86-64-v3", "cpu:x86-64-v3", "cpu"},
      {"cuda", TargetKind::Cuda, "sm_90", "", "cuda:sm_90", "cuda"},
      {"cuda:sm_80", TargetKind::Cuda, "sm_80", "", "cuda:sm_80", "cuda"},
      {"cuda:sm_90a", TargetKind::Cuda, "sm_90a", "", "cuda:sm_90a", "cuda"},
      {"rocm:gfx942", TargetKind::Rocm, "gfx942", "", "rocm:gfx942", "hip"},
      {"rocm:gfx1100", TargetKind::Rocm, "gfx1100", "", "rocm:gfx1100", "hip"},
  };
  for (const Case &c : cases) {
    absl::StatusOr<Target> t = ParseTarget(c.text);
    ASSERT_TRUE(t.ok()) << c.text << ": " << t.status();
    EXPECT_EQ(t->kind, c.kind) << c.text;
    EXPECT_EQ(t->arch, c.arch) << c.text;
    EXPECT_EQ(t->cpu, c.cpu) << c.text;
    EXPECT_EQ(t->str(), c.printed) << c.text;
    EXPECT_EQ(t->deviceKind(), c.device) << c.text;
    // What str() prints parses back to the same target.
    absl::StatusOr<Target> again = ParseTarget(t->str());
    ASSERT_TRUE(again.ok()) << t->str();
    EXPECT_TRUE(*again == *t) << c.text;
  }
}

TEST(Target, RejectsWhatItCannotBuildFor) {
  for (const char *bad : {"", "gpu", "hip", "cpu:", "cuda:", "cuda:sm_70", "cuda:sm_90b",
                          "rocm", "rocm:gfx908", "cpu:a b", "cpu:x;y", "CUDA"}) {
    absl::StatusOr<Target> t = ParseTarget(bad);
    EXPECT_FALSE(t.ok()) << "'" << bad << "' parsed";
    if (!t.ok())
      EXPECT_NE(std::string(t.status().message()).find("expected cpu"), std::string::npos)
          << t.status();
  }
}

TEST(Target, KindNamesRoundTripAndHipIsRocm) {
  for (TargetKind k : {TargetKind::Cpu, TargetKind::Cuda, TargetKind::Rocm}) {
    absl::StatusOr<TargetKind> parsed = ParseTargetKind(TargetKindName(k));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_EQ(*ParseTargetKind("hip"), TargetKind::Rocm);
  EXPECT_FALSE(ParseTargetKind("tpu").ok());
}

TEST(Target, HostIsThisCpu) {
  Target host = Target::Host();
  EXPECT_EQ(host.kind, TargetKind::Cpu);
  EXPECT_FALSE(host.arch.empty());
  EXPECT_EQ(host.deviceKind(), "cpu");
}

} // namespace
} // namespace tessel

namespace tessel {
namespace {

TEST(Target, CacheKeysTellMachinesApart) {
  // "This machine's CPU" is keyed by its flags; a named CPU by its name; GPUs by their chip.
  Target host;
  std::string key = CompileCacheTargetKey(host);
  EXPECT_NE(key.find(Target::Host().arch), std::string::npos) << key;
  Target named = *ParseTarget("cpu:znver4");
  EXPECT_NE(CompileCacheTargetKey(named), key);
  EXPECT_NE(CompileCacheTargetKey(*ParseTarget("cuda:sm_80")),
            CompileCacheTargetKey(*ParseTarget("cuda:sm_90a")));
}

} // namespace
} // namespace tessel
