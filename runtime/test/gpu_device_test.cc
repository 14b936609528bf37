//===- gpu_device_test.cc - GpuDevice's launch path against a fake driver -*- C++ -*-===//
//
// No GPU: a GpuDriver that hands out addresses and records what it is asked. What the runtime
// does around a TMA kernel's launch (runtime/GpuDevice.cpp): a tensor map for each of the
// artifact's maps where the pointer argument is 16-byte aligned and the pitch a multiple of 16
// bytes (at least the box's width), the mask of those made, and the parameters in the order
// the code takes them (the signature's, the maps, the mask); a map the driver cannot make
// fails the launch with a message naming it; and at load, an artifact whose parameters are not
// the code's is refused.
//
//===----------------------------------------------------------------------===//

#include "runtime/GpuDevice.h"

#include "gtest/gtest.h"

#include <cstring>
#include <random>

namespace {

using tessel::GpuArtifact;
using tessel::GpuKernelInfo;
using tessel::GpuTensorMap;
using tessel::runtime::Arg;
using tessel::runtime::Executable;
using tessel::runtime::GpuDevice;
using tessel::runtime::GpuDriver;
using tessel::runtime::Grid;

struct FakeDriver : GpuDriver {
  // Addresses from 1 MiB up, 256-byte aligned, plus `misalign` for the next allocation.
  uint64_t next = 1 << 20;
  uint64_t misalign = 0;
  absl::Status Malloc(uint64_t *address, size_t bytes) override {
    *address = next + misalign;
    misalign = 0;
    next += (bytes + 511) / 256 * 256;
    return absl::OkStatus();
  }
  void Free(uint64_t) override {}
  absl::Status CopyToDevice(uint64_t, const void *, size_t) override { return absl::OkStatus(); }
  absl::Status CopyToHost(void *, uint64_t, size_t) override { return absl::OkStatus(); }
  absl::Status CopyOnDevice(uint64_t, uint64_t, size_t) override { return absl::OkStatus(); }
  absl::Status Fill(uint64_t, unsigned char, size_t) override { return absl::OkStatus(); }
  void Unload(void *) override {}
  absl::StatusOr<void *> Function(void *, const std::string &) override {
    return reinterpret_cast<void *>(0x1000);
  }

  // What the last launch passed: `signature` slots, `maps` maps, the mask.
  size_t signature = 0, maps = 0;
  std::vector<uint64_t> args;
  std::vector<std::array<uint64_t, 2>> mapWords; // the first 16 bytes of each map
  int32_t mask = -1;
  absl::Status Launch(void *, Grid, const std::array<int32_t, 3> &, unsigned,
                      void **params) override {
    args.clear();
    mapWords.clear();
    for (size_t i = 0; i < signature; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, params[i], 8);
      args.push_back(v);
    }
    for (size_t i = 0; i < maps; ++i) {
      std::array<uint64_t, 2> words;
      std::memcpy(words.data(), params[signature + i], 16);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(params[signature + i]) % 64, 0u) << "map " << i;
      mapWords.push_back(words);
    }
    if (maps)
      std::memcpy(&mask, params[signature + maps], 4);
    return absl::OkStatus();
  }
  absl::Status Synchronize() override { return absl::OkStatus(); }
  absl::StatusOr<void *> CreateEvent() override { return absl::UnimplementedError("no events"); }
  absl::Status Record(void *) override { return absl::OkStatus(); }
  absl::Status WaitFor(void *) override { return absl::OkStatus(); }
  absl::StatusOr<float> ElapsedMs(void *, void *) override { return 0.0f; }
  void DestroyEvent(void *) override {}

  // Each map made: its address and pitch (also written into its first 16 bytes).
  std::vector<std::pair<uint64_t, uint64_t>> encoded;
  bool failEncode = false;
  absl::Status EncodeTensorMap(void *map, const GpuTensorMap &, uint64_t address,
                               uint64_t pitch) override {
    if (failEncode)
      return absl::InternalError("CUDA_ERROR_INVALID_VALUE");
    encoded.push_back({address, pitch});
    std::memcpy(map, &address, 8);
    std::memcpy(static_cast<char *>(map) + 8, &pitch, 8);
    return absl::OkStatus();
  }

  std::optional<std::vector<size_t>> sizes;
  std::optional<std::vector<size_t>> ParameterSizes(void *) override { return sizes; }
};

struct FakeDevice : GpuDevice {
  explicit FakeDevice(FakeDriver &d) : GpuDevice(d, "cuda", "fake", 1 << 20, {}) {}
  absl::StatusOr<std::unique_ptr<Executable>> LoadBytes(const std::string &bytes,
                                                        const std::string &name) override {
    absl::StatusOr<GpuArtifact> a = tessel::ParseGpuArtifact(bytes);
    if (!a.ok())
      return a.status();
    return MakeExecutable(reinterpret_cast<void *>(0x2000), *a, name);
  }
};

