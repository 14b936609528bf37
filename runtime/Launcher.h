//===- Launcher.h - launch any bundle kernel from its launch contract -*- C++ -*-===//
//
// An application hands the launcher its tensors (device pointers with dtype, shape and strides
// in elements) by the kernel's argument names, and the dims it cannot read from them; the
// launcher reads the kernel's launch contract in the bundle (schema 2, from its kernel spec),
// infers and checks the dims (every tensor's rank, sizes and dtype against the contract),
// picks the entry (tuned for the shape, or the nearest one that serves it), checks the
// constexprs baked into that entry hold for this call (a unit stride, a block covering the
// row), computes the scalar arguments and the grid from the contract's expressions, loads the
// entry's artifact once, and launches it on the device. Every mismatch is an error before
// anything runs. No per-kernel code: bundle_consumer and the C API build on this.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_LAUNCHER_H
#define TESSEL_RUNTIME_LAUNCHER_H

#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/expr/Value.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessel::runtime {

/// A tensor the caller passes: device memory of the launcher's device, its element type (f32,
/// f16, bf16, f64, i8, u8, i16, i32, i64), shape and strides (in elements; empty: row-major).
struct TensorArg {
  void *data = nullptr;
  std::string dtype;
  std::vector<int64_t> shape, strides;
};

struct LaunchRequest {
  /// The kernel's tensors by argument name (every tensor of its contract).
  std::map<std::string, TensorArg> tensors;
  /// Dims the tensors do not give (a flag such as CAUSAL); checked where they do.
  std::map<std::string, int64_t> dims;
};

/// What a launch chose: the entry (and why), the dims and grid it ran with.
struct LaunchReport {
  BundleChoice choice;
  std::map<std::string, int64_t> dims;
  Grid grid;
};

class Launcher {
public:
  /// Launches entries of `bundle` on `device` (both outlive the launcher).
  Launcher(const Bundle &bundle, Device &device) : bundle_(bundle), device_(device) {}

  /// Checks `request` against `kernel`'s launch contract, picks its entry and launches it
  /// (asynchronously on the device's stream; Synchronize the device to wait).
  absl::StatusOr<LaunchReport> Launch(const std::string &kernel, const LaunchRequest &request);

private:
  /// What a launch of these dtypes, shapes, strides and dims computed: the report, the
  /// arguments (tensor pointers at `tensors`' positions are the call's), the kernel.
  struct LaunchPlan {
    LaunchReport report;
    std::vector<Arg> args;
    std::vector<std::pair<size_t, std::string>> tensors;
    const Kernel *kernel = nullptr;
  };
  static constexpr size_t kMaxPlans = 4096;

  /// Checks everything against the contract, launches and remembers the plan under `key`.
  absl::StatusOr<LaunchReport> Plan(const std::string &kernel, const LaunchRequest &request,
                                    const std::string &key);
  void RememberPlan(const std::string &key, LaunchPlan plan);
  /// A tensor's pointer: not null, 16-byte aligned, addressable by the device.
  absl::Status CheckPointer(const std::string &kernel, const std::string &name,
                            const void *data);

  const Bundle &bundle_;
  Device &device_;
  /// What a launch of an entry needs that does not change between launches: its tuned
  /// configuration's values (parsed once) and its kernel (loaded once).
  struct EntryState {
    std::vector<std::pair<std::string, expr::Value>> config;
    std::unique_ptr<Executable> executable;
    std::optional<Kernel> kernel;
  };
  std::map<const BundleEntry *, EntryState> entries_;
  std::map<std::string, LaunchPlan> plans_;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_LAUNCHER_H
