//===- GpuDevice.h - what the cuda and hip devices share -----------*- C++ -*-===//
//
// Both GPU devices talk to a driver API opened with dlopen (NVIDIA's libcuda, AMD's
// libamdhip64) that offers the same few things: device memory, modules of kernels, launches
// over a grid of blocks, events. GpuDriver is that API; GpuDevice is everything a Device does
// on top of it (buffers, executables, argument checks, cache flushes, event timing). What
// differs is how an artifact becomes a module (cuda: cubin or PTX JIT; hip: the hsaco for this
// chip): the subclasses' LoadBytes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_GPUDEVICE_H
#define TESSEL_RUNTIME_GPUDEVICE_H

#include "runtime/Device.h"
#include "runtime/target/GpuArtifact.h"

#include "absl/strings/numbers.h"

#include <dlfcn.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace tessel::runtime {

/// A GPU driver API: device addresses as integers, modules, functions and events as opaque
/// handles. Errors name what failed and the driver's error.
class GpuDriver {
public:
  virtual ~GpuDriver() = default;
  virtual absl::Status Malloc(uint64_t *address, size_t bytes) = 0;
  virtual void Free(uint64_t address) = 0;
  virtual absl::Status CopyToDevice(uint64_t destination, const void *source, size_t bytes) = 0;
  virtual absl::Status CopyToHost(void *destination, uint64_t source, size_t bytes) = 0;
  virtual absl::Status CopyOnDevice(uint64_t destination, uint64_t source, size_t bytes) = 0;
  virtual absl::Status Fill(uint64_t address, unsigned char value, size_t bytes) = 0;
  virtual void Unload(void *module) = 0;
  /// Whether the device can address `pointer` (memory the driver allocated or mapped); a
  /// driver that cannot tell says yes.
  virtual bool Addressable(const void *pointer) { return true; }
  /// The stream later launches go to (a CUstream / hipStream_t; null: the default stream).
  void SetStream(void *stream) { stream_ = stream; }

protected:
  void *stream_ = nullptr;

public:
  virtual absl::StatusOr<void *> Function(void *module, const std::string &name) = 0;
  /// Launches `function` over `grid` blocks of `block` threads with `sharedBytes` of dynamic
  /// shared memory; `params` points at each argument's value.
  virtual absl::Status Launch(void *function, Grid grid, const std::array<int32_t, 3> &block,
                              unsigned sharedBytes, void **params) = 0;
  virtual absl::Status Synchronize() = 0;
  /// Events on the default stream.
  virtual absl::StatusOr<void *> CreateEvent() = 0;
  virtual absl::Status Record(void *event) = 0;
  virtual absl::Status WaitFor(void *event) = 0;
  virtual absl::StatusOr<float> ElapsedMs(void *start, void *stop) = 0;
  virtual void DestroyEvent(void *event) = 0;
  /// Makes the TMA tensor map `m` describes over the memory at `address`, rows `pitch`
  /// elements apart, in `map` (128 bytes, 64-byte aligned).
  virtual absl::Status EncodeTensorMap(void *map, const GpuTensorMap &m, uint64_t address,
                                       uint64_t pitch) {
    return absl::UnimplementedError("this GPU driver makes no TMA tensor maps");
  }
  /// The byte size of each of `function`'s parameters, in order; nullopt where the driver
  /// cannot say.
  virtual std::optional<std::vector<size_t>> ParameterSizes(void *function) {
    return std::nullopt;
  }
};

/// Sets `fn` to the first of `names` the library `handle` defines; else adds the first name to
/// `missing` (comma-separated).
template <typename F>
void ResolveSymbol(void *handle, F &fn, std::initializer_list<const char *> names,
                   std::string &missing) {
  for (const char *name : names)
    if (void *p = dlsym(handle, name)) {
      fn = reinterpret_cast<F>(p);
      return;
    }
  missing += std::string(missing.empty() ? "" : ", ") + *names.begin();
}

/// A kernel of a loaded module: its function and launch metadata.
struct GpuKernel {
  void *function;
  GpuKernelInfo info;
};

class GpuDevice : public Device {
public:
  /// `kind`: "cuda" or "hip"; `name`: for people; `flushBytes`: what FlushCaches overwrites
  /// (more than the GPU's caches).
  GpuDevice(GpuDriver &driver, std::string kind, std::string name, size_t flushBytes,
            std::map<std::string, std::string> environment)
      : driver_(driver), kind_(std::move(kind)), name_(std::move(name)),
        flushBytes_(flushBytes), environment_(std::move(environment)) {
    // What a persistent kernel's launch sizes its grid by (0: not reported).
    if (auto sms = environment_.find("multiprocessors");
        sms == environment_.end() || !absl::SimpleAtoi(sms->second, &multiprocessors_) ||
        multiprocessors_ < 1)
      multiprocessors_ = 0;
  }

  std::string kind() const override { return kind_; }
  std::string name() const override { return name_; }
  std::map<std::string, std::string> Environment() const override { return environment_; }
  absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) override;
  absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) override;
  absl::Status Synchronize() override { return driver_.Synchronize(); }
  bool Addressable(const void *pointer) override { return driver_.Addressable(pointer); }
  absl::Status SetStream(void *stream) override {
    driver_.SetStream(stream);
    return absl::OkStatus();
  }
  absl::Status FlushCaches() override;
  absl::StatusOr<double> TimeOne(const std::function<absl::Status()> &run) override;

protected:
  /// The executable of `artifact`'s kernels in `module` (which it then owns; unloaded on
  /// failure too), `prepare` run on each kernel's function.
  absl::StatusOr<std::unique_ptr<Executable>>
  MakeExecutable(void *module, const GpuArtifact &artifact, const std::string &path,
                 const std::function<absl::Status(void *function, const GpuKernelInfo &)>
                     &prepare = {});

  GpuDriver &driver_;

private:
  /// Whether `function`'s parameters are those `info` says the launch passes (where the
  /// driver reports them): an artifact edited apart from its code is refused at load.
  absl::Status CheckParameters(void *function, const GpuKernelInfo &info,
                               const std::string &path);
  std::string kind_, name_;
  size_t flushBytes_;
  std::map<std::string, std::string> environment_;
  int64_t multiprocessors_ = 0;
  std::unique_ptr<Buffer> flush_;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_GPUDEVICE_H
