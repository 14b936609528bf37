//===- gpu_e2e_test.cc - Triton-printed kernels run correctly on a GPU -*- C++ -*-===//
//
// Runtime-only (it links no compiler): the kernels' artifacts are compiled by the build (the
// genrules of compiler/backend/gpu_test_kernels.bzl run tessel-compile on Triton 3.6's TTIR)
// and loaded here through the runtime's GPU device, the way an application loads a bundle:
// built as gpu_e2e_test for the cuda device (NVIDIA) and as rocm/test:hip_e2e_test for the
// hip device (AMD: the artifact of the GPU's own chip). Each test runs a kernel on fresh
// random inputs with poisoned outputs, at sizes that are not multiples of the block (masks
// on), and compares with C++. Where there is no such GPU or driver (CI), every test is skipped
// with the reason; `sweep --build-only --pack=DIR` packs the cuda binary and its artifacts for a GPU host.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/test/MathKernelReference.h"
#include "kernels/ProblemData.h"
#include "kernels/Zoo.h"
#include "runtime/Device.h"
#include "runtime/Files.h"
#include "runtime/target/GpuArtifact.h"

#include "absl/strings/numbers.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

#ifndef TESSEL_E2E_DEVICE
#define TESSEL_E2E_DEVICE "cuda"
#endif

namespace {

using tessel::runtime::Arg;
using tessel::runtime::Buffer;
using tessel::runtime::Device;
using tessel::runtime::Grid;

std::mt19937_64 &rng() {
  static std::mt19937_64 gen{std::random_device{}()};
  return gen;
}

std::vector<float> randomFloats(size_t n) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng());
  return v;
}

/// How many entries of C (m x n, `out(i, j)`) lie farther from A (m x k, row-major) times B
/// (column j at j * k) in double than `bound(ref, mag)` allows, `mag` the sum of the products'
/// magnitudes (NaN never lies within).
int wrongProducts(int m, int n, int k, const std::vector<float> &a, const std::vector<float> &bt,
                  const std::function<double(int, int)> &out,
                  const std::function<double(double, double)> &bound) {
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const float *x = &a[size_t(i) * k], *y = &bt[size_t(j) * k];
      double ref = 0, mag = 0;
      for (int p = 0; p < k; ++p) {
        double xy = double(x[p]) * y[p];
        ref += xy;
        mag += std::fabs(xy);
      }
      wrong += !(std::fabs(out(i, j) - ref) <= bound(ref, mag));
    }
  return wrong;
}

class GpuEndToEnd : public ::testing::Test {
protected:
  void SetUp() override {
    auto device = Device::Create(TESSEL_E2E_DEVICE);
    if (!device.ok())
      GTEST_SKIP() << "no " TESSEL_E2E_DEVICE " GPU here (" << device.status().message()
                   << "); run this test on a GPU host: "
                   << (std::string(TESSEL_E2E_DEVICE) == "cuda"
                           ? "sweep --build-only --pack=DIR carries it, DIR/run runs it"
                           : "bazel test //compiler/backend/rocm/test:hip_e2e_test");
    device_ = std::move(*device);
  }

  template <typename T> std::unique_ptr<Buffer> upload(const std::vector<T> &host) {
    auto buffer = device_->Allocate(host.size() * sizeof(T));
    EXPECT_TRUE(buffer.ok()) << buffer.status();
    if (!buffer.ok())
      return nullptr;
    absl::Status s = (*buffer)->CopyFromHost(host.data(), host.size() * sizeof(T));
    EXPECT_TRUE(s.ok()) << s;
    return std::move(*buffer);
  }

  template <typename T> std::vector<T> download(Buffer &buffer, size_t n) {
    std::vector<T> host(n);
    absl::Status s = buffer.CopyToHost(host.data(), n * sizeof(T));
    EXPECT_TRUE(s.ok()) << s;
    return host;
  }

  /// Where the build put test kernel `name`'s artifact for this device: cuda/test/NAME.artifact
  /// (sm_90: cubin or PTX), rocm/test/NAME_ARCH.artifact (this GPU's chip).
  std::string artifactPath(const std::string &name) {
    if (device_->kind() == "cuda")
      return "compiler/backend/cuda/test/" + name + ".artifact";
    return "compiler/backend/rocm/test/" + name + "_" + device_->Environment()["arch"] +
           ".artifact";
  }

