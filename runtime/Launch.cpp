//===- Launch.cpp - run a kernel over a grid on a thread pool -------*- C++ -*-===//

#include "runtime/Launch.h"

#include <limits>

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cstring>

namespace tessel::runtime {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < threads; ++i)
    workers_.emplace_back([this] { Work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread &t : workers_)
    t.join();
}

void ThreadPool::Work() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_)
      return;
    seen = generation_;
    while (next_ < total_) {
      int64_t begin = next_, end = std::min(total_, next_ + chunk_);
      next_ = end;
      ++busy_;
      lock.unlock();
      (*job_)(begin, end);
      lock.lock();
      --busy_;
    }
    done_.notify_all();
  }
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &fn,
                             int64_t chunk) {
  if (n <= 0)
    return;
  if (workers_.empty() && chunk <= 0) {
    fn(0, n);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  job_ = &fn;
  total_ = n;
  next_ = 0;
  // By default a few chunks per thread balance uneven programs without one call per program.
  chunk_ = chunk > 0 ? chunk : std::max<int64_t>(1, n / (int64_t(size()) * 4));
  ++generation_;
  wake_.notify_all();
  while (next_ < total_) {
    int64_t begin = next_, end = std::min(total_, next_ + chunk_);
    next_ = end;
    ++busy_;
    lock.unlock();
    fn(begin, end);
    lock.lock();
    --busy_;
  }
  done_.wait(lock, [&] { return busy_ == 0 && next_ >= total_; });
  job_ = nullptr;
}

namespace {
bool isIntegerType(const std::string &e) { return e[0] == 'i'; }
bool isFloatType(const std::string &e) { return e == "f32" || e == "f64"; }
} // namespace

absl::StatusOr<std::vector<uint64_t>> PackArguments(const Kernel &kernel, Grid grid,
                                                    const std::vector<Arg> &args) {
  const std::vector<ArgType> &sig = kernel.signature();
  if (args.size() != sig.size())
    return absl::InvalidArgumentError(absl::StrCat("kernel '", kernel.name(), "' takes ",
                                                   sig.size(), " arguments, got ",
                                                   args.size()));
  if (grid.x <= 0 || grid.y <= 0 || grid.z <= 0)
    return absl::InvalidArgumentError(absl::StrCat("grid ", grid.x, "x", grid.y, "x", grid.z,
                                                   " must be positive in every dimension"));
  std::vector<uint64_t> slots(args.size(), 0);
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgType &t = sig[i];
    const Arg &a = args[i];
    auto mismatch = [&](const char *given) {
      return absl::InvalidArgumentError(absl::StrCat("argument #", i, " of kernel '",
                                                     kernel.name(), "' is ", t.str(),
                                                     ", got ", given));
    };
    if (t.isPointer) {
      if (!std::holds_alternative<void *>(a))
        return mismatch("a scalar");
      slots[i] = reinterpret_cast<uintptr_t>(std::get<void *>(a));
      continue;
    }
    if (std::holds_alternative<void *>(a))
      return mismatch("a pointer");
    if (isIntegerType(t.element)) {
      int64_t v;
      if (std::holds_alternative<int32_t>(a))
        v = std::get<int32_t>(a);
      else if (std::holds_alternative<int64_t>(a))
        v = std::get<int64_t>(a);
      else
        return mismatch("a floating-point value");
      std::memcpy(&slots[i], &v, sizeof(v)); // low bytes hold the value (little endian)
      continue;
    }
    if (!isFloatType(t.element))
      return absl::UnimplementedError(absl::StrCat("argument #", i, " of kernel '",
                                                   kernel.name(), "' has type ", t.str(),
                                                   ", which launches cannot pass yet"));
    double v;
    if (std::holds_alternative<float>(a))
      v = std::get<float>(a);
    else if (std::holds_alternative<double>(a))
      v = std::get<double>(a);
    else
      return mismatch("an integer");
    if (t.element == "f32") {
      float f = static_cast<float>(v);
      std::memcpy(&slots[i], &f, sizeof(f));
    } else {
      std::memcpy(&slots[i], &v, sizeof(v));
    }
  }
  return slots;
}

absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args,
                    ThreadPool &pool, const LaunchOptions &options) {
  absl::StatusOr<std::vector<uint64_t>> packed = PackArguments(kernel, grid, args);
  if (!packed.ok())
    return packed.status();
  std::vector<uint64_t> &slots = *packed;
  auto fn = reinterpret_cast<LaunchFn>(const_cast<void *>(kernel.handle()));
  const uint64_t *data = slots.data();
  if (options.programsPerTask < 0)
    return absl::InvalidArgumentError("programsPerTask must be >= 0");
  // The launch ABI passes program ranges as int32: a larger grid cannot be addressed.
  if (grid.programs() > std::numeric_limits<int32_t>::max())
    return absl::InvalidArgumentError(
        "a grid of " + std::to_string(grid.programs()) + " programs (" + std::to_string(grid.x) +
        " x " + std::to_string(grid.y) + " x " + std::to_string(grid.z) +
        ") is more than the 2147483647 the cpu launch ABI addresses");
  pool.ParallelFor(
      grid.programs(),
      [&](int64_t begin, int64_t end) {
        fn(data, static_cast<int32_t>(begin), static_cast<int32_t>(end), grid.x, grid.y, grid.z);
      },
      options.programsPerTask);
  return absl::OkStatus();
}

} // namespace tessel::runtime
