//===- runtime_test.cc - Module, Kernel and Launch, including bad input -*- C++ -*-===//
//
// Uses a shared object compiled from Triton's vector-add TTIR and deliberately broken files.
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline/Compiler.h"
#include "runtime/CudaDevice.h"
#include "runtime/Device.h"
#include "runtime/HipDevice.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "runtime/Npy.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <thread>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace tessel::runtime;

/// Compiles the vector-add TTIR once per test process.
std::string buildVaddSo() {
  std::ifstream in("compiler/dialect/triton/test/triton_printed/vadd_block128.ttir");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tessel::CompileOptions options;
  options.entry = "vadd";
  options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/vadd.so";
  auto so = tessel::compileTTIR(text, "vadd_block128.ttir", options);
  if (!so.ok()) {
    // Every test that opens the module then fails with this message's consequences.
    ADD_FAILURE() << "cannot build the test kernel: " << so.status();
    return std::string(getenv("TEST_TMPDIR")) + "/vadd-build-failed.so";
  }
  return *so;
}

const std::string &vaddSo() {
  static const std::string path = buildVaddSo();
  return path;
}
#define kVaddSo vaddSo()

std::string tmpFile(const std::string &name, const std::string &contents) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(Compiler, InvalidKnobsAreAnErrorNotACrash) {
  std::ifstream in("compiler/dialect/triton/test/triton_printed/vadd_block128.ttir");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto [m, n, k, width, unroll, prefetch] :
       {std::tuple{4, 0, 1, 0, 1, 0}, std::tuple{4, 64, 0, 0, 1, 0}, std::tuple{-1, 64, 1, 0, 1, 0},
        std::tuple{4, 64, 1, -16, 1, 0}, std::tuple{4, 64, 1, 16, 0, 0},
        std::tuple{4, 64, 1, 0, 1, -1}}) {
    tessel::CompileOptions options;
    options.entry = "vadd";
    options.knobs = {{"tile_m", m},       {"tile_n", n},      {"tile_k", k},
                     {"vector_width", width}, {"unroll", unroll}, {"prefetch", prefetch}};
    options.outputPath = std::string(getenv("TEST_TMPDIR")) + "/bad-knobs.so";
    auto so = tessel::compileTTIR(text, "vadd_block128.ttir", options);
    ASSERT_FALSE(so.ok());
    EXPECT_NE(so.status().message().find("is out of range (allowed: "), std::string::npos)
        << so.status();
  }
}

TEST(Module, OpensAndFindsKernel) {
  auto module = Module::Open(kVaddSo);
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = (*module)->GetKernel("vadd");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  ASSERT_EQ(kernel->signature().size(), 4u);
  EXPECT_EQ(kernel->signature()[0].str(), "ptr:f32");
  EXPECT_EQ(kernel->signature()[3].str(), "i32");
  EXPECT_EQ((*module)->KernelNames(), std::vector<std::string>{"vadd"});
}

TEST(Module, MissingKernelNamesTheOnesThere) {
  auto module = Module::Open(kVaddSo);
  ASSERT_TRUE(module.ok());
  auto kernel = (*module)->GetKernel("no_such_kernel");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(kernel.status().message().find("it has: vadd"), std::string::npos)
      << kernel.status();
}

TEST(Module, MissingFile) {
  auto module = Module::Open("/nonexistent/kernel.so");
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find("cannot open /nonexistent/kernel.so"),
            std::string::npos)
      << module.status();
}

