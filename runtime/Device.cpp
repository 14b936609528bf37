//===- Device.cpp - the CPU device and launch timing -----------------*- C++ -*-===//

#include "runtime/Device.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace tessel::runtime {

namespace {

class HostBuffer : public Buffer {
public:
  HostBuffer(void *data, size_t size) : data_(data), size_(size) {}
  ~HostBuffer() override { std::free(data_); }
  void *data() override { return data_; }
  size_t size() const override { return size_; }

private:
  void *data_;
  size_t size_;
};

class CpuDevice : public Device {
public:
  explicit CpuDevice(const DeviceOptions &options) : pool_(options.threads) {}
  std::string name() const override { return absl::StrCat("cpu (", pool_.size(), " threads)"); }

  absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) override {
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void *data = std::aligned_alloc(64, rounded);
    if (!data)
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes, " bytes"));
    return std::unique_ptr<Buffer>(new HostBuffer(data, bytes));
  }

  absl::StatusOr<std::unique_ptr<Module>> Load(const std::string &path) override {
    return Module::Open(path);
  }

  absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) override {
    return runtime::Launch(kernel, grid, args, pool_);
  }

private:
  ThreadPool pool_;
};

} // namespace

absl::StatusOr<std::unique_ptr<Device>> Device::Create(const std::string &kind,
                                                       const DeviceOptions &options) {
  if (kind == "cpu")
    return std::unique_ptr<Device>(new CpuDevice(options));
  if (kind == "cuda" || kind == "hip")
    return absl::UnavailableError(absl::StrCat(
        "the ", kind, " device is not available in this build of the runtime yet "
                      "(only 'cpu'); GPU kernels come with tessel's GPU backends"));
  return absl::InvalidArgumentError(
      absl::StrCat("unknown device '", kind, "' (expected cpu, cuda or hip)"));
}

absl::StatusOr<Timing> TimeRuns(const std::function<absl::Status()> &run,
                                const TimingOptions &options,
                                const std::function<void()> &between) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < options.warmupRuns; ++i)
    if (absl::Status s = run(); !s.ok())
      return s;
  std::vector<double> samples;
  double total = 0;
  Clock::time_point wallStart = Clock::now();
  auto wallLeft = [&] {
    return options.maxWallSeconds <= 0 ||
           std::chrono::duration<double>(Clock::now() - wallStart).count() <
               options.maxWallSeconds;
  };
  while (static_cast<int>(samples.size()) < options.maxRuns &&
         (static_cast<int>(samples.size()) < options.minRuns ||
          (total < options.minSeconds && wallLeft()))) {
    if (between)
      between();
    Clock::time_point start = Clock::now();
    if (absl::Status s = run(); !s.ok())
      return s;
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    samples.push_back(seconds);
    total += seconds;
  }
  if (samples.empty())
    return absl::InvalidArgumentError("timing options allow no run");
  std::sort(samples.begin(), samples.end());
  Timing t;
  t.runs = static_cast<int>(samples.size());
  t.minSeconds = samples.front();
  t.maxSeconds = samples.back();
  size_t mid = samples.size() / 2;
  t.medianSeconds =
      samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
  return t;
}

absl::StatusOr<Timing> TimeLaunches(Device &device, const Kernel &kernel, Grid grid,
                                    const std::vector<Arg> &args,
                                    const TimingOptions &options) {
  return TimeRuns([&] { return device.Launch(kernel, grid, args); }, options);
}

} // namespace tessel::runtime