  /// The zoo's matmul `artifact` (blocks of bm x bn, one program each) on A (m x k, row-major)
  /// and B (K x N with rows, or columns where `bColumnContiguous`, apart by their length) into
  /// C (m x n, row-major): the strides that are not constexpr are A's rows, B's rows (or
  /// columns) and C's rows.
  void runZooMatmul(const char *artifact, Buffer &a, Buffer &b, Buffer &c, int m, int n, int k,
                    int bm, int bn, bool bColumnContiguous) {
    int programs = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
    run(artifact, "matmul", Grid{programs, 1, 1},
        {a.data(), b.data(), c.data(), int32_t(m), int32_t(n), int32_t(k), int32_t(k),
         int32_t(bColumnContiguous ? k : n), int32_t(n)});
  }

  /// Loads `artifact`'s kernel `entry`, launches it over `grid` and waits.
  void run(const std::string &artifact, const std::string &entry, Grid grid,
           const std::vector<Arg> &args) {
    auto executable = device_->Load(artifactPath(artifact));
    ASSERT_TRUE(executable.ok()) << executable.status();
    auto kernel = (*executable)->GetKernel(entry);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    absl::Status s = device_->Launch(*kernel, grid, args);
    ASSERT_TRUE(s.ok()) << s;
    s = device_->Synchronize();
    ASSERT_TRUE(s.ok()) << s;
    executables_.push_back(std::move(*executable));
  }

  /// Test kernel `name`'s artifact, as parsed from its file.
  tessel::GpuArtifact readArtifact(const std::string &name) {
    std::string text;
    EXPECT_TRUE(tessel::runtime::ReadWholeFile(artifactPath(name), text)) << name;
    absl::StatusOr<tessel::GpuArtifact> a = tessel::ParseGpuArtifact(text);
    EXPECT_TRUE(a.ok()) << name << ": " << a.status();
    return a.ok() ? *a : tessel::GpuArtifact();
  }

  std::unique_ptr<Device> device_;
  std::vector<std::unique_ptr<tessel::runtime::Executable>> executables_;
};

TEST_F(GpuEndToEnd, VectorAdd) {
  for (int n : {1, 127, 1000, 4096 + 3, (1 << 24) + 5}) {
    std::vector<float> x = randomFloats(n), y = randomFloats(n);
    std::vector<float> poison(n + 8, NAN);
    auto bx = upload(x), by = upload(y), bout = upload(poison);
    ASSERT_TRUE(bx && by && bout);
    run("vadd", "vadd", Grid{(n + 127) / 128, 1, 1},
        {bx->data(), by->data(), bout->data(), int32_t(n)});
    std::vector<float> out = download<float>(*bout, n + 8);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      wrong += out[i] != x[i] + y[i]; // exact: one float addition
    EXPECT_EQ(wrong, 0) << "n = " << n;
    for (int i = n; i < n + 8; ++i)
      EXPECT_TRUE(std::isnan(out[i])) << "wrote past the end at " << i;
  }
}

