//===- Device.h - where kernels run: buffers, modules, launches ------*- C++ -*-===//
//
// A Device owns the memory and the execution resources of one target. The CPU device runs
// programs on a thread pool; the cuda and hip devices (opened with dlopen, so a machine
// without their drivers still loads the runtime) come with the GPU backends.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_DEVICE_H
#define TESSEL_RUNTIME_DEVICE_H

#include "runtime/Launch.h"
#include "runtime/Module.h"

#include "absl/status/statusor.h"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace tessel::runtime {

/// Device memory. On the CPU: host memory aligned to 64 bytes.
class Buffer {
public:
  virtual ~Buffer() = default;
  /// The buffer's address in the device's memory: what a pointer argument of a launch passes.
  virtual void *data() = 0;
  virtual size_t size() const = 0;
  /// Copies `bytes` between host memory and the buffer at `offset`; a range outside the buffer
  /// is an error.
  virtual absl::Status CopyFromHost(const void *source, size_t bytes, size_t offset = 0) = 0;
  virtual absl::Status CopyToHost(void *destination, size_t bytes, size_t offset = 0) = 0;
  /// Copies `bytes` from the start of `source` (a buffer of the same device) to the start of
  /// this one, on the device (a GPU's device-to-device copy: the memory-bound baseline).
  virtual absl::Status CopyFrom(Buffer &source, size_t bytes) = 0;
};

struct DeviceOptions {
  /// CPU: worker threads; 0 = one per hardware thread.
  unsigned threads = 0;
  /// CPU: how programs are split across threads.
  LaunchOptions launch;
  /// CPU: each buffer's end (its size rounded up to 64 bytes; the bytes in between are 0xFF,
  /// a NaN to floats) meets kGuardAfterBytes of inaccessible address space; its first page
  /// (0xFF up to the buffer's start) follows kGuardBeforeBytes of it. A kernel running past a
  /// buffer's end faults at once; one reading before its start reads poison within that page
  /// and faults beyond it, instead of reading or writing other memory. For tools that run buffer sizes they
  /// cannot check against a kernel (tessel-run); each buffer costs its own mapping.
  bool guardBuffers = false;
};

/// The inaccessible address space around a guarded CPU buffer (DeviceOptions::guardBuffers).
inline constexpr size_t kGuardBeforeBytes = size_t(64) << 10;
inline constexpr size_t kGuardAfterBytes = size_t(16) << 20;

/// Where kernels run. The only way applications and tools load artifacts and launch kernels:
/// Load checks the artifact and returns an executable of the device's kind, Launch runs one of
/// its kernels over a grid (asynchronously on GPUs: Synchronize waits), buffers move data
/// between host and device, FlushCaches evicts what earlier runs left in caches, and timing
/// goes through the device (TimeLaunches).
class Device {
public:
  /// "cpu" (always available), "cuda" or "hip" (clear error where unavailable).
  static absl::StatusOr<std::unique_ptr<Device>> Create(const std::string &kind,
                                                        const DeviceOptions &options = {});
  virtual ~Device() = default;

  /// "cpu", "cuda" or "hip": what Target::deviceKind names.
  virtual std::string kind() const = 0;
  /// For people: e.g. "cpu (2 threads)".
  virtual std::string name() const = 0;
  virtual absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) = 0;
  /// Loads an artifact built for this device (cpu: a shared object) from a regular file;
  /// anything else is an error, never a crash. The bytes read are the bytes loaded.
  absl::StatusOr<std::unique_ptr<Executable>> Load(const std::string &path);
  /// Loads an artifact from its bytes (`name` names it in messages): what a caller verified,
  /// e.g. against a bundle's checksum, is what runs; no file is opened again.
  virtual absl::StatusOr<std::unique_ptr<Executable>> LoadBytes(const std::string &bytes,
                                                                const std::string &name) = 0;
  /// Runs `kernel` (of an executable this device loaded) once per program of `grid`; checks
  /// the arguments against the kernel's signature first.
  virtual absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) = 0;
  /// Waits until every launch so far has finished (cpu: launches are synchronous).
  virtual absl::Status Synchronize() = 0;
  /// Whether kernels on this device can address `pointer` (a GPU: the driver allocated or
  /// mapped it, not plain host memory). The launcher refuses a tensor for which it is false.
  virtual bool Addressable(const void *pointer) { return true; }
  /// Later launches go to `stream` (the device's CUstream / hipStream_t, e.g. PyTorch's current
  /// stream; null: the default stream). Devices without streams take null only.
  virtual absl::Status SetStream(void *stream) {
    return stream ? absl::InvalidArgumentError("the " + kind() + " device has no streams")
                  : absl::OkStatus();
  }
  /// Evicts the data earlier runs left in the device's caches, so that the next run reads from
  /// memory (cpu: writes a buffer twice the largest cache). Untimed work between timed runs.
  virtual absl::Status FlushCaches() = 0;
  /// The seconds `run` (launches on this device) takes, measured by the device: the wall
  /// clock around it and Synchronize (cpu), events around it (cuda).
  virtual absl::StatusOr<double> TimeOne(const std::function<absl::Status()> &run);
  /// What a measurement on this device depends on, for records: e.g. the GPU's name, driver
  /// and clocks; each entry only where it can be read.
  virtual std::map<std::string, std::string> Environment() const = 0;
};

/// Timing of repeated runs: warm-up runs first, then at least `minRuns` runs and at least
/// `minSeconds` of measured time, at most `maxRuns`; with `maxWallSeconds` > 0, no new run
/// starts once that much wall time (untimed work between runs included) has passed and
/// `minRuns` are done.
struct TimingOptions {
  int warmupRuns = 2;
  int minRuns = 5;
  double minSeconds = 0.05;
  int maxRuns = 10000;
  double maxWallSeconds = 0;
  /// TimeLaunches: Device::FlushCaches (untimed) before each timed run.
  bool flushCaches = false;
};

/// The median (of an even count: the mean of the middle two), fastest and slowest run, and
/// every timed run's seconds in the order they ran (the raw samples statistics need).
struct Timing {
  double medianSeconds = 0, minSeconds = 0, maxSeconds = 0;
  int runs = 0;
  std::vector<double> samples;
};

/// Times `run` (its first error stops the timing and is returned); `between`, if set, runs
/// untimed before each timed run (tessel-bench flushes the caches there).
absl::StatusOr<Timing> TimeRuns(const std::function<absl::Status()> &run,
                                const TimingOptions &options = {},
                                const std::function<void()> &between = {});
/// As TimeRuns, with each run timing itself: `timedRun` returns the seconds it took.
absl::StatusOr<Timing> TimeSamples(const std::function<absl::StatusOr<double>()> &timedRun,
                                   const TimingOptions &options = {},
                                   const std::function<void()> &between = {});

/// TimeSamples of `work` (launches, copies) on `device`, each run timed by the device
/// (Device::TimeOne); with `options.flushCaches`, the device's caches flushed before each.
absl::StatusOr<Timing> TimeOnDevice(Device &device, const std::function<absl::Status()> &work,
                                    const TimingOptions &options = {});

/// TimeOnDevice of `kernel` launched on `device`.
absl::StatusOr<Timing> TimeLaunches(Device &device, const Kernel &kernel, Grid grid,
                                    const std::vector<Arg> &args,
                                    const TimingOptions &options = {});

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_DEVICE_H