TEST(Module, ARelativeNameIsThatFileNeverTheLibraryPath) {
  // A name without '/' names a file in the working directory: never a library that dlopen
  // would find on its search path (libm.so.6 is on every machine's), and the file there is
  // what loads.
  char *cwd = getcwd(nullptr, 0);
  ASSERT_NE(cwd, nullptr);
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/relative";
  mkdir(dir.c_str(), 0755);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  auto system = Module::Open("libm.so.6");
  auto device = Device::Create("cpu");
  ASSERT_TRUE(device.ok());
  auto viaDevice = (*device)->Load("libm.so.6");
  std::ifstream in(kVaddSo, std::ios::binary);
  std::ofstream("kernel.so", std::ios::binary) << in.rdbuf();
  auto local = (*device)->Load("kernel.so");
  ASSERT_EQ(chdir(cwd), 0);
  free(cwd);
  ASSERT_FALSE(system.ok());
  EXPECT_NE(system.status().message().find("cannot open"), std::string::npos) << system.status();
  ASSERT_FALSE(viaDevice.ok());
  EXPECT_NE(viaDevice.status().message().find("libm.so.6"), std::string::npos)
      << viaDevice.status();
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_TRUE((*local)->GetKernel("vadd").ok());
}

TEST(Module, NotAnElfFile) {
  auto module = Module::Open(tmpFile("garbage.so", "this is not a shared object"));
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find("is not an ELF shared object"), std::string::npos)
      << module.status();
}

TEST(Module, WrongArchitecture) {
  // A 64-bit ELF header for AArch64 (or x86-64 when running on AArch64).
  std::string header(64, '\0');
  header[0] = 0x7f, header[1] = 'E', header[2] = 'L', header[3] = 'F';
  header[4] = 2 /* 64-bit */, header[5] = 1 /* little endian */, header[6] = 1;
  header[16] = 3 /* ET_DYN */;
#if defined(__x86_64__)
  header[18] = 183 /* EM_AARCH64 */;
#else
  header[18] = 62 /* EM_X86_64 */;
#endif
  auto module = Module::Open(tmpFile("foreign.so", header));
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(module.status().message().find("another architecture"), std::string::npos)
      << module.status();
}

TEST(Module, TruncatedSharedObject) {
  std::ifstream in(kVaddSo, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1024u); // a real shared object, cut to a third below
  auto module = Module::Open(tmpFile("truncated.so", bytes.substr(0, bytes.size() / 3)));
  EXPECT_FALSE(module.ok());
}

TEST(Npy, AShapeLargerThanTheFileIsAnErrorNotAnAllocation) {
  // 3 x 21474836485 int8 (64 GB, under the size limit) with 9 bytes of data: refused before
  // anything that size is allocated.
  std::string header = "{'descr': '|i1', 'fortran_order': False, 'shape': (3, 21474836485), }";
  header.append(118 - header.size() - 1, ' ');
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size()) + '\0' + header +
                     std::string(9, '\x07');
  absl::StatusOr<NpyArray> a = ReadNpy(tmpFile("huge-shape.npy", file));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("the file holds 9"), std::string::npos) << a.status();
}

TEST(Npy, AFifoIsRefused) {
  // Only regular files are read: a FIFO (even one holding a whole valid array, its writer
  // still there) is refused before anything waits on it.
  NpyArray a;
  a.dtype = "f32";
  a.shape = {3, 5};
  a.data.resize(60);
  std::mt19937 gen(std::random_device{}());
  for (uint8_t &byte : a.data)
    byte = uint8_t(gen());
  std::string file = tmpFile("fifo-source.npy", "");
  ASSERT_TRUE(WriteNpy(file, a).ok());
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string fifo = std::string(getenv("TEST_TMPDIR")) + "/array.fifo";
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  int writer = open(fifo.c_str(), O_RDWR | O_NONBLOCK); // never blocks on Linux
  ASSERT_GE(writer, 0);
  ASSERT_EQ(write(writer, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  absl::StatusOr<NpyArray> read = ReadNpy(fifo);
  close(writer);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(fifo + " is not a regular file"), std::string::npos)
      << read.status();
}

TEST(Signature, RejectsUnknownTypes) {
  EXPECT_TRUE(ParseSignature("ptr:f32,i32,f16").ok());
  auto bad = ParseSignature("ptr:f32,complex");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("unknown argument type 'complex'"), std::string::npos);
}

class LaunchTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto m = Module::Open(kVaddSo);
    ASSERT_TRUE(m.ok()) << m.status();
    module = *std::move(m);
    auto k = module->GetKernel("vadd");
    ASSERT_TRUE(k.ok());
    kernel = std::make_unique<Kernel>(*k);
  }
  std::unique_ptr<Module> module;
  std::unique_ptr<Kernel> kernel;
  ThreadPool pool{0};
};

TEST_F(LaunchTest, RunsOverTheGrid) {
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1, 1);
  const int n = 777;
  std::vector<float> x(n), y(n), out(n, std::numeric_limits<float>::quiet_NaN());
  for (int i = 0; i < n; ++i)
    x[i] = dist(gen), y[i] = dist(gen);
  ASSERT_TRUE(Launch(*kernel, Grid{7, 1, 1}, {x.data(), y.data(), out.data(), int32_t(n)}, pool)
                  .ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
}

TEST_F(LaunchTest, WrongArgumentCount) {
  float buf[4];
  absl::Status s = Launch(*kernel, Grid{1, 1, 1}, {buf, buf, buf}, pool);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("takes 4 arguments, got 3"), std::string::npos) << s;
}

TEST_F(LaunchTest, WrongArgumentKind) {
  float buf[4];
  absl::Status s = Launch(*kernel, Grid{1, 1, 1}, {buf, buf, int32_t(3), int32_t(4)}, pool);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("argument #2 of kernel 'vadd' is ptr:f32, got a scalar"),
            std::string::npos)
      << s;
  s = Launch(*kernel, Grid{1, 1, 1}, {buf, buf, buf, 2.5f}, pool);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is i32, got a floating-point value"), std::string::npos) << s;
}

TEST_F(LaunchTest, BadGrid) {
  float buf[4];
  absl::Status s = Launch(*kernel, Grid{0, 1, 1}, {buf, buf, buf, int32_t(4)}, pool);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("must be positive"), std::string::npos) << s;
}

TEST(Device, CpuAllocatesLoadsLaunchesAndTimes) {
  auto device = Device::Create("cpu", DeviceOptions{2});
  ASSERT_TRUE(device.ok()) << device.status();
  EXPECT_EQ((*device)->name(), "cpu (2 threads)");
  const int n = 1000;
  std::vector<std::unique_ptr<Buffer>> buffers;
  for (int i = 0; i < 3; ++i) {
    auto b = (*device)->Allocate(n * sizeof(float));
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(reinterpret_cast<uintptr_t>((*b)->data()) % 64, 0u);
    buffers.push_back(*std::move(b));
  }
  // Host data in, through the buffers' copies (as on a GPU), poisoned output.
  std::mt19937 gen(std::random_device{}());
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> x(n), y(n), out(n, std::numeric_limits<float>::quiet_NaN());
  for (int i = 0; i < n; ++i)
    x[i] = dist(gen), y[i] = dist(gen);
  ASSERT_TRUE(buffers[0]->CopyFromHost(x.data(), n * sizeof(float)).ok());
  ASSERT_TRUE(buffers[1]->CopyFromHost(y.data(), n * sizeof(float)).ok());
  ASSERT_TRUE(buffers[2]->CopyFromHost(out.data(), n * sizeof(float)).ok());
  auto module = (*device)->Load(kVaddSo);
  ASSERT_TRUE(module.ok()) << module.status();
  auto kernel = (*module)->GetKernel("vadd");
  ASSERT_TRUE(kernel.ok());
  std::vector<Arg> args{buffers[0]->data(), buffers[1]->data(), buffers[2]->data(), int32_t(n)};
  ASSERT_TRUE((*device)->Launch(*kernel, Grid{8, 1, 1}, args).ok());
  ASSERT_TRUE((*device)->Synchronize().ok());
  ASSERT_TRUE(buffers[2]->CopyToHost(out.data(), n * sizeof(float)).ok());
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
  // A copy past the buffer's end is an error, never a write out of bounds.
  EXPECT_FALSE(buffers[2]->CopyToHost(out.data(), n * sizeof(float), 4).ok());
  EXPECT_FALSE(buffers[2]->CopyFromHost(x.data(), 4, n * sizeof(float) - 3).ok());
  EXPECT_FALSE(buffers[2]->CopyFromHost(x.data(), 4, size_t(-1)).ok());
  TimingOptions options;
  options.minRuns = 7;
  options.minSeconds = 0;
  options.flushCaches = true; // FlushCaches between runs, as tessel-bench does
  EXPECT_TRUE((*device)->FlushCaches().ok());
  auto timing = TimeLaunches(**device, *kernel, Grid{8, 1, 1}, args, options);
  ASSERT_TRUE(timing.ok()) << timing.status();
  EXPECT_EQ(timing->runs, 7);
  EXPECT_LE(timing->minSeconds, timing->medianSeconds);
  EXPECT_LE(timing->medianSeconds, timing->maxSeconds);
  // Timing a bad launch reports the launch's error.
  auto bad = TimeLaunches(**device, *kernel, Grid{8, 1, 1}, {buffers[0]->data()}, options);
  EXPECT_FALSE(bad.ok());
}