TEST_F(GpuEndToEnd, VectorAccesses) {
  // vector_access.mlir's @aligned: out = 2 x, 1024 elements a program, 128-bit accesses where
  // a thread's group of four is in bounds; n leaves partial groups and partial programs.
  for (int n : {1, 3, 1021, 4096 + 3, (1 << 22) + 5}) {
    std::vector<float> x = randomFloats(n);
    std::vector<float> poison(n + 8, NAN);
    auto bx = upload(x), bout = upload(poison);
    ASSERT_TRUE(bx && bout);
    run("aligned", "aligned", Grid{(n + 1023) / 1024, 1, 1}, {bx->data(), bout->data(), int32_t(n)});
    std::vector<float> out = download<float>(*bout, n + 8);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      wrong += out[i] != 2 * x[i];
    EXPECT_EQ(wrong, 0) << "n = " << n;
    for (int i = n; i < n + 8; ++i)
      EXPECT_TRUE(std::isnan(out[i])) << "wrote past the end at " << i;
  }
  // @rows_divisible: row r at r * stride (stride divisible by 16), its first n elements.
  const int rows = 37, stride = 1040;
  for (int n : {5, 999, 1024}) {
    std::vector<float> x = randomFloats(size_t(rows) * stride);
    std::vector<float> poison(size_t(rows) * stride, NAN);
    auto bx = upload(x), bout = upload(poison);
    ASSERT_TRUE(bx && bout);
    run("rows_divisible", "rows_divisible", Grid{rows, 1, 1},
        {bx->data(), bout->data(), int32_t(stride), int32_t(n)});
    std::vector<float> out = download<float>(*bout, size_t(rows) * stride);
    int wrong = 0, written = 0;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < stride; ++c) {
        size_t i = size_t(r) * stride + c;
        if (c < n)
          wrong += out[i] != 2 * x[i];
        else
          written += !std::isnan(out[i]);
      }
    EXPECT_EQ(wrong, 0) << "n = " << n;
    EXPECT_EQ(written, 0) << "n = " << n << ": wrote outside the rows' first n elements";
  }
  // The kernels were compiled assuming 16-byte aligned pointers and a stride divisible by 16:
  // a launch that breaks either is refused before it runs.
  auto executable = device_->Load(artifactPath("rows_divisible"));
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto kernel = (*executable)->GetKernel("rows_divisible");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto bx = upload(randomFloats(4096)), bout = upload(randomFloats(4096));
  ASSERT_TRUE(bx && bout);
  char *shifted = static_cast<char *>(bx->data()) + 4;
  absl::Status s = device_->Launch(*kernel, Grid{1, 1, 1},
                                   {static_cast<void *>(shifted), bout->data(), int32_t(16), int32_t(8)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("aligned to 16"), std::string::npos) << s;
  s = device_->Launch(*kernel, Grid{1, 1, 1}, {bx->data(), bout->data(), int32_t(24), int32_t(8)});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("divisible by 16"), std::string::npos) << s;
  EXPECT_TRUE(device_->Synchronize().ok());
}

TEST_F(GpuEndToEnd, RowCumsum) {
  const int rows = 37, n = 300, stride = 304;
  std::vector<float> x = randomFloats(rows * stride), poison(rows * stride, NAN);
  auto bx = upload(x), bout = upload(poison);
  ASSERT_TRUE(bx && bout);
  run("row_cumsum", "row_cumsum", Grid{rows, 1, 1},
      {bx->data(), bout->data(), int32_t(n), int32_t(stride)});
  std::vector<float> out = download<float>(*bout, rows * stride);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < n; ++c) {
      s += x[r * stride + c];
      // A float scan of up to 300 terms in [-1, 1], in any association order.
      ASSERT_NEAR(out[r * stride + c], s, 1e-4 + 1e-5 * std::fabs(s)) << r << "," << c;
    }
    EXPECT_TRUE(std::isnan(out[r * stride + n])) << "wrote past row " << r;
  }
}

TEST_F(GpuEndToEnd, AtomicHistogram) {
  const int n = 100003, bins = 16;
  std::uniform_int_distribution<int32_t> dist(0, bins - 1);
  std::vector<int32_t> x(n), zero(bins, 0), want(bins, 0);
  for (int32_t &v : x) {
    v = dist(rng());
    ++want[v];
  }
  auto bx = upload(x), bhist = upload(zero);
  ASSERT_TRUE(bx && bhist);
  run("atomic_histogram", "atomic_histogram", Grid{(n + 127) / 128, 1, 1},
      {bx->data(), bhist->data(), int32_t(n)});
  EXPECT_EQ(download<int32_t>(*bhist, bins), want);
}

TEST_F(GpuEndToEnd, NoinlineCall) {
  const int n = 100001;
  const float alpha = 1.75f;
  std::vector<float> x = randomFloats(n), y = randomFloats(n), poison(n, NAN);
  auto bx = upload(x), by = upload(y), bout = upload(poison);
  ASSERT_TRUE(bx && by && bout);
  run("noinline_axpy", "noinline_axpy", Grid{(n + 127) / 128, 1, 1},
      {bx->data(), by->data(), bout->data(), int32_t(n), alpha});
  std::vector<float> out = download<float>(*bout, n);
  // The noinline callee scale_add(x, y, a) = x * a + y, called as scale_add(alpha, 2.0, 0.5).
  const float coef = alpha * 0.5f + 2.0f;
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += !(std::fabs(out[i] - (x[i] * coef + y[i])) <= 1e-6f + 1e-6f * std::fabs(out[i]));
  EXPECT_EQ(wrong, 0);
}

