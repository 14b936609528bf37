//===- Zoo.h - the kernel zoo: what the autotuner tunes and how it checks it -*- C++ -*-===//
//
// One folder per kernel, kernels/<name>/: its Triton-language source, its spec and C++
// reference (<Name>.cpp) and a BUILD with one `zoo_kernel` rule; kernels/registry.bzl lists
// the folders. Per kernel: its source and entry, the problem dimensions, per target kind the
// shapes (a small default set and a large one), dtypes and configuration space, how a
// configuration becomes constexprs, the argument signature per dtype, FLOP and byte counts, and
// a Problem factory: random inputs, poisoned outputs, the launch grid and a check against the
// C++ reference. Runtime only (no compiler): tessel-bench links it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_ZOO_H
#define TESSEL_KERNELS_ZOO_H

#include "autotune/space/Space.h"
#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/Launch.h"
#include "runtime/target/Target.h"

#include "absl/status/status.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessel::zoo {

using Shape = std::map<std::string, int64_t>;
using autotune::Point;

/// One problem instance: its data, how to launch on it and how to check the result. The data
/// lives in host memory; Upload copies it to a device's buffers, Launch runs a kernel on them,
/// Download brings the outputs back for Check.
class Problem {
public:
  virtual ~Problem() = default;
  /// The launch grid of `config` (an error where a spec's grid expression fails).
  virtual absl::StatusOr<runtime::Grid> GridFor(const Point &config) const = 0;
  /// Fills the (host) outputs with NaN (or a sentinel) so an output left unwritten fails the
  /// check; Upload carries the poison to the device.
  virtual void Poison() = 0;
  /// Compares the (host) outputs with the C++ reference (computed once, on the same inputs).
  virtual absl::Status Check() const = 0;
  /// Whether Check compares with the outputs of a reference configuration of the same kernel
  /// (a spec kernel's check) rather than a C++ reference: RunReference must come first.
  virtual bool NeedsReference() const { return false; }
  /// Keeps the (downloaded) outputs as what Check compares with; an error where the reference
  /// left an output unwritten.
  virtual absl::Status KeepAsReference() {
    return absl::UnimplementedError("this problem has a C++ reference");
  }
  /// Poison, Upload, one launch of the reference `kernel` with `config`, Download,
  /// KeepAsReference.
  absl::Status RunReference(runtime::Device &device, const runtime::Kernel &kernel,
                            const Point &config);

  /// Allocates `device` buffers for the problem's data and copies all of it there (outputs
  /// too: poisoned first, they stay poisoned where a kernel does not write).
  absl::Status Upload(runtime::Device &device);
  /// The launch arguments: the device buffers of the last Upload, and the scalars.
  absl::StatusOr<std::vector<runtime::Arg>> DeviceArgs();
  /// Copies the outputs from the device buffers back to the host.
  absl::Status Download();
  /// Poison, Upload, one launch of `kernel` on `device` with `config`'s grid, Synchronize,
  /// Download, Check: one validated run.
  absl::Status RunAndCheck(runtime::Device &device, const runtime::Kernel &kernel,
                           const Point &config);

protected:
  /// A buffer of the problem in host memory; `output`: written by the kernel.
  struct HostBuffer {
    void *data;
    size_t bytes;
    bool output;
  };
  /// The arguments with host pointers (each one the data of one of Buffers()).
  virtual std::vector<runtime::Arg> HostArgs() = 0;
  virtual std::vector<HostBuffer> Buffers() = 0;
  /// A buffer the kernel reads (in) or writes (out).
  template <typename T> static HostBuffer in(std::vector<T> &v) {
    return {v.data(), v.size() * sizeof(T), false};
  }
  template <typename T> static HostBuffer out(std::vector<T> &v) {
    return {v.data(), v.size() * sizeof(T), true};
  }

private:
  /// Poison, Upload, one launch of `kernel` with `config`'s grid, Synchronize, Download.
  absl::Status LaunchOnce(runtime::Device &device, const runtime::Kernel &kernel,
                          const Point &config);
  std::vector<HostBuffer> host_;
  std::vector<std::unique_ptr<runtime::Buffer>> device_;
};

