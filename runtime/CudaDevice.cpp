//===- CudaDevice.cpp - the cuda device: the NVIDIA driver through dlopen -*- C++ -*-===//

#include "runtime/CudaDevice.h"
#include "runtime/GpuDevice.h"

#include "runtime/Files.h"
#include "runtime/target/GpuArtifact.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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
  CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
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
  // Newer drivers only (null where missing): TMA tensor maps (CUDA 12.0), parameter layouts
  // (CUDA 12.4).
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *,
                                     const uint64_t *, const unsigned *, const unsigned *, int,
                                     int, int, int) = nullptr;
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *) = nullptr;
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
      ResolveSymbol(driver.handle, fn, names, missing);
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
    resolve(driver.cuPointerGetAttribute, {"cuPointerGetAttribute"});
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
    std::string optional;
    ResolveSymbol(driver.handle, driver.cuTensorMapEncodeTiled, {"cuTensorMapEncodeTiled"},
                  optional);
    ResolveSymbol(driver.handle, driver.cuFuncGetParamInfo, {"cuFuncGetParamInfo"}, optional);
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

/// The driver API as the GPU device uses it.
class CudaApi : public GpuDriver {
public:
  explicit CudaApi(const Driver &d) : d_(d) {}
  absl::Status Malloc(uint64_t *address, size_t bytes) override {
    CUdeviceptr p = 0;
    absl::Status s = check(d_, d_.cuMemAlloc(&p, bytes), "cuMemAlloc");
    *address = p;
    return s;
  }
  void Free(uint64_t address) override { d_.cuMemFree(address); }
  bool Addressable(const void *pointer) override {
    // CU_POINTER_ATTRIBUTE_MEMORY_TYPE: an error for memory the driver does not know (plain
    // host memory); device, managed and registered host memory have a type.
    constexpr int kMemoryType = 2;
    unsigned type = 0;
    return d_.cuPointerGetAttribute(&type, kMemoryType, CUdeviceptr(uintptr_t(pointer))) == 0;
  }
  absl::Status CopyToDevice(uint64_t to, const void *from, size_t bytes) override {
    return check(d_, d_.cuMemcpyHtoD(to, from, bytes), "cuMemcpyHtoD");
  }
  absl::Status CopyToHost(void *to, uint64_t from, size_t bytes) override {
    return check(d_, d_.cuMemcpyDtoH(to, from, bytes), "cuMemcpyDtoH");
  }
  absl::Status CopyOnDevice(uint64_t to, uint64_t from, size_t bytes) override {
    return check(d_, d_.cuMemcpyDtoD(to, from, bytes), "cuMemcpyDtoD");
  }
  absl::Status Fill(uint64_t address, unsigned char value, size_t bytes) override {
    return check(d_, d_.cuMemsetD8(address, value, bytes), "cuMemsetD8");
  }
  void Unload(void *module) override { d_.cuModuleUnload(static_cast<CUmodule>(module)); }
  absl::StatusOr<void *> Function(void *module, const std::string &name) override {
    CUfunction f = nullptr;
    if (absl::Status s = check(
            d_, d_.cuModuleGetFunction(&f, static_cast<CUmodule>(module), name.c_str()),
            "cuModuleGetFunction");
        !s.ok())
      return s;
    return static_cast<void *>(f);
  }
  absl::Status Launch(void *function, Grid grid, const std::array<int32_t, 3> &block,
                      unsigned sharedBytes, void **params) override {
    return check(d_,
                 d_.cuLaunchKernel(static_cast<CUfunction>(function), unsigned(grid.x),
                                   unsigned(grid.y), unsigned(grid.z), unsigned(block[0]),
                                   unsigned(block[1]), unsigned(block[2]), sharedBytes,
                                   stream_, params, nullptr),
                 "cuLaunchKernel");
  }
  absl::Status Synchronize() override {
    return check(d_, d_.cuCtxSynchronize(), "synchronizing the GPU");
  }
  absl::StatusOr<void *> CreateEvent() override {
    CUevent e = nullptr;
    if (absl::Status s = check(d_, d_.cuEventCreate(&e, 0), "cuEventCreate"); !s.ok())
      return s;
    return static_cast<void *>(e);
  }
  absl::Status Record(void *event) override {
    return check(d_, d_.cuEventRecord(static_cast<CUevent>(event), nullptr), "cuEventRecord");
  }
  absl::Status WaitFor(void *event) override {
    return check(d_, d_.cuEventSynchronize(static_cast<CUevent>(event)), "cuEventSynchronize");
  }
  absl::StatusOr<float> ElapsedMs(void *start, void *stop) override {
    float ms = 0;
    if (absl::Status s = check(d_,
                               d_.cuEventElapsedTime(&ms, static_cast<CUevent>(start),
                                                     static_cast<CUevent>(stop)),
                               "cuEventElapsedTime");
        !s.ok())
      return s;
    return ms;
  }
  void DestroyEvent(void *event) override { d_.cuEventDestroy(static_cast<CUevent>(event)); }
  absl::Status EncodeTensorMap(void *map, const GpuTensorMap &m, uint64_t address,
                               uint64_t pitch) override {
    if (!d_.cuTensorMapEncodeTiled)
      return GpuDriver::EncodeTensorMap(map, m, address, pitch);
    // Unsigned integers of the element's size (a copy converts nothing); the rows unbounded
    // (GpuTensorMap); no interleave, no L2 promotion, zeros out of bounds.
    constexpr uint64_t kRows = (uint64_t(1) << 31) - 1;
    int type = m.elementBytes == 1 ? 0 : m.elementBytes == 2 ? 1 : m.elementBytes == 4 ? 2 : 4;
    int swizzle = m.swizzle == 128 ? 3 : m.swizzle == 64 ? 2 : m.swizzle == 32 ? 1 : 0;
    uint64_t dims[2] = {pitch, kRows}, strides[1] = {pitch * uint64_t(m.elementBytes)};
    unsigned box[2] = {unsigned(m.box[1]), unsigned(m.box[0])}, steps[2] = {1, 1};
    return check(d_,
                 d_.cuTensorMapEncodeTiled(map, type, 2, reinterpret_cast<void *>(address), dims,
                                           strides, box, steps, 0, swizzle, 0, 0),
                 "cuTensorMapEncodeTiled");
  }
  std::optional<std::vector<size_t>> ParameterSizes(void *function) override {
    if (!d_.cuFuncGetParamInfo)
      return std::nullopt;
    std::vector<size_t> sizes;
    size_t offset = 0, size = 0;
    constexpr size_t kMost = 1024; // 4 KB of parameters at most
    while (sizes.size() < kMost && d_.cuFuncGetParamInfo(static_cast<CUfunction>(function),
                                                         sizes.size(), &offset, &size) == 0)
      sizes.push_back(size);
    return sizes;
  }

private:
  const Driver &d_;
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

class CudaDevice : public GpuDevice {
public:
  /// On the current (primary) context of the GPU named `name`.
  CudaDevice(const Driver &d, std::string name, int major, int minor, int l2,
             std::map<std::string, std::string> environment)
      : GpuDevice(api_, "cuda", absl::StrCat("cuda (", name, ", sm_", major, minor, ")"),
                  size_t(2) * std::max(l2, 1 << 20), std::move(environment)),
        d_(d), api_(d), major_(major), minor_(minor) {}