// Operands found through their device addresses (int64 tables converted back with
// tl.pointer_type, as a grouped GEMM does): three matmuls of their own random sizes.
TEST_F(GpuEndToEnd, GroupedMatmulThroughAddresses) {
  const int G = 3;
  std::vector<std::vector<float>> as(G), bs(G);
  std::vector<std::unique_ptr<Buffer>> ba(G), bb(G), bc(G);
  std::vector<int64_t> aAddrs(G), bAddrs(G), cAddrs(G);
  std::vector<int32_t> dims(3 * G);
  for (int g = 0; g < G; ++g) {
    int m = 1 + int(rng()() % 64), n = 1 + int(rng()() % 64), k = 1 + int(rng()() % 150);
    dims[3 * g] = m, dims[3 * g + 1] = n, dims[3 * g + 2] = k;
    as[g] = randomFloats(size_t(m) * k);
    bs[g] = randomFloats(size_t(k) * n);
    ba[g] = upload(as[g]), bb[g] = upload(bs[g]);
    bc[g] = upload(std::vector<float>(size_t(m) * n, NAN));
    ASSERT_TRUE(ba[g] && bb[g] && bc[g]);
    aAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(ba[g]->data()));
    bAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(bb[g]->data()));
    cAddrs[g] = int64_t(reinterpret_cast<uintptr_t>(bc[g]->data()));
  }
  auto ta = upload(aAddrs), tb = upload(bAddrs), tc = upload(cAddrs), td = upload(dims);
  ASSERT_TRUE(ta && tb && tc && td);
  run("grouped_matmul", "grouped_matmul_kernel", Grid{G, 1, 1},
      {ta->data(), tb->data(), tc->data(), td->data()});
  for (int g = 0; g < G; ++g) {
    int m = dims[3 * g], n = dims[3 * g + 1], k = dims[3 * g + 2];
    std::vector<float> c = download<float>(*bc[g], size_t(m) * n);
    int wrong = 0;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (int p = 0; p < k; ++p) {
          ref += double(as[g][i * k + p]) * bs[g][p * n + j];
          mag += std::fabs(double(as[g][i * k + p]) * bs[g][p * n + j]);
        }
        // f32 operands; tf32 tensor cores where the backend uses them.
        wrong += !(std::fabs(c[i * n + j] - ref) <= 2e-3 * mag + 1e-5);
      }
    EXPECT_EQ(wrong, 0) << "member " << g << " (" << m << "x" << n << "x" << k << ")";
  }
}