/// A GEMM-like kernel: A and B (bf16) and C, then M, N, K; maps over A (pitch K, argument 5)
/// and B (pitch N, argument 4), boxes 128 x 64 and 64 x 64.
GpuArtifact tmaArtifact() {
  GpuArtifact a;
  a.arch = "sm_90a";
  a.ptxVersion = "8.0";
  a.ptx = "// fake";
  GpuKernelInfo k;
  k.name = "gemm_like";
  k.signature = "ptr:bf16,ptr:bf16,ptr:bf16,i32,i32,i32";
  k.block = {256, 1, 1};
  GpuTensorMap ma;
  ma.pointer = 0;
  ma.pitchArgument = 5;
  ma.elementBytes = 2;
  ma.box = {128, 64};
  ma.swizzle = 128;
  GpuTensorMap mb = ma;
  mb.pointer = 1;
  mb.pitchArgument = 4;
  mb.box = {64, 64};
  k.tensorMaps = {ma, mb};
  a.kernels = {k};
  return a;
}

TEST(GpuDeviceWithFakeDriver, TensorMapsWhereAddressAndPitchAllowThemAndTheirMask) {
  FakeDriver driver;
  FakeDevice device(driver);
  auto exe = device.LoadBytes(tessel::SerializeGpuArtifact(tmaArtifact()), "fake.artifact");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto kernel = (*exe)->GetKernel("gemm_like");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  driver.signature = 6;
  driver.maps = 2;
  auto a = device.Allocate(1 << 16), b = device.Allocate(1 << 16), c = device.Allocate(1 << 16);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  std::mt19937 rng(std::random_device{}());
  // Pitches that are multiples of 8 bf16 elements (16 bytes) and at least the box's 64: both
  // maps made, over A at pitch K and B at pitch N, passed after the signature's arguments.
  int32_t m = 64 + int32_t(rng() % 1000), n = 64 + 8 * int32_t(rng() % 100),
          k = 64 + 8 * int32_t(rng() % 100);
  std::vector<Arg> args{(*a)->data(), (*b)->data(), (*c)->data(), m, n, k};
  ASSERT_TRUE(device.Launch(*kernel, Grid{4, 1, 1}, args).ok());
  EXPECT_EQ(driver.mask, 3);
  ASSERT_EQ(driver.encoded.size(), 2u);
  EXPECT_EQ(driver.encoded[0].first, reinterpret_cast<uint64_t>((*a)->data()));
  EXPECT_EQ(driver.encoded[0].second, uint64_t(k));
  EXPECT_EQ(driver.encoded[1].first, reinterpret_cast<uint64_t>((*b)->data()));
  EXPECT_EQ(driver.encoded[1].second, uint64_t(n));
  ASSERT_EQ(driver.mapWords.size(), 2u);
  EXPECT_EQ(driver.mapWords[0][0], reinterpret_cast<uint64_t>((*a)->data()));
  EXPECT_EQ(driver.mapWords[1][1], uint64_t(n));
  EXPECT_EQ(driver.args[0], reinterpret_cast<uint64_t>((*a)->data()));
  EXPECT_EQ(int32_t(driver.args[5]), k);

  // N not a multiple of 8 elements (B's rows not 16-byte aligned): only A's map, mask 1.
  driver.encoded.clear();
  args[4] = n + 1 + int32_t(rng() % 7);
  ASSERT_TRUE(device.Launch(*kernel, Grid{4, 1, 1}, args).ok());
  EXPECT_EQ(driver.mask, 1);
  EXPECT_EQ(driver.encoded.size(), 1u);
  // K narrower than A's box (64 columns): no map over A either.
  driver.encoded.clear();
  args[5] = 8 * int32_t(1 + rng() % 7);
  ASSERT_TRUE(device.Launch(*kernel, Grid{4, 1, 1}, args).ok());
  EXPECT_EQ(driver.mask, 0);
  EXPECT_TRUE(driver.encoded.empty());

  // A pointer 8 bytes past 16-byte alignment: no map over it, the other one made.
  driver.misalign = 8;
  auto odd = device.Allocate(1 << 16);
  ASSERT_TRUE(odd.ok());
  driver.encoded.clear();
  args = {(*odd)->data(), (*b)->data(), (*c)->data(), m, n, k};
  ASSERT_TRUE(device.Launch(*kernel, Grid{4, 1, 1}, args).ok());
  EXPECT_EQ(driver.mask, 2);
  EXPECT_EQ(driver.encoded.size(), 1u);

  // A map the driver refuses fails the launch, naming the map and its argument.
  driver.failEncode = true;
  args[0] = (*a)->data();
  absl::Status s = device.Launch(*kernel, Grid{4, 1, 1}, args);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tensor map 0 over argument #0"), std::string::npos) << s;
  EXPECT_NE(s.message().find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << s;
}

TEST(GpuDeviceWithFakeDriver, AnArtifactWhoseParametersAreNotTheCodesIsRefused) {
  FakeDriver driver;
  FakeDevice device(driver);
  std::string bytes = tessel::SerializeGpuArtifact(tmaArtifact());
  // The code's parameters: three pointers, three i32, two maps, the mask.
  driver.sizes = std::vector<size_t>{8, 8, 8, 4, 4, 4, 128, 128, 4};
  EXPECT_TRUE(device.LoadBytes(bytes, "fake.artifact").ok());
  // Code built without the maps (or an artifact that lost them): refused at load.
  driver.sizes = std::vector<size_t>{8, 8, 8, 4, 4, 4};
  auto refused = device.LoadBytes(bytes, "fake.artifact");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("does not match its code"), std::string::npos)
      << refused.status();
  // A driver that cannot say: loaded (the launch trusts the artifact).
  driver.sizes.reset();
  EXPECT_TRUE(device.LoadBytes(bytes, "fake.artifact").ok());
}

} // namespace