  absl::StatusOr<std::unique_ptr<Executable>> LoadBytes(const std::string &text,
                                                        const std::string &path) override {
    absl::StatusOr<GpuArtifact> artifact = ParseGpuArtifact(text);
    if (!artifact.ok())
      return absl::InvalidArgumentError(path + ": " + std::string(artifact.status().message()));
    std::string device = absl::StrCat("sm_", major_, minor_);
    if (IsRocmArch(artifact->arch))
      return absl::FailedPreconditionError(path + " was built for the AMD chip " +
                                           artifact->arch + " (a hip device runs it); this GPU "
                                           "is the NVIDIA " + device);
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
    return MakeExecutable(module, *artifact, path,
                          [&](void *f, const GpuKernelInfo &info) -> absl::Status {
                            if (info.sharedBytes <= 48 * 1024)
                              return absl::OkStatus();
                            return check(d_,
                                         d_.cuFuncSetAttribute(static_cast<CUfunction>(f),
                                                               kFuncMaxDynamicShared,
                                                               int(info.sharedBytes)),
                                         "allowing " + std::to_string(info.sharedBytes) +
                                             " bytes of shared memory");
                          });
  }

private:
  const Driver &d_;
  CudaApi api_;
  int major_, minor_;
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
  // Which GPU of the host this is (a multi-GPU sweep's records tell its devices apart).
  environment["device_index"] = std::to_string(ordinal);
  if (const char *visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible && *visible)
    environment["cuda_visible_devices"] = visible;
  using GetUuid = CUresult (*)(unsigned char *, CUdevice);
  void *symbol = dlsym(d.handle, "cuDeviceGetUuid_v2");
  if (!symbol)
    symbol = dlsym(d.handle, "cuDeviceGetUuid");
  unsigned char uuid[16] = {0};
  if (symbol && reinterpret_cast<GetUuid>(symbol)(uuid, device) == 0) {
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
      text += absl::StrFormat("%02x", uuid[i]);
      if (i == 3 || i == 5 || i == 7 || i == 9)
        text += "-";
    }
    environment["gpu_uuid"] = text;
  }
  std::string nvrm;
  if (ReadWholeFile("/proc/driver/nvidia/version", nvrm)) {
    if (std::string driver = NvidiaDriverVersion(nvrm); !driver.empty())
      environment["driver"] = driver;
  }
  return std::unique_ptr<Device>(new CudaDevice(d, name, major, minor, l2, std::move(environment)));
}

} // namespace tessel::runtime