// The zoo's matmul built for sm_90a (cuda only), where its dots run on warpgroups (wgmma from
// swizzled shared memory): bf16 with B column-contiguous (stride_bk = 1: wgmma reads it
// K-major) and two wgmma a k step (128 rows, one warpgroup), and f16 with B row-major over two
// warpgroups of 128 columns (N-major, its 64-column blocks), and bf16 128 x 256 over two
// warpgroups of 64 rows with two stages and K up to 1200 (wgmma groups in flight across K
// steps, C's shared bytes reused from the operand tiles after the loop). Sizes that are not
// multiples of the blocks (the last round about 1024 x 1024, many blocks, rows 16-byte
// aligned), C poisoned; against a double reference of the rounded inputs.
TEST_F(GpuEndToEnd, MatmulOnWarpgroups) {
  if (device_->kind() != "cuda")
    GTEST_SKIP() << "wgmma is an NVIDIA sm_90a instruction";
  if (device_->Environment()["arch"] != "sm_90")
    GTEST_SKIP() << "wgmma needs an sm_90 GPU (this one is " << device_->Environment()["arch"]
                 << ")";
  struct Variant {
    const char *artifact;
    bool bf16;
    bool bColumnContiguous;
    int bm, bn;   // the block's tile of C
    int maxK;     // K drawn from 16 .. maxK
  };
  for (const Variant &v : {Variant{"wgmma_bf16_bt", true, true, 128, 64, 316},
                           Variant{"wgmma_f16", false, false, 64, 256, 316},
                           Variant{"wgmma_bf16_wide", true, false, 128, 256, 1200},
                           // Persistent: in the third round about 289 programs on 132 blocks.
                           Variant{"wgmma_bf16_persistent", true, false, 64, 64, 316},
                           // TMA where a tile is whole and the rows 16-byte aligned (the
                           // third round's K and N), cp.async elsewhere.
                           Variant{"wgmma_bf16_tma", true, false, 128, 256, 1200},
                           Variant{"wgmma_f16_tma", false, false, 64, 256, 316},
                           // Warp specialized: a producer warpgroup issues the TMA loads (and
                           // arrives for the consumers' cp.async where TMA cannot load).
                           Variant{"wgmma_bf16_ws", true, false, 128, 256, 1200},
                           Variant{"wgmma_f16_ws", false, false, 64, 128, 1200}})
    for (int round = 0; round < 3; ++round) {
      int m = 64 + int(rng()() % 400), n = 64 + int(rng()() % 600);
      int k = 16 + int(rng()() % (v.maxK - 15));
      // A third round at about 1024 x 1024, many blocks ending their K loops at once, with K
      // and N multiples of 8: rows 16-byte aligned, so the tiles take the cp.async path, their
      // last rows and columns wrapping around (M and N not multiples of the blocks).
      if (round == 2) {
        m = 1025 + int(rng()() % 63);
        n = 1024 + 8 * (1 + int(rng()() % 7));
        k = 512 + 8 * int(rng()() % 64);
      }
      const std::string dtype = v.bf16 ? "bf16" : "f16";
      auto to16 = [&](float x) { return uint16_t(tessel::zoo::store(dtype, x)); };
      auto from16 = [&](uint16_t h) { return tessel::zoo::load(dtype, h); };
      // The inputs in 16 bits, and as the floats they round to (the reference's): A row-major,
      // B by columns (its column j at j * k) for the reference; the device's B at p * n + j
      // (row-major) or j * k + p (column-contiguous).
      std::vector<float> ar = randomFloats(size_t(m) * k), bt = randomFloats(size_t(k) * n);
      std::vector<uint16_t> a(ar.size()), b(bt.size());
      for (size_t i = 0; i < ar.size(); ++i) {
        a[i] = to16(ar[i]);
        ar[i] = from16(a[i]);
      }
      for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p) {
          uint16_t h = to16(bt[size_t(j) * k + p]);
          b[v.bColumnContiguous ? size_t(j) * k + p : size_t(p) * n + j] = h;
          bt[size_t(j) * k + p] = from16(h);
        }
      auto ba = upload(a), bb = upload(b);
      auto bc = upload(std::vector<uint16_t>(size_t(m) * n, 0x7FC1)); // NaN in bf16 and f16
      ASSERT_TRUE(ba && bb && bc);
      runZooMatmul(v.artifact, *ba, *bb, *bc, m, n, k, v.bm, v.bn, v.bColumnContiguous);
      std::vector<uint16_t> c = download<uint16_t>(*bc, size_t(m) * n);
      // f32 accumulation, then one rounding to the 16-bit output (8 or 11 significant bits); a
      // misplaced fragment or operand is off by the size of the sum itself.
      int wrong = wrongProducts(
          m, n, k, ar, bt, [&](int i, int j) { return from16(c[size_t(i) * n + j]); },
          [&](double ref, double mag) {
            return (v.bf16 ? 8e-3 : 1e-3) * std::fabs(ref) + 1e-4 * mag;
          });
      EXPECT_EQ(wrong, 0) << v.artifact << " " << m << "x" << n << "x" << k;
    }
}