TEST(Device, TimeRunsCountsWarmupsBetweensAndLimits) {
  int runs = 0, betweens = 0;
  TimingOptions options;
  options.warmupRuns = 3, options.minRuns = 4, options.maxRuns = 6, options.minSeconds = 1e9;
  auto timing = TimeRuns(
      [&] {
        ++runs;
        return absl::OkStatus();
      },
      options, [&] { ++betweens; });
  ASSERT_TRUE(timing.ok()) << timing.status();
  EXPECT_EQ(timing->runs, 6);  // minSeconds not reached: maxRuns stops it
  EXPECT_EQ(runs, 3 + 6);      // warm-ups are not timed
  EXPECT_EQ(betweens, 6);      // before each timed run only
  // A wall-clock limit stops it after minRuns.
  options.warmupRuns = 0, options.maxRuns = 1000, options.maxWallSeconds = 1e-9;
  timing = TimeRuns([] { return absl::OkStatus(); }, options);
  ASSERT_TRUE(timing.ok());
  EXPECT_EQ(timing->runs, 4);
  // The first error is returned; no timing.
  int calls = 0;
  auto failing = TimeRuns(
      [&] { return ++calls == 2 ? absl::InternalError("boom") : absl::OkStatus(); }, options);
  EXPECT_FALSE(failing.ok());
  EXPECT_EQ(calls, 2);
}

TEST(Device, UnknownAndUnavailableKinds) {
  auto unknown = Device::Create("tpu");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown device 'tpu'"), std::string::npos);
  // Without the NVIDIA driver or a GPU: a clear error, not a load failure (on a GPU host the
  // device opens).
  auto cuda = Device::Create("cuda");
  if (!cuda.ok()) {
    EXPECT_EQ(cuda.status().code(), absl::StatusCode::kUnavailable) << cuda.status();
    EXPECT_NE(cuda.status().message().find("NVIDIA"), std::string::npos) << cuda.status();
  } else {
    EXPECT_EQ((*cuda)->kind(), "cuda");
  }
  // Likewise without ROCm's HIP runtime or an AMD GPU.
  auto hip = Device::Create("hip");
  if (!hip.ok()) {
    EXPECT_EQ(hip.status().code(), absl::StatusCode::kUnavailable) << hip.status();
    EXPECT_NE(hip.status().message().find("HIP"), std::string::npos) << hip.status();
  } else {
    EXPECT_EQ((*hip)->kind(), "hip");
  }
}

