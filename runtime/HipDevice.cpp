//===- HipDevice.cpp - the hip device: AMD's HIP runtime through dlopen -*- C++ -*-===//

#include "runtime/HipDevice.h"
#include "runtime/GpuDevice.h"

#include "absl/strings/str_cat.h"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace tessel::runtime {

namespace {

// The few HIP types and constants used here (hip_runtime.h is not needed to build).
using hipError_t = int;
struct ihipModule_t;
struct ihipModuleSymbol_t;
struct ihipEvent_t;
using hipModule_t = ihipModule_t *;
using hipFunction_t = ihipModuleSymbol_t *;
using hipEvent_t = ihipEvent_t *;
constexpr int kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3;
constexpr hipError_t kNoBinaryForGpu = 209;
// Larger than hipDeviceProp_t of any ROCm release (about 1.5 KB in ROCm 6).
constexpr size_t kPropertiesBytes = 16 * 1024;

/// The runtime's entry points, resolved once.
struct Hip {
  void *handle = nullptr;
  std::string library;
  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGetName)(char *, int, int);
  hipError_t (*hipGetDeviceProperties)(void *, int);
  hipError_t (*hipDriverGetVersion)(int *);
  hipError_t (*hipRuntimeGetVersion)(int *);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, void *, void **, void **);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpy)(void *, const void *, size_t, int);
  hipError_t (*hipMemset)(void *, int, size_t);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipEventCreate)(hipEvent_t *);
  hipError_t (*hipEventRecord)(hipEvent_t, void *);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  const char *(*hipGetErrorString)(hipError_t);
};

/// The HIP runtime, or why it could not be opened.
absl::StatusOr<const Hip *> OpenHip() {
  static Hip hip;
  static absl::Status status = [] {
    std::string tried;
    for (const char *name : {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                             "libamdhip64.so.5"}) {
      hip.handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (hip.handle) {
        hip.library = name;
        break;
      }
      tried += std::string(tried.empty() ? "" : "; ") + dlerror();
    }
    if (!hip.handle)
      return absl::UnavailableError(
          "the hip device needs AMD's HIP runtime (libamdhip64.so, .so.7, .so.6 or .so.5 of "
          "ROCm), which this machine lacks: " + tried);
    std::string missing;
    auto resolve = [&](auto &fn, std::initializer_list<const char *> names) {
      ResolveSymbol(hip.handle, fn, names, missing);
    };
    resolve(hip.hipInit, {"hipInit"});
    resolve(hip.hipGetDeviceCount, {"hipGetDeviceCount"});
    resolve(hip.hipSetDevice, {"hipSetDevice"});
    resolve(hip.hipDeviceGetName, {"hipDeviceGetName"});
    // ROCm 6 renamed the structure's function (R0600); ROCm 5 has the plain name.
    resolve(hip.hipGetDeviceProperties, {"hipGetDevicePropertiesR0600", "hipGetDeviceProperties"});
    resolve(hip.hipDriverGetVersion, {"hipDriverGetVersion"});
    resolve(hip.hipRuntimeGetVersion, {"hipRuntimeGetVersion"});
    resolve(hip.hipModuleLoadData, {"hipModuleLoadData"});
    resolve(hip.hipModuleUnload, {"hipModuleUnload"});
    resolve(hip.hipModuleGetFunction, {"hipModuleGetFunction"});
    resolve(hip.hipModuleLaunchKernel, {"hipModuleLaunchKernel"});
    resolve(hip.hipMalloc, {"hipMalloc"});
    resolve(hip.hipFree, {"hipFree"});
    resolve(hip.hipMemcpy, {"hipMemcpy"});
    resolve(hip.hipMemset, {"hipMemset"});
    resolve(hip.hipDeviceSynchronize, {"hipDeviceSynchronize"});
    resolve(hip.hipEventCreate, {"hipEventCreate"});
    resolve(hip.hipEventRecord, {"hipEventRecord"});
    resolve(hip.hipEventSynchronize, {"hipEventSynchronize"});
    resolve(hip.hipEventElapsedTime, {"hipEventElapsedTime"});
    resolve(hip.hipEventDestroy, {"hipEventDestroy"});
    resolve(hip.hipGetErrorString, {"hipGetErrorString"});
    if (!missing.empty())
      return absl::UnavailableError(hip.library + " lacks " + missing);
    return absl::OkStatus();
  }();
  if (!status.ok())
    return status;
  return &hip;
}