// An artifact edited apart from its code is refused at load, where the driver reports a
// kernel's parameters (cuFuncGetParamInfo, CUDA 12.4): a persistent kernel's artifact without
// its "persistent" (three parameters fewer), a TMA kernel's without its tensor maps (two maps
// and their mask fewer). And the TMA kernels, with and without a producer warpgroup, read their
// operands through the maps: with the maps' pointers swapped (A's map over B and B's over A;
// square operands, so every box stays in bounds) the product is B A, not A B.
TEST_F(GpuEndToEnd, ArtifactsMatchTheirCodeAndTmaReadsThroughTheMaps) {
  if (device_->kind() != "cuda" || device_->Environment()["arch"] != "sm_90")
    GTEST_SKIP() << "the artifacts are built for NVIDIA sm_90a";
  double api = 0;
  if (!absl::SimpleAtod(device_->Environment()["cuda_driver_api"], &api) || api < 12.4)
    GTEST_SKIP() << "the driver (CUDA " << device_->Environment()["cuda_driver_api"]
                 << ") does not report kernel parameters";
  auto refused = [&](const tessel::GpuArtifact &edited, const char *what) {
    auto exe = device_->LoadBytes(tessel::SerializeGpuArtifact(edited), what);
    ASSERT_FALSE(exe.ok()) << what << " was loaded";
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kFailedPrecondition) << exe.status();
    EXPECT_NE(exe.status().message().find("does not match its code"), std::string::npos)
        << exe.status();
  };
  tessel::GpuArtifact persistent = readArtifact("wgmma_bf16_persistent");
  ASSERT_EQ(persistent.kernels.size(), 1u);
  ASSERT_GT(persistent.kernels[0].persistent, 0);
  persistent.kernels[0].persistent = 0;
  refused(persistent, "wgmma_bf16_persistent without \"persistent\"");
  tessel::GpuArtifact tma = readArtifact("wgmma_bf16_tma");
  ASSERT_EQ(tma.kernels.size(), 1u);
  ASSERT_EQ(tma.kernels[0].tensorMaps.size(), 2u);
  tessel::GpuArtifact noMaps = tma;
  noMaps.kernels[0].tensorMaps.clear();
  refused(noMaps, "wgmma_bf16_tma without its tensor maps");

  // 1024 x 1024 x 1024: whole 128 x 256 blocks and 64-column K steps, rows 16-byte aligned.
  const int m = 1024, n = 1024, k = 1024;
  std::vector<float> ar = randomFloats(size_t(m) * k), bt = randomFloats(size_t(k) * n);
  std::vector<uint16_t> a(ar.size()), b(bt.size());
  for (size_t i = 0; i < ar.size(); ++i) {
    a[i] = uint16_t(tessel::zoo::store("bf16", ar[i]));
    ar[i] = tessel::zoo::load("bf16", a[i]);
  }
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p) {
      uint16_t h = uint16_t(tessel::zoo::store("bf16", bt[size_t(j) * k + p]));
      b[size_t(p) * n + j] = h;
      bt[size_t(j) * k + p] = tessel::zoo::load("bf16", h);
    }
  auto ba = upload(a), bb = upload(b);
  ASSERT_TRUE(ba && bb);
  for (const char *name : {"wgmma_bf16_tma", "wgmma_bf16_ws"}) {
    SCOPED_TRACE(name);
    tma = readArtifact(name);
    ASSERT_EQ(tma.kernels.size(), 1u);
    ASSERT_EQ(tma.kernels[0].tensorMaps.size(), 2u);
    std::swap(tma.kernels[0].tensorMaps[0].pointer, tma.kernels[0].tensorMaps[1].pointer);
    auto exe = device_->LoadBytes(tessel::SerializeGpuArtifact(tma), "swapped maps");
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto kernel = (*exe)->GetKernel("matmul");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    auto bound = [](double ref, double mag) { return 8e-3 * std::fabs(ref) + 1e-4 * mag; };
    for (bool swapped : {false, true}) {
      auto bc = upload(std::vector<uint16_t>(size_t(m) * n, 0x7FC1)); // NaN
      ASSERT_TRUE(bc);
      std::vector<Arg> args{ba->data(), bb->data(), bc->data(), int32_t(m), int32_t(n),
                            int32_t(k), int32_t(k), int32_t(n), int32_t(n)};
      if (swapped) {
        ASSERT_TRUE(device_->Launch(*kernel, Grid{(m / 128) * (n / 256), 1, 1}, args).ok());
        ASSERT_TRUE(device_->Synchronize().ok());
      } else {
        runZooMatmul(name, *ba, *bb, *bc, m, n, k, 128, 256, false);
      }
      std::vector<uint16_t> c = download<uint16_t>(*bc, size_t(m) * n);
      auto out = [&](int i, int j) { return tessel::zoo::load("bf16", c[size_t(i) * n + j]); };
      int wrong = wrongProducts(m, n, k, ar, bt, out, bound);
      if (!swapped) {
        EXPECT_EQ(wrong, 0) << "A B through the maps";
        continue;
      }
      // B A where A B was asked for: almost every element off.
      EXPECT_GT(wrong, m * n / 2) << "the swapped maps were not read";
    }
  }
}

