//===- Module.h - loaded artifacts (executables) and their kernels -*- C++ -*-===//
//
// An Executable is an artifact a Device loaded (Device::Load); a Kernel one of its entry points
// with its argument signature, in a form only that device interprets. Module is the cpu
// device's executable: a dlopen'ed shared object whose kernels are its `k__tessel_launch`
// entry points (the CPU kernel ABI of compiler/backend/cpu/CpuBackend.h). No LLVM or MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_MODULE_H
#define TESSEL_RUNTIME_MODULE_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessel::runtime {

/// The C entry point every compiled kernel exports.
using LaunchFn = void (*)(const uint64_t *args, int32_t begin, int32_t end, int32_t gridX,
                          int32_t gridY, int32_t gridZ);

/// One kernel argument type, as the compiler wrote it in the signature.
struct ArgType {
  bool isPointer = false;
  /// Element type for pointers, the type itself otherwise: "f32", "i32", "bf16", ...
  std::string element;
  std::string str() const { return isPointer ? "ptr:" + element : element; }
};

/// Parses "ptr:f32,ptr:f32,i32" (the `__tessel_signature` string).
absl::StatusOr<std::vector<ArgType>> ParseSignature(const std::string &text);

/// A kernel of a loaded executable: valid while the executable is.
class Kernel {
public:
  Kernel(std::string name, const void *handle, std::vector<ArgType> signature)
      : name_(std::move(name)), handle_(handle), signature_(std::move(signature)) {}
  const std::string &name() const { return name_; }
  /// What the device that loaded it launches (the cpu device: a LaunchFn).
  const void *handle() const { return handle_; }
  const std::vector<ArgType> &signature() const { return signature_; }

private:
  std::string name_;
  const void *handle_;
  std::vector<ArgType> signature_;
};

/// An artifact loaded by a Device; destroying it invalidates its kernels.
class Executable {
public:
  virtual ~Executable() = default;
  /// The kernel `name`, or NotFound naming the kernels the executable does have.
  virtual absl::StatusOr<Kernel> GetKernel(const std::string &name) const = 0;
  /// Names of the kernels in the executable.
  virtual std::vector<std::string> KernelNames() const = 0;
  /// The file it was loaded from.
  virtual const std::string &path() const = 0;
  /// What the artifact was compiled from, as the compiler recorded it (JSON: entry, target,
  /// knobs, constexprs); empty when the artifact carries none.
  virtual std::string buildInfo() const { return ""; }
};

/// The symbol a cpu artifact exports its build info under (a NUL-terminated string).
inline constexpr const char *kBuildInfoSymbol = "__tessel_build_info";

/// What an artifact says about one of its kernels, read from its bytes without loading them.
struct ArtifactKernelInfo {
  std::string signature; ///< "ptr:f32,i32", as Kernel::signature prints it
  std::string buildInfo; ///< as Executable::buildInfo; empty when the artifact records none
};

/// The kernel `entry` of a cpu artifact (a shared object; `name` names it in messages): its
/// signature and the artifact's build info from the exported symbols, without running any of
/// its code; an error when it has no such kernel or is malformed.
absl::StatusOr<ArtifactKernelInfo> ReadSharedObjectKernelInfo(const std::string &bytes,
                                                              const std::string &entry,
                                                              const std::string &name);

/// The cpu device's executable: a loaded shared object. Applications load through
/// Device::Load, which checks the artifact first.
class Module : public Executable {
public:
  /// Opens `path`; a missing, unreadable or foreign file is an error, never a crash.
  static absl::StatusOr<std::unique_ptr<Module>> Open(const std::string &path);
  /// Loads a shared object from `bytes` (checked first; `name` names it in messages): the
  /// bytes themselves are loaded, through a sealed in-memory file, not a path.
  static absl::StatusOr<std::unique_ptr<Module>> FromBytes(const std::string &bytes,
                                                           const std::string &name);
  ~Module() override;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  absl::StatusOr<Kernel> GetKernel(const std::string &name) const override;
  std::vector<std::string> KernelNames() const override;
  const std::string &path() const override { return path_; }
  std::string buildInfo() const override;

private:
  Module(void *handle, std::string path, int fd)
      : handle_(handle), path_(std::move(path)), fd_(fd) {}
  void *handle_;
  std::string path_;
  int fd_ = -1; ///< the in-memory file the module was loaded from
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_MODULE_H
