//===- Launch.h - launch arguments and grids; the cpu device's thread pool -*- C++ -*-===//
//
// Arg and Grid are every device's. ThreadPool and Launch are how the cpu device runs a kernel
// over a grid; applications launch through Device::Launch.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_LAUNCH_H
#define TESSEL_RUNTIME_LAUNCH_H

#include "runtime/Module.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

namespace tessel::runtime {

/// A fixed set of worker threads running index ranges of a job.
class ThreadPool {
public:
  /// `threads` == 0 means one per hardware thread.
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }
  /// Calls `fn(begin, end)` on disjoint chunks of at most `chunk` indices covering [0, n),
  /// using every thread (the caller included), and returns when all are done. `chunk` 0:
  /// about four chunks per thread.
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)> &fn,
                   int64_t chunk = 0);

private:
  void Work();
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t)> *job_ = nullptr;
  int64_t total_ = 0, next_ = 0, chunk_ = 1;
  unsigned busy_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

/// One launch argument: a pointer to device (host) memory, or a scalar of the declared type.
using Arg = std::variant<void *, int32_t, int64_t, float, double>;

struct Grid {
  int32_t x = 1, y = 1, z = 1;
  int64_t programs() const { return int64_t(x) * y * z; }
};

/// How programs are split across threads (a knob the autotuner sweeps).
struct LaunchOptions {
  /// Programs each thread takes at a time (consecutive linear ids, x fastest); 0: about four
  /// batches per thread. Small batches balance uneven programs, large ones keep neighbouring
  /// programs (which share data) on one core.
  int64_t programsPerTask = 0;
};

/// The launch's arguments as one 8-byte slot each (a pointer, or a scalar of the declared
/// type in the low bytes), after checking their count and kinds against the kernel's signature
/// and the grid's sizes: every device passes kernels their arguments this way.
absl::StatusOr<std::vector<uint64_t>> PackArguments(const Kernel &kernel, Grid grid,
                                                    const std::vector<Arg> &args);

/// The cpu device's launch: runs `kernel` (loaded by the cpu device) once per program of
/// `grid`, spread over `pool`. Checks the argument count and
/// kinds against the kernel's signature first.
absl::Status Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args,
                    ThreadPool &pool, const LaunchOptions &options = {});

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_LAUNCH_H
