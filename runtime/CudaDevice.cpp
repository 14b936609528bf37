//===- CudaDevice.cpp - the cuda device: the NVIDIA driver through dlopen -*- C++ -*-===//

#include "runtime/CudaDevice.h"

#include "runtime/Files.h"
#include "runtime/target/GpuArtifact.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace tessel::runtime {

namespace {

// The few driver API types and constants used here (cuda.h is not needed to build).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUevent = CUevent_st *;
constexpr int kComputeMajor = 75, kComputeMinor = 76, kL2CacheSize = 38;
constexpr int kClockRateKhz = 13, kMemoryClockRateKhz = 36, kMultiprocessors = 16;
constexpr int kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6;
constexpr int kFuncMaxDynamicShared = 8;

/// The driver's entry points, resolved once.
struct Driver {
  void *handle = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, void *, void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventRecord)(CUevent, void *);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

/// The driver, or why it could not be opened.
absl::StatusOr<const Driver *> OpenDriver() {
  static Driver driver;
  static absl::Status status = [] {
    driver.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver.handle)
      return absl::UnavailableError(absl::StrCat(
          "the cuda device needs the NVIDIA driver (libcuda.so.1), which this machine lacks: ",
          dlerror()));
    std::string missing;
    auto resolve = [&](auto &fn, std::initializer_list<const char *> names) {
      for (const char *name : names)
        if (void *p = dlsym(driver.handle, name)) {
          fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
          return;
        }
      missing += std::string(missing.empty() ? "" : ", ") + *names.begin();
    };
    resolve(driver.cuInit, {"cuInit"});
    resolve(driver.cuDriverGetVersion, {"cuDriverGetVersion"});
    resolve(driver.cuDeviceGet, {"cuDeviceGet"});
    resolve(driver.cuDeviceGetCount, {"cuDeviceGetCount"});
    resolve(driver.cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
    resolve(driver.cuDeviceGetName, {"cuDeviceGetName"});
    resolve(driver.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
    resolve(driver.cuCtxSetCurrent, {"cuCtxSetCurrent"});
    resolve(driver.cuCtxSynchronize, {"cuCtxSynchronize"});
    resolve(driver.cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
    resolve(driver.cuModuleUnload, {"cuModuleUnload"});
    resolve(driver.cuModuleGetFunction, {"cuModuleGetFunction"});
    resolve(driver.cuFuncSetAttribute, {"cuFuncSetAttribute"});
    resolve(driver.cuLaunchKernel, {"cuLaunchKernel"});
    resolve(driver.cuMemAlloc, {"cuMemAlloc_v2"});
    resolve(driver.cuMemFree, {"cuMemFree_v2"});
    resolve(driver.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
    resolve(driver.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
    resolve(driver.cuMemsetD8, {"cuMemsetD8_v2"});
    resolve(driver.cuMemcpyDtoD, {"cuMemcpyDtoD_v2"});
    resolve(driver.cuEventCreate, {"cuEventCreate"});
    resolve(driver.cuEventRecord, {"cuEventRecord"});
    resolve(driver.cuEventSynchronize, {"cuEventSynchronize"});
    resolve(driver.cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
    resolve(driver.cuEventDestroy, {"cuEventDestroy_v2"});
    resolve(driver.cuGetErrorString, {"cuGetErrorString"});
    if (!missing.empty())
      return absl::UnavailableError("the NVIDIA driver lacks " + missing);
    return absl::OkStatus();
  }();
  if (!status.ok())
    return status;
  return &driver;
}

absl::Status check(const Driver &d, CUresult r, const std::string &what) {
  if (r == 0)
    return absl::OkStatus();
  const char *text = nullptr;
  d.cuGetErrorString(r, &text);
  return absl::InternalError(absl::StrCat(what, " failed: CUDA error ", r, " (",
                                          text ? text : "unknown", ")"));
}

class CudaBuffer : public Buffer {
public:
  CudaBuffer(const Driver &d, CUdeviceptr p, size_t size) : d_(d), p_(p), size_(size) {}
  ~CudaBuffer() override { d_.cuMemFree(p_); }
  void *data() override { return reinterpret_cast<void *>(p_); }
  size_t size() const override { return size_; }
  absl::Status CopyFromHost(const void *source, size_t bytes, size_t offset) override {
    if (offset > size_ || bytes > size_ - offset)
      return absl::OutOfRangeError("a copy past the end of a device buffer");
    return bytes ? check(d_, d_.cuMemcpyHtoD(p_ + offset, source, bytes), "cuMemcpyHtoD")
                 : absl::OkStatus();
  }
  absl::Status CopyToHost(void *destination, size_t bytes, size_t offset) override {
    if (offset > size_ || bytes > size_ - offset)
      return absl::OutOfRangeError("a copy past the end of a device buffer");
    return bytes ? check(d_, d_.cuMemcpyDtoH(destination, p_ + offset, bytes), "cuMemcpyDtoH")
                 : absl::OkStatus();
  }

  absl::Status CopyFrom(Buffer &source, size_t bytes) override {
    if (bytes > size_ || bytes > source.size())
      return absl::OutOfRangeError("a copy larger than its buffers");
    return bytes ? check(d_,
                         d_.cuMemcpyDtoD(p_, reinterpret_cast<CUdeviceptr>(source.data()), bytes),
                         "cuMemcpyDtoD")
                 : absl::OkStatus();
  }

private:
  const Driver &d_;
  CUdeviceptr p_;
  size_t size_;
};

/// What a Kernel's handle points to: the function and its launch shape.
struct CudaKernel {
  CUfunction function;
  GpuKernelInfo info;
};

class CudaExecutable : public Executable {
public:
  CudaExecutable(const Driver &d, CUmodule module, std::string path)
      : d_(d), module_(module), path_(std::move(path)) {}
  ~CudaExecutable() override { d_.cuModuleUnload(module_); }
  absl::StatusOr<Kernel> GetKernel(const std::string &name) const override {
    for (const CudaKernel &k : kernels_)
      if (k.info.name == name) {
        absl::StatusOr<std::vector<ArgType>> sig = ParseSignature(k.info.signature);
        if (!sig.ok())
          return sig.status();
        return Kernel(name, &k, *sig);
      }
    return absl::NotFoundError("no kernel '" + name + "' in " + path_);
  }
  std::vector<std::string> KernelNames() const override {
    std::vector<std::string> names;
    for (const CudaKernel &k : kernels_)
      names.push_back(k.info.name);
    return names;
  }
  const std::string &path() const override { return path_; }
  std::string buildInfo() const override { return buildInfo_; }
  std::vector<CudaKernel> kernels_;
  std::string buildInfo_;

private:
  const Driver &d_;
  CUmodule module_;
  std::string path_;
};

bool archNumbers(const std::string &arch, int &major, int &minor, bool &accelerated) {
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5)
    return false;
  major = arch[3] - '0';
  minor = arch[4] - '0';
  accelerated = arch.size() == 6 && arch[5] == 'a';
  return major >= 1 && major <= 9 && minor >= 0 && minor <= 9 &&
         (arch.size() == 5 || accelerated);
}

class CudaDevice : public Device {
public:
  /// On the current (primary) context of the GPU named `name`.
  CudaDevice(const Driver &d, std::string name, int major, int minor, int l2,
             std::map<std::string, std::string> environment)
      : d_(d), name_(std::move(name)), major_(major), minor_(minor), l2_(l2),
        environment_(std::move(environment)) {}

  std::string kind() const override { return "cuda"; }
  std::string name() const override {
    return absl::StrCat("cuda (", name_, ", sm_", major_, minor_, ")");
  }
  std::map<std::string, std::string> Environment() const override { return environment_; }

  absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) override {
    CUdeviceptr p = 0;
    if (absl::Status s = check(d_, d_.cuMemAlloc(&p, std::max<size_t>(bytes, 1)),
                               absl::StrCat("allocating ", bytes, " bytes on the GPU"));
        !s.ok())
      return s;
    return std::unique_ptr<Buffer>(new CudaBuffer(d_, p, bytes));
  }

  absl::StatusOr<std::unique_ptr<Executable>> LoadBytes(const std::string &text,
                                                        const std::string &path) override {
    absl::StatusOr<GpuArtifact> artifact = ParseGpuArtifact(text);
    if (!artifact.ok())
      return absl::InvalidArgumentError(path + ": " + std::string(artifact.status().message()));
    std::string device = absl::StrCat("sm_", major_, minor_);
    const std::string *image = nullptr;
    if (!artifact->cubin.empty() && CudaArchRunsOn(artifact->arch, major_, minor_, false)) {
      image = &artifact->cubin;
    } else if (CudaArchRunsOn(artifact->arch, major_, minor_, true)) {
      image = &artifact->ptx;
      std::fprintf(stderr, "tessel: %s: JIT-compiling PTX for %s on this %s\n", path.c_str(),
                   artifact->arch.c_str(), device.c_str());
    } else {
      return absl::FailedPreconditionError(absl::StrCat(
          path, " was built for ", artifact->arch, "; this GPU is ", device,
          artifact->cubin.empty() ? "" : " (its cubin runs only on its own chip)",
          " and cannot run its PTX either"));
    }
    std::string log(8192, '\0');
    int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
    void *values[] = {log.data(), reinterpret_cast<void *>(uintptr_t(log.size()))};
    CUmodule module = nullptr;
    std::string bytes = *image;
    if (image == &artifact->ptx)
      bytes.push_back('\0'); // the driver reads PTX as a C string
    CUresult r = d_.cuModuleLoadDataEx(&module, bytes.data(), 2, options, values);
    if (r != 0) {
      log.resize(std::strlen(log.c_str()));
      absl::Status s = check(d_, r, "loading " + path);
      return absl::Status(s.code(), std::string(s.message()) + (log.empty() ? "" : ": " + log));
    }
    auto exe = std::make_unique<CudaExecutable>(d_, module, path);
    for (const GpuKernelInfo &info : artifact->kernels) {
      CUfunction f = nullptr;
      if (absl::Status s = check(d_, d_.cuModuleGetFunction(&f, module, info.name.c_str()),
                                 "finding kernel " + info.name + " in " + path);
          !s.ok())
        return s;
      if (info.sharedBytes > 48 * 1024)
        if (absl::Status s = check(d_, d_.cuFuncSetAttribute(f, kFuncMaxDynamicShared,
                                                             int(info.sharedBytes)),
                                   "allowing " + std::to_string(info.sharedBytes) +
                                       " bytes of shared memory");
            !s.ok())
          return s;
      exe->kernels_.push_back({f, info});
    }
    exe->buildInfo_ = artifact->buildInfo;
    return std::unique_ptr<Executable>(std::move(exe));
  }

  absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) override {
    absl::StatusOr<std::vector<uint64_t>> slots = PackArguments(kernel, grid, args);
    if (!slots.ok())
      return slots.status();
    const auto *k = static_cast<const CudaKernel *>(kernel.handle());
    // The code was compiled assuming these (Triton's divisibility specialization): a
    // misaligned vector access would fault, a wrong integer factor compute garbage.
    for (size_t i = 0; i < k->info.divisibility.size() && i < slots->size(); ++i) {
      uint64_t d = uint64_t(k->info.divisibility[i]);
      if (d > 1 && ((*slots)[i] & (d - 1)) != 0)
        return absl::InvalidArgumentError(
            "argument #" + std::to_string(i) + " of kernel '" + kernel.name() + "' must be " +
            (kernel.signature()[i].isPointer ? "a pointer aligned to " : "divisible by ") +
            std::to_string(d) + " (the kernel was compiled assuming it: tt.divisibility, a ':" +
            std::to_string(d) + "' in its signature)");
    }
    std::vector<void *> params;
    for (uint64_t &slot : *slots)
      params.push_back(&slot); // little endian: a 4-byte scalar is the slot's low bytes
    return check(d_,
                 d_.cuLaunchKernel(k->function, unsigned(grid.x), unsigned(grid.y),
                                   unsigned(grid.z), unsigned(k->info.block[0]),
                                   unsigned(k->info.block[1]), unsigned(k->info.block[2]),
                                   unsigned(k->info.sharedBytes), nullptr, params.data(),
                                   nullptr),
                 "launching " + kernel.name());
  }

  absl::Status Synchronize() override {
    return check(d_, d_.cuCtxSynchronize(), "synchronizing the GPU");
  }

  absl::Status FlushCaches() override {
    if (!flush_) {
      absl::StatusOr<std::unique_ptr<Buffer>> b = Allocate(size_t(2) * std::max(l2_, 1 << 20));
      if (!b.ok())
        return b.status();
      flush_ = *std::move(b);
    }
    return check(d_,
                 d_.cuMemsetD8(reinterpret_cast<CUdeviceptr>(flush_->data()), 0x5a,
                               flush_->size()),
                 "flushing the L2");
  }

  absl::StatusOr<double> TimeOne(const std::function<absl::Status()> &run) override {
    CUevent start = nullptr, stop = nullptr;
    if (absl::Status s = check(d_, d_.cuEventCreate(&start, 0), "cuEventCreate"); !s.ok())
      return s;
    if (absl::Status s = check(d_, d_.cuEventCreate(&stop, 0), "cuEventCreate"); !s.ok()) {
      d_.cuEventDestroy(start);
      return s;
    }
    absl::Status s = check(d_, d_.cuEventRecord(start, nullptr), "cuEventRecord");
    if (s.ok())
      s = run();
    if (s.ok())
      s = check(d_, d_.cuEventRecord(stop, nullptr), "cuEventRecord");
    if (s.ok())
      s = check(d_, d_.cuEventSynchronize(stop), "cuEventSynchronize");
    float ms = 0;
    if (s.ok())
      s = check(d_, d_.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
    d_.cuEventDestroy(start);
    d_.cuEventDestroy(stop);
    if (!s.ok())
      return s;
    return double(ms) / 1e3;
  }

private:
  const Driver &d_;
  std::string name_;
  int major_, minor_, l2_;
  std::map<std::string, std::string> environment_;
  std::unique_ptr<Buffer> flush_;
};

} // namespace

bool CudaArchRunsOn(const std::string &arch, int major, int minor, bool jit) {
  int m = 0, n = 0;
  bool accelerated = false;
  if (!archNumbers(arch, m, n, accelerated))
    return false;
  if (!jit || accelerated)
    return m == major && n == minor;
  return m * 10 + n <= major * 10 + minor;
}

std::string NvidiaDriverVersion(const std::string &procVersion) {
  std::string line = procVersion.substr(0, procVersion.find('\n'));
  for (absl::string_view word : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    auto digitOrDot = [](char c) { return c == '.' || std::isdigit(static_cast<unsigned char>(c)); };
    if (word.find('.') != absl::string_view::npos && std::isdigit(static_cast<unsigned char>(word.front())) &&
        std::all_of(word.begin(), word.end(), digitOrDot))
      return std::string(word);
  }
  return "";
}

absl::StatusOr<std::unique_ptr<Device>> CreateCudaDevice(const DeviceOptions &) {
  absl::StatusOr<const Driver *> driver = OpenDriver();
  if (!driver.ok())
    return driver.status();
  const Driver &d = **driver;
  if (absl::Status s = check(d, d.cuInit(0), "cuInit"); !s.ok())
    return absl::UnavailableError(std::string(s.message()) + " (no usable NVIDIA GPU?)");
  int count = 0, ordinal = 0;
  if (absl::Status s = check(d, d.cuDeviceGetCount(&count), "cuDeviceGetCount"); !s.ok())
    return s;
  if (const char *env = std::getenv("TESSEL_CUDA_DEVICE"); env && *env)
    ordinal = std::atoi(env);
  if (count == 0 || ordinal < 0 || ordinal >= count)
    return absl::UnavailableError(absl::StrCat("no CUDA GPU ", ordinal, " (", count, " found)"));
  CUdevice device = 0;
  CUcontext context = nullptr;
  int major = 0, minor = 0, l2 = 0;
  char name[256] = {0};
  absl::Status s = check(d, d.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  if (s.ok())
    s = check(d, d.cuDeviceGetAttribute(&major, kComputeMajor, device), "cuDeviceGetAttribute");
  if (s.ok())
    s = check(d, d.cuDeviceGetAttribute(&minor, kComputeMinor, device), "cuDeviceGetAttribute");
  if (s.ok())
    s = check(d, d.cuDeviceGetAttribute(&l2, kL2CacheSize, device), "cuDeviceGetAttribute");
  if (s.ok())
    s = check(d, d.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  if (s.ok())
    s = check(d, d.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  if (s.ok())
    s = check(d, d.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  if (!s.ok())
    return s;
  // What a measurement depends on, where readable: the driver (the kernel module's version,
  // and the CUDA version it supports), the clocks and the SM count.
  std::map<std::string, std::string> environment = {
      {"device", "cuda"}, {"gpu", name}, {"arch", absl::StrCat("sm_", major, minor)},
      {"l2_bytes", std::to_string(l2)}};
  int version = 0;
  if (d.cuDriverGetVersion(&version) == 0)
    environment["cuda_driver_api"] = absl::StrCat(version / 1000, ".", version % 1000 / 10);
  for (auto [key, attribute] : {std::pair<const char *, int>{"sm_clock_khz", kClockRateKhz},
                                {"memory_clock_khz", kMemoryClockRateKhz},
                                {"multiprocessors", kMultiprocessors}}) {
    int value = 0;
    if (d.cuDeviceGetAttribute(&value, attribute, device) == 0 && value > 0)
      environment[key] = std::to_string(value);
  }
  std::string nvrm;
  if (ReadWholeFile("/proc/driver/nvidia/version", nvrm)) {
    if (std::string driver = NvidiaDriverVersion(nvrm); !driver.empty())
      environment["driver"] = driver;
  }
  return std::unique_ptr<Device>(new CudaDevice(d, name, major, minor, l2, std::move(environment)));
}

} // namespace tessel::runtime
