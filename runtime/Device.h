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
#include <memory>
#include <string>

namespace tessel::runtime {

/// Device memory. On the CPU: host memory aligned to 64 bytes.
class Buffer {
public:
  virtual ~Buffer() = default;
  virtual void *data() = 0;
  virtual size_t size() const = 0;
};

struct DeviceOptions {
  /// CPU: worker threads; 0 = one per hardware thread.
  unsigned threads = 0;
};

class Device {
public:
  /// "cpu" (always available), "cuda" or "hip" (clear error where unavailable).
  static absl::StatusOr<std::unique_ptr<Device>> Create(const std::string &kind,
                                                        const DeviceOptions &options = {});
  virtual ~Device() = default;

  virtual std::string name() const = 0;
  virtual absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) = 0;
  virtual absl::StatusOr<std::unique_ptr<Module>> Load(const std::string &path) = 0;
  virtual absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) = 0;
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
};

/// The median (of an even count: the mean of the middle two), fastest and slowest run.
struct Timing {
  double medianSeconds = 0, minSeconds = 0, maxSeconds = 0;
  int runs = 0;
};

/// Times `run` (its first error stops the timing and is returned); `between`, if set, runs
/// untimed before each timed run (tessel-bench flushes the caches there).
absl::StatusOr<Timing> TimeRuns(const std::function<absl::Status()> &run,
                                const TimingOptions &options = {},
                                const std::function<void()> &between = {});

/// TimeRuns of `kernel` launched on `device`.
absl::StatusOr<Timing> TimeLaunches(Device &device, const Kernel &kernel, Grid grid,
                                    const std::vector<Arg> &args,
                                    const TimingOptions &options = {});

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_DEVICE_H