/// The element types of tensors in host memory (specs' dtypes: f32, f16, bf16, f64, i8, u8,
/// i16, i32, i64).
enum class ElementType { F32, F16, BF16, F64, I8, U8, I16, I32, I64 };
/// The element type a dtype names, or an error for one that is not a specs' dtype.
absl::StatusOr<ElementType> ParseElementType(const std::string &dtype);
size_t ElementBytes(ElementType type);
bool IsFloat(ElementType type);
/// The element at `p` as a double, and `x` stored at `p` (rounded to nearest even for the
/// narrow floats; integers rounded to the nearest and truncated to their width).
double Decode(ElementType type, const uint8_t *p);
void Encode(ElementType type, double x, uint8_t *p);

/// A tensor argument of one run, as a C++ reference reads it: its element type, shape and
/// the host copy of its data (outputs as the kernel left them).
struct HostTensor {
  std::string dtype;
  ElementType type = ElementType::F32;
  std::vector<int64_t> shape;
  size_t count = 0;
  const uint8_t *data = nullptr;
  /// Element `i` as a double.
  double at(size_t i) const { return Decode(type, data + i * ElementBytes(type)); }
};
/// The tensors of a run by their argument names.
using Tensors = std::map<std::string, HostTensor>;
/// A kernel's C++ reference: checks one run's outputs against what its inputs should give (its
/// own tolerance; large problems may check sampled rows, drawn from `seed`, and every output
/// element for being written). absl::DataLoss names the first mismatch. A spec attaches one
/// by name (`reference = "matmul"`); kernels/<folder>/ registers its references with
/// TESSEL_ZOO_REFERENCES.
using Reference = std::function<absl::Status(const Tensors &tensors, const Shape &shape,
                                             const std::string &dtype, uint64_t seed)>;
using References = std::map<std::string, Reference>;

/// What a kernel is tuned over for one kind of target: problem shapes (a default set and a
/// large one, sized for that kind of machine), dtypes, and the configuration space (the
/// kernel's constexprs as named in its source, and the backend's knobs prefixed "knob.";
/// GPUs: the cuda knob num_warps). Empty dtypes: the kernel is not tuned for that kind yet.
struct TargetSpec {
  std::vector<Shape> defaultShapes, largeShapes;
  std::vector<std::string> dtypes;
  autotune::Space space;
};

struct Kernel {
  std::string name, source, entry;
  std::vector<std::string> dims;
  /// The cpu target's problems and space, and the GPU targets' (cuda and rocm).
  TargetSpec cpu, gpu;
  /// What is tuned for `kind`: `cpu`, or `gpu`, for rocm without the knobs only the cuda
  /// backend has (kCudaOnlyKnobs).
  TargetSpec For(TargetKind kind) const;
  /// Runtime argument types in Triton's signature syntax ("*fp32:16,i32"); the runtime's form
  /// is RuntimeSignature of it.
  std::function<std::string(const std::string &dtype)> signature;
  /// The constexprs (and baked-in unit strides) of a configuration.
  std::function<std::map<std::string, std::string>(const Point &, const Shape &)> constexprs;
  std::function<double(const Shape &)> flops;
  std::function<double(const Shape &, const std::string &dtype)> bytes;
  /// Reported in GFLOP/s (compute bound) rather than GB/s.
  bool flopBound = false;
  /// No baseline is timed beside it (a spec's `baseline = "none"`).
  bool noBaseline = false;
  /// The GEMM a flop-bound kernel's baseline times (a spec's `baseline = "gemm(M, N, K)"`);
  /// unset: the shape's M, N and K.
  std::function<std::array<int64_t, 3>(const Shape &)> gemmDims;
  std::function<absl::StatusOr<std::unique_ptr<Problem>>(const Shape &, const std::string &dtype,
                                                         uint64_t seed)>
      makeProblem;
  /// A kernel from a spec (kernels/spec): the spec's path and the sha256 of the spec and of
  /// the kernel file (records carry them); empty for the zoo's C++ kernels.
  std::string specPath, specSha256, sourceSha256;
  /// The dims a bundle dispatches on (a spec kernel's @triton.autotune key); empty: all.
  std::vector<std::string> dispatchDims;
  /// The launch contract a bundle carries (JSON text; docs/bundle.schema.json's "launch"): the
  /// dims, the dispatch dims, the grid expression and every parameter of the kernel in order
  /// (tensors with dtype, shape in dims and role; scalars with type and value expression;
  /// baked-in constexprs; meta-parameters, whose values are each entry's config). Empty: none.
  std::string launchJson;
  /// Its runs are checked against a reference configuration of the same kernel run first on
  /// the same inputs (a spec without a C++ reference): the runner needs that configuration's
  /// artifact too.
  bool checkAgainstConfig = false;
  /// One of the zoo's (kernels/<folder>/*.toml): found by name everywhere, so a runner is not
  /// told its spec.
  bool inZoo = false;
};