// The zoo's matmul on f32 inputs built for sm_90a: its tl.dot allows tf32 (Triton's default),
// so it runs mma.sync.m16n8k8 on tf32 (wgmma keeps 16-bit operands), B row-major (its fragments
// element by element) and column-contiguous (ldmatrix of an N x K tile), operand tiles over 3
// and 2 stages. Sizes not multiples of the blocks (the second round's rows 16-byte aligned,
// the first's not: the synchronous copies), C poisoned; against a double reference of the f32
// inputs with tf32's bound (each operand rounded to 11 significant bits: a product off by at
// most 2^-10 of itself), where a misplaced fragment is off by the size of the sum.
TEST_F(GpuEndToEnd, Tf32MatmulOnTensorCores) {
  if (device_->kind() != "cuda")
    GTEST_SKIP() << "mma.sync is an NVIDIA instruction";
  if (device_->Environment()["arch"] != "sm_90")
    GTEST_SKIP() << "the artifacts are built for sm_90a (this GPU is "
                 << device_->Environment()["arch"] << ")";
  struct Variant {
    const char *artifact;
    bool bColumnContiguous;
    int bm, bn;
  };
  for (const Variant &v :
       {Variant{"tf32_mma", false, 64, 128}, Variant{"tf32_mma_bt", true, 128, 64}})
    for (int round = 0; round < 2; ++round) {
      int m = 64 + int(rng()() % 400), n = 64 + int(rng()() % 600), k = 16 + int(rng()() % 300);
      if (round == 1) {
        n = n / 4 * 4;
        k = k / 4 * 4;
      }
      // A row-major; B by columns (column j at j * k) for the reference, the device's B at
      // p * n + j (row-major) or j * k + p (column-contiguous).
      std::vector<float> a = randomFloats(size_t(m) * k), bt = randomFloats(size_t(k) * n);
      std::vector<float> b(bt.size());
      for (int j = 0; j < n; ++j)
        for (int p = 0; p < k; ++p)
          b[v.bColumnContiguous ? size_t(j) * k + p : size_t(p) * n + j] = bt[size_t(j) * k + p];
      auto ba = upload(a), bb = upload(b);
      auto bc = upload(std::vector<float>(size_t(m) * n, std::nanf("")));
      ASSERT_TRUE(ba && bb && bc);
      runZooMatmul(v.artifact, *ba, *bb, *bc, m, n, k, v.bm, v.bn, v.bColumnContiguous);
      std::vector<float> c = download<float>(*bc, size_t(m) * n);
      int wrong = wrongProducts(
          m, n, k, a, bt, [&](int i, int j) { return c[size_t(i) * n + j]; },
          [](double, double mag) { return 2e-3 * mag + 1e-6; });
      EXPECT_EQ(wrong, 0) << v.artifact << " " << m << "x" << n << "x" << k;
    }
}