absl::Status check(const Hip &h, hipError_t r, const std::string &what) {
  if (r == 0)
    return absl::OkStatus();
  const char *text = h.hipGetErrorString(r);
  return absl::InternalError(
      absl::StrCat(what, " failed: HIP error ", r, " (", text ? text : "unknown", ")"));
}

void *address(uint64_t a) { return reinterpret_cast<void *>(a); }

/// The HIP runtime as the GPU device uses it.
class HipApi : public GpuDriver {
public:
  explicit HipApi(const Hip &h) : h_(h) {}
  absl::Status Malloc(uint64_t *to, size_t bytes) override {
    void *p = nullptr;
    absl::Status s = check(h_, h_.hipMalloc(&p, bytes), "hipMalloc");
    *to = reinterpret_cast<uint64_t>(p);
    return s;
  }
  void Free(uint64_t a) override { h_.hipFree(address(a)); }
  absl::Status CopyToDevice(uint64_t to, const void *from, size_t bytes) override {
    return check(h_, h_.hipMemcpy(address(to), from, bytes, kHostToDevice), "hipMemcpy");
  }
  absl::Status CopyToHost(void *to, uint64_t from, size_t bytes) override {
    return check(h_, h_.hipMemcpy(to, address(from), bytes, kDeviceToHost), "hipMemcpy");
  }
  absl::Status CopyOnDevice(uint64_t to, uint64_t from, size_t bytes) override {
    return check(h_, h_.hipMemcpy(address(to), address(from), bytes, kDeviceToDevice),
                 "hipMemcpy");
  }
  absl::Status Fill(uint64_t a, unsigned char value, size_t bytes) override {
    return check(h_, h_.hipMemset(address(a), value, bytes), "hipMemset");
  }
  void Unload(void *module) override { h_.hipModuleUnload(static_cast<hipModule_t>(module)); }
  absl::StatusOr<void *> Function(void *module, const std::string &name) override {
    hipFunction_t f = nullptr;
    if (absl::Status s = check(
            h_, h_.hipModuleGetFunction(&f, static_cast<hipModule_t>(module), name.c_str()),
            "hipModuleGetFunction");
        !s.ok())
      return s;
    return static_cast<void *>(f);
  }
  absl::Status Launch(void *function, Grid grid, const std::array<int32_t, 3> &block,
                      unsigned sharedBytes, void **params) override {
    return check(h_,
                 h_.hipModuleLaunchKernel(static_cast<hipFunction_t>(function), unsigned(grid.x),
                                          unsigned(grid.y), unsigned(grid.z), unsigned(block[0]),
                                          unsigned(block[1]), unsigned(block[2]), sharedBytes,
                                          stream_, params, nullptr),
                 "hipModuleLaunchKernel");
  }
  absl::Status Synchronize() override {
    return check(h_, h_.hipDeviceSynchronize(), "synchronizing the GPU");
  }
  absl::StatusOr<void *> CreateEvent() override {
    hipEvent_t e = nullptr;
    if (absl::Status s = check(h_, h_.hipEventCreate(&e), "hipEventCreate"); !s.ok())
      return s;
    return static_cast<void *>(e);
  }
  absl::Status Record(void *event) override {
    return check(h_, h_.hipEventRecord(static_cast<hipEvent_t>(event), nullptr),
                 "hipEventRecord");
  }
  absl::Status WaitFor(void *event) override {
    return check(h_, h_.hipEventSynchronize(static_cast<hipEvent_t>(event)),
                 "hipEventSynchronize");
  }
  absl::StatusOr<float> ElapsedMs(void *start, void *stop) override {
    float ms = 0;
    if (absl::Status s = check(h_,
                               h_.hipEventElapsedTime(&ms, static_cast<hipEvent_t>(start),
                                                      static_cast<hipEvent_t>(stop)),
                               "hipEventElapsedTime");
        !s.ok())
      return s;
    return ms;
  }
  void DestroyEvent(void *event) override { h_.hipEventDestroy(static_cast<hipEvent_t>(event)); }

private:
  const Hip &h_;
};

class HipDevice : public GpuDevice {
public:
  HipDevice(const Hip &h, const std::string &name, std::string arch,
            std::map<std::string, std::string> environment)
      : GpuDevice(api_, "hip", "hip (" + name + ", " + arch + ")", size_t(512) << 20,
                  std::move(environment)),
        h_(h), api_(h), arch_(std::move(arch)) {}