TEST(HipDevice, ArchFromProperties) {
  // A hipDeviceProp_t's bytes: the name field (256 bytes) first, gcnArchName further on.
  std::string props(2048, '\0');
  std::string name = "AMD Instinct MI300X (gfx942 in its name)";
  props.replace(0, name.size(), name);
  std::string arch = "gfx942:sramecc+:xnack-";
  props.replace(1100, arch.size(), arch);
  EXPECT_EQ(GcnArchFromProperties(props), "gfx942");
  std::string rdna(2048, '\0');
  rdna.replace(700, 7, "gfx1100");
  EXPECT_EQ(GcnArchFromProperties(rdna), "gfx1100");
  // "gfx" inside another string, or not followed by a digit, is not the chip.
  std::string none(2048, '\0');
  none.replace(400, 10, "xgfx90a yy");
  none.replace(600, 6, "gfxabc");
  EXPECT_EQ(GcnArchFromProperties(none), "");
  EXPECT_EQ(GcnArchFromProperties(""), "");
}

TEST(CudaDevice, DriverVersionFromProc) {
  // The two spellings of the proprietary and the open kernel module (the open one said "for"
  // before: the word after "Module").
  EXPECT_EQ(NvidiaDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  "
                                "Tue Sep 23 09:50:52 UTC 2025\nGCC version: gcc 12\n"),
            "580.95.05");
  EXPECT_EQ(NvidiaDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                                "580.159.04  Release Build  (dvs-builder@U22)\n"),
            "580.159.04");
  EXPECT_EQ(NvidiaDriverVersion("NVRM version: nothing here\n12.5.1 on the next line"), "");
  EXPECT_EQ(NvidiaDriverVersion(""), "");
}

TEST(CudaDevice, ArchRules) {
  EXPECT_TRUE(CudaArchRunsOn("sm_90", 9, 0, /*jit=*/false));
  EXPECT_FALSE(CudaArchRunsOn("sm_80", 9, 0, /*jit=*/false)); // a cubin runs on its chip only
  EXPECT_TRUE(CudaArchRunsOn("sm_80", 9, 0, /*jit=*/true));   // its PTX on newer chips
  EXPECT_FALSE(CudaArchRunsOn("sm_90", 8, 0, /*jit=*/true));  // never on older ones
}

TEST(ThreadPool, CoversEveryIndexOnce) {
  for (unsigned threads : {1u, 2u, 5u})
    for (int64_t chunk : {0, 1, 7, 5000}) {
      ThreadPool pool(threads);
      std::vector<std::atomic<int>> hits(1001);
      int64_t largest = 0;
      std::mutex mu;
      pool.ParallelFor(
          1001,
          [&](int64_t b, int64_t e) {
            {
              std::lock_guard<std::mutex> lock(mu);
              largest = std::max(largest, e - b);
            }
            for (int64_t i = b; i < e; ++i)
              hits[i]++;
          },
          chunk);
      for (size_t i = 0; i < hits.size(); ++i)
        ASSERT_EQ(hits[i].load(), 1)
            << "index " << i << " with " << threads << " threads, chunk " << chunk;
      if (chunk > 0)
        EXPECT_LE(largest, chunk);
    }
}

TEST_F(LaunchTest, ProgramsPerTaskKnob) {
  const int n = 1000;
  std::vector<float> x(n, 1.5f), y(n, 2.0f), out(n, std::numeric_limits<float>::quiet_NaN());
  for (int64_t perTask : {1, 3, 8}) {
    ASSERT_TRUE(Launch(*kernel, Grid{8, 1, 1}, {x.data(), y.data(), out.data(), int32_t(n)},
                       pool, LaunchOptions{perTask})
                    .ok());
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(out[i], 3.5f) << i;
  }
  EXPECT_FALSE(Launch(*kernel, Grid{8, 1, 1}, {x.data(), y.data(), out.data(), int32_t(n)},
                      pool, LaunchOptions{-1})
                   .ok());
}

} // namespace
