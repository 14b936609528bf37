//===- Device.cpp - the CPU device and launch timing -----------------*- C++ -*-===//

#include "runtime/Device.h"
#include "runtime/Files.h"
#include "runtime/CudaDevice.h"
#include "runtime/HipDevice.h"

#include "absl/strings/str_cat.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <fstream>

namespace tessel::runtime {

namespace {

/// The size of the largest CPU cache in bytes (sysfs), or 64 MiB when sysfs does not say.
size_t largestCacheBytes() {
  size_t largest = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    size_t value = 0;
    std::string unit;
    if (!(in >> value))
      continue;
    in >> unit; // a suffix right after the number: the stream stops at it
    // "48K", "2048K", "260M"
    largest = std::max(largest, value * (unit == "K" ? 1024 : unit == "M" ? 1024 * 1024 : 1));
  }
  return largest ? largest : size_t(64) << 20;
}

absl::Status checkRange(size_t size, size_t bytes, size_t offset) {
  if (offset > size || bytes > size - offset)
    return absl::OutOfRangeError(absl::StrCat("a copy of ", bytes, " bytes at offset ", offset,
                                              " does not fit a buffer of ", size, " bytes"));
  return absl::OkStatus();
}

class HostBuffer : public Buffer {
public:
  HostBuffer(void *data, size_t size, bool owned = true)
      : data_(data), size_(size), owned_(owned) {}
  ~HostBuffer() override {
    if (owned_)
      std::free(data_);
  }
  void *data() override { return data_; }
  size_t size() const override { return size_; }
  absl::Status CopyFromHost(const void *source, size_t bytes, size_t offset) override {
    if (absl::Status s = checkRange(size_, bytes, offset); !s.ok())
      return s;
    if (bytes)
      std::memcpy(static_cast<char *>(data_) + offset, source, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyToHost(void *destination, size_t bytes, size_t offset) override {
    if (absl::Status s = checkRange(size_, bytes, offset); !s.ok())
      return s;
    if (bytes)
      std::memcpy(destination, static_cast<char *>(data_) + offset, bytes);
    return absl::OkStatus();
  }
  absl::Status CopyFrom(Buffer &source, size_t bytes) override {
    if (bytes > size_ || bytes > source.size())
      return absl::OutOfRangeError("a copy larger than its buffers");
    if (bytes)
      std::memcpy(data_, source.data(), bytes);
    return absl::OkStatus();
  }

private:
  void *data_;
  size_t size_;
  bool owned_;
};

/// A buffer of its own mapping between two inaccessible regions (DeviceOptions::guardBuffers).
class GuardedHostBuffer : public HostBuffer {
public:
  static absl::StatusOr<std::unique_ptr<Buffer>> Create(size_t bytes) {
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    size_t pages = (rounded + page - 1) / page * page;
    size_t total = kGuardBeforeBytes + pages + kGuardAfterBytes;
    void *base = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
      return absl::ResourceExhaustedError(absl::StrCat("cannot map ", bytes, " bytes"));
    char *first = static_cast<char *>(base) + kGuardBeforeBytes;
    if (mprotect(first, pages, PROT_READ | PROT_WRITE) != 0) {
      munmap(base, total);
      return absl::ResourceExhaustedError(absl::StrCat("cannot map ", bytes, " bytes"));
    }
    char *data = first + pages - rounded;
    // The rest of the pages, before the buffer and after its end: poison (0xFF, a NaN).
    std::memset(first, 0xFF, pages - rounded);
    std::memset(data + bytes, 0xFF, rounded - bytes);
    return std::unique_ptr<Buffer>(new GuardedHostBuffer(base, total, data, bytes));
  }
  ~GuardedHostBuffer() override { munmap(base_, total_); }

private:
  GuardedHostBuffer(void *base, size_t total, void *data, size_t bytes)
      : HostBuffer(data, bytes, /*owned=*/false), base_(base), total_(total) {}
  void *base_;
  size_t total_;
};

class CpuDevice : public Device {
public:
  explicit CpuDevice(const DeviceOptions &options)
      : pool_(options.threads), launch_(options.launch), guardBuffers_(options.guardBuffers) {}
  std::string kind() const override { return "cpu"; }
  std::string name() const override { return absl::StrCat("cpu (", pool_.size(), " threads)"); }
  std::map<std::string, std::string> Environment() const override {
    return {{"device", "cpu"}, {"threads", std::to_string(pool_.size())}};
  }

  absl::StatusOr<std::unique_ptr<Buffer>> Allocate(size_t bytes) override {
    if (guardBuffers_)
      return GuardedHostBuffer::Create(bytes);
    size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void *data = std::aligned_alloc(64, rounded);
    if (!data)
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes, " bytes"));
    return std::unique_ptr<Buffer>(new HostBuffer(data, bytes));
  }