/// The "knob." parameters of the GPU spaces that only the cuda backend has (num_stages: the
/// cp.async pipeline; warp_m: the warps' grid over a tensor-core matmul; persistent: blocks
/// running programs in turn): the rocm backend's space is the GPU space without them
/// (constraints on them must allow their absence).
inline constexpr const char *kCudaOnlyKnobs[] = {"knob.num_stages", "knob.warp_m",
                                                 "knob.persistent"};

/// The runtime's form of a Triton signature: "*fp32:16,i32:16,fp32" -> "ptr:f32,i32,f32".
std::string RuntimeSignature(const std::string &tritonSignature);

/// Every zoo kernel, in the order of kernels/registry.bzl: each folder's specs (the one named
/// after the folder first, then the others by name), read from kernels/ under the working
/// directory (the runfiles of bazel run and tests, a packed folder on a GPU host) for the
/// cpu target and the GPU targets, with their C++ references attached. Read once; kernels
/// that do not load are left out and ZooStatus says why.
const std::vector<Kernel> &Kernels();
/// Why a zoo kernel did not load (OK when all did): tools refuse to start on an error.
absl::Status ZooStatus();
namespace registry {
/// Defined by kernels/registry.bzl's generated Registry.cpp: the folders in order, and every
/// folder's references.
std::vector<std::string> Folders();
References All();
} // namespace registry

/// Defines the C++ references of the folder kernels/<folder>/ (inside namespace tessel::zoo):
///   TESSEL_ZOO_REFERENCES(row_max) { return {{"row_max", CheckRowMax}}; }
/// defines registry::row_max(), which the registry generated from kernels/registry.bzl calls.
#define TESSEL_ZOO_REFERENCES(folder)                                                          \
  namespace registry {                                                                         \
  References folder();                                                                         \
  }                                                                                            \
  References registry::folder()
/// The zoo kernel or the spec kernel (AddSpecKernel) named `name`, or null.
const Kernel *Find(const std::string &name);
/// Makes a kernel read from a spec (kernels/spec) findable by name, for the rest of the
/// process: the sweep and tessel-bench add the specs they are given at start-up, before any
/// lookup. An error when the name is taken (by a zoo kernel or another spec).
absl::Status AddSpecKernel(Kernel kernel);

/// Parses "M=1024,N=512" for `kernel`'s dimensions.
absl::StatusOr<Shape> ParseShape(const Kernel &kernel, const std::string &text);
/// "K=64,M=128,N=32" (the runtime's spelling, which bundle lookups report).
using runtime::ShapeText;

} // namespace tessel::zoo

#endif // TESSEL_KERNELS_ZOO_H