  absl::StatusOr<std::unique_ptr<Executable>> LoadBytes(const std::string &text,
                                                        const std::string &path) override {
    absl::StatusOr<GpuArtifact> artifact = ParseGpuArtifact(text);
    if (!artifact.ok())
      return absl::InvalidArgumentError(path + ": " + std::string(artifact.status().message()));
    if (!IsRocmArch(artifact->arch))
      return absl::FailedPreconditionError(path + " was built for the NVIDIA chip " +
                                           artifact->arch + " (a cuda device runs it); this "
                                           "GPU is the AMD " + arch_);
    // A code object runs only on its own chip.
    if (artifact->arch != arch_)
      return absl::FailedPreconditionError(path + " was built for " + artifact->arch +
                                           "; this GPU is " + arch_ +
                                           " (rebuild it with --target rocm:" + arch_ + ")");
    hipModule_t module = nullptr;
    hipError_t r = h_.hipModuleLoadData(&module, artifact->hsaco.data());
    if (r == kNoBinaryForGpu)
      return absl::FailedPreconditionError(path + ": the HIP runtime finds no code for this " +
                                           arch_ + " in its code object");
    if (absl::Status s = check(h_, r, "loading " + path); !s.ok())
      return s;
    return MakeExecutable(module, *artifact, path);
  }

private:
  const Hip &h_;
  HipApi api_;
  std::string arch_;
};

} // namespace

std::string GcnArchFromProperties(const std::string &properties) {
  for (size_t at = properties.find("gfx", 256); at != std::string::npos;
       at = properties.find("gfx", at + 1)) {
    if (at > 0 && properties[at - 1] != '\0')
      continue; // inside another string
    size_t end = properties.find('\0', at);
    std::string text = properties.substr(at, end == std::string::npos ? end : end - at);
    if (text.size() < 4 || !std::isdigit(static_cast<unsigned char>(text[3])))
      continue;
    return text.substr(0, text.find(':'));
  }
  return "";
}

absl::StatusOr<std::unique_ptr<Device>> CreateHipDevice(const DeviceOptions &) {
  absl::StatusOr<const Hip *> opened = OpenHip();
  if (!opened.ok())
    return opened.status();
  const Hip &h = **opened;
  if (absl::Status s = check(h, h.hipInit(0), "hipInit"); !s.ok())
    return absl::UnavailableError(std::string(s.message()) + " (no usable AMD GPU?)");
  int count = 0, ordinal = 0;
  if (absl::Status s = check(h, h.hipGetDeviceCount(&count), "hipGetDeviceCount"); !s.ok())
    return absl::UnavailableError(std::string(s.message()) + " (no usable AMD GPU?)");
  if (const char *env = std::getenv("TESSEL_HIP_DEVICE"); env && *env)
    ordinal = std::atoi(env);
  if (count == 0 || ordinal < 0 || ordinal >= count)
    return absl::UnavailableError(absl::StrCat("no AMD GPU ", ordinal, " (", count, " found)"));
  if (absl::Status s = check(h, h.hipSetDevice(ordinal), "hipSetDevice"); !s.ok())
    return s;
  char name[256] = {0};
  if (absl::Status s = check(h, h.hipDeviceGetName(name, sizeof name - 1, ordinal),
                             "hipDeviceGetName");
      !s.ok())
    return s;
  std::string properties(kPropertiesBytes, '\0');
  if (absl::Status s = check(h, h.hipGetDeviceProperties(properties.data(), ordinal),
                             "hipGetDeviceProperties");
      !s.ok())
    return s;
  std::string arch = GcnArchFromProperties(properties);
  if (arch.empty())
    return absl::UnavailableError("cannot tell the chip of AMD GPU " + std::to_string(ordinal) +
                                  " (no gcnArchName in its properties)");
  std::map<std::string, std::string> environment = {
      {"device", "hip"}, {"gpu", name}, {"arch", arch}, {"hip_library", h.library}};
  int version = 0;
  if (h.hipDriverGetVersion(&version) == 0)
    environment["hip_driver"] = std::to_string(version);
  if (h.hipRuntimeGetVersion(&version) == 0)
    environment["hip_runtime"] = std::to_string(version);
  return std::unique_ptr<Device>(new HipDevice(h, name, arch, std::move(environment)));
}

} // namespace tessel::runtime