  absl::StatusOr<std::unique_ptr<Executable>> LoadBytes(const std::string &bytes,
                                                        const std::string &name) override {
    absl::StatusOr<std::unique_ptr<Module>> module = Module::FromBytes(bytes, name);
    if (!module.ok())
      return module.status();
    return std::unique_ptr<Executable>(std::move(*module));
  }

  absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) override {
    return runtime::Launch(kernel, grid, args, pool_, launch_);
  }

  absl::Status Synchronize() override { return absl::OkStatus(); }

  absl::Status FlushCaches() override {
    if (flush_.empty())
      flush_.resize(2 * largestCacheBytes());
    // Written by every thread: each core's private caches are evicted too.
    size_t chunk = size_t(1) << 20, chunks = (flush_.size() + chunk - 1) / chunk;
    pool_.ParallelFor(int64_t(chunks), [&](int64_t b, int64_t e) {
      size_t begin = size_t(b) * chunk, end = std::min(flush_.size(), size_t(e) * chunk);
      std::memset(flush_.data() + begin, int(b & 0xff), end - begin);
    });
    return absl::OkStatus();
  }

private:
  ThreadPool pool_;
  LaunchOptions launch_;
  bool guardBuffers_;
  std::vector<char> flush_;
};

} // namespace

absl::StatusOr<std::unique_ptr<Executable>> Device::Load(const std::string &path) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path);
  if (!bytes.ok())
    return bytes.status();
  return LoadBytes(*bytes, path);
}

absl::StatusOr<std::unique_ptr<Device>> Device::Create(const std::string &kind,
                                                       const DeviceOptions &options) {
  if (kind == "cpu") {
    constexpr unsigned kMaxThreads = 4096;
    if (options.threads > kMaxThreads)
      return absl::InvalidArgumentError("a cpu device of " + std::to_string(options.threads) +
                                        " threads: at most " + std::to_string(kMaxThreads));
    try {
      return std::unique_ptr<Device>(new CpuDevice(options));
    } catch (const std::system_error &e) {
      return absl::ResourceExhaustedError(std::string("cannot start the cpu device's threads: ") +
                                          e.what());
    }
  }
  if (kind == "cuda")
    return CreateCudaDevice(options);
  if (kind == "hip")
    return CreateHipDevice(options);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown device '", kind, "' (expected cpu, cuda or hip)"));
}

absl::StatusOr<Timing> TimeSamples(const std::function<absl::StatusOr<double>()> &timedRun,
                                   const TimingOptions &options,
                                   const std::function<void()> &between) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < options.warmupRuns; ++i)
    if (absl::StatusOr<double> s = timedRun(); !s.ok())
      return s.status();
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
    absl::StatusOr<double> measured = timedRun();
    if (!measured.ok())
      return measured.status();
    double seconds = *measured;
    samples.push_back(seconds);
    total += seconds;
  }
  if (samples.empty())
    return absl::InvalidArgumentError("timing options allow no run");
  Timing t;
  t.samples = samples;
  std::sort(samples.begin(), samples.end());
  t.runs = static_cast<int>(samples.size());
  t.minSeconds = samples.front();
  t.maxSeconds = samples.back();
  size_t mid = samples.size() / 2;
  t.medianSeconds =
      samples.size() % 2 ? samples[mid] : 0.5 * (samples[mid - 1] + samples[mid]);
  return t;
}

absl::StatusOr<Timing> TimeRuns(const std::function<absl::Status()> &run,
                                const TimingOptions &options,
                                const std::function<void()> &between) {
  return TimeSamples(
      [&]() -> absl::StatusOr<double> {
        auto start = std::chrono::steady_clock::now();
        if (absl::Status s = run(); !s.ok())
          return s;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      },
      options, between);
}

absl::StatusOr<double> Device::TimeOne(const std::function<absl::Status()> &run) {
  auto start = std::chrono::steady_clock::now();
  if (absl::Status s = run(); !s.ok())
    return s;
  if (absl::Status s = Synchronize(); !s.ok())
    return s;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

absl::StatusOr<Timing> TimeOnDevice(Device &device, const std::function<absl::Status()> &work,
                                    const TimingOptions &options) {
  return TimeSamples(
      [&] { return device.TimeOne(work); }, options,
      options.flushCaches ? std::function<void()>([&] { (void)device.FlushCaches(); })
                          : std::function<void()>());
}

absl::StatusOr<Timing> TimeLaunches(Device &device, const Kernel &kernel, Grid grid,
                                    const std::vector<Arg> &args,
                                    const TimingOptions &options) {
  return TimeOnDevice(device, [&] { return device.Launch(kernel, grid, args); }, options);
}

} // namespace tessel::runtime