// The zoo's attention (kernels/attention/attention.py) on tensor cores, its K and V tiles
// copied by cp.async over 2 stages, checked by the zoo's own problem (fresh random Q, K, V,
// the output poisoned, a sample of query rows against a double reference) at token counts
// that are not multiples of the blocks: on sm_90a with both products on wgmma (bf16, head dim
// 64 causal with 4 warps; head dim 128 with 8, two warpgroups taking turns at Q.K^T, causal
// and not) and on sm_90 with mma.sync (f16, head dim 128).
TEST_F(GpuEndToEnd, AttentionOnTensorCores) {
  if (device_->kind() != "cuda")
    GTEST_SKIP() << "the artifacts are built for NVIDIA sm_90 and sm_90a";
  if (device_->Environment()["arch"] != "sm_90")
    GTEST_SKIP() << "the artifacts need an sm_90 GPU (this one is "
                 << device_->Environment()["arch"] << ")";
  const tessel::zoo::Kernel *attention = tessel::zoo::Find("attention");
  ASSERT_NE(attention, nullptr);
  struct Variant {
    const char *artifact, *dtype;
    int64_t d, causal, blockM, blockN, warps;
    int64_t z = 2; // batch
  };
  for (const Variant &v : {Variant{"attention_sm90a", "bf16", 64, 1, 64, 64, 4},
                           Variant{"attention_sm90a_d128", "bf16", 128, 0, 128, 128, 8},
                           Variant{"attention_sm90a_d128_causal", "bf16", 128, 1, 128, 64, 8},
                           Variant{"attention_sm90", "f16", 128, 0, 32, 64, 4},
                           // Persistent blocks: 64 to 288 programs (4 to 18 row blocks of
                           // 16 heads) on at most 132 blocks, each running them in turn.
                           Variant{"attention_sm90a_persistent", "bf16", 64, 1, 64, 64, 4, 8},
                           Variant{"attention_sm90a_tma", "bf16", 128, 1, 128, 64, 8}}) {
    auto executable = device_->Load(artifactPath(v.artifact));
    ASSERT_TRUE(executable.ok()) << executable.status();
    auto kernel = (*executable)->GetKernel("attention");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    for (int round = 0; round < 2; ++round) {
      int64_t n = 200 + int64_t(rng()() % 900);
      tessel::zoo::Shape shape{{"Z", v.z}, {"H", 2}, {"N_CTX", n}, {"D", v.d}, {"CAUSAL", v.causal}};
      auto made = attention->makeProblem(shape, v.dtype, rng()());
      ASSERT_TRUE(made.ok()) << made.status();
      auto problem = *std::move(made);
      tessel::autotune::Point config{{"BLOCK_M", v.blockM},
                                     {"BLOCK_N", v.blockN},
                                     {"knob.num_stages", 2},
                                     {"knob.num_warps", v.warps}};
      absl::Status s = problem->RunAndCheck(*device_, *kernel, config);
      EXPECT_TRUE(s.ok()) << v.artifact << " N_CTX=" << n << ": " << s;
    }
    executables_.push_back(std::move(*executable));
  }
}

// tl.math on the GPU: on cuda, libdevice's functions (the artifact built where the build
// machine has a CUDA toolkit) and tessel's own polynomials (built with --cuda-toolkit=none);
// on hip, tessel's own; against the C library in double, as the CPU's py_e2e_test checks the
// same kernel.
TEST_F(GpuEndToEnd, MathFunctions) {
  std::uniform_real_distribution<float> inside(-0.99f, 0.99f), above(1.01f, 4.f);
  const int n = 1000 + int(rng()() % 1000);
  std::vector<float> x(n), y(n), poison(20 * size_t(n), NAN);
  for (int i = 0; i < n; ++i) {
    x[i] = inside(rng());
    y[i] = above(rng());
  }
  std::vector<std::string> artifacts = {"math"};
  if (device_->kind() == "cuda")
    artifacts.push_back("math_own");
  for (const std::string &artifact : artifacts) {
    auto bx = upload(x), by = upload(y), bout = upload(poison);
    ASSERT_TRUE(bx && by && bout);
    run(artifact, "math_kernel", Grid{(n + 127) / 128, 1, 1},
        {bx->data(), by->data(), bout->data(), int32_t(n)});
    std::vector<float> out = download<float>(*bout, 20 * size_t(n));
    for (int i = 0; i < n; ++i) {
      double want[tessel::test::kMathResults];
      tessel::test::mathReference(x[i], y[i], want);
      for (int j = 0; j < tessel::test::kMathResults; ++j)
        ASSERT_NEAR(out[20 * size_t(i) + j], want[j], tessel::test::mathTolerance(j, want[j]))
            << artifact << ": " << tessel::test::kMathNames[j] << " at x=" << x[i]
            << " y=" << y[i];
    }
  }
}

} // namespace
