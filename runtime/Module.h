//===- Module.h - kernels loaded from a compiled shared object -----*- C++ -*-===//
//
// The runtime side of the CPU kernel ABI (see compiler/backend/cpu/CpuBackend.h): a Module is a
// dlopen'ed shared object, a Kernel one of its `k__tessel_launch` entry points together with
// its argument signature. No LLVM or MLIR here.
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

class Kernel {
public:
  Kernel(std::string name, LaunchFn fn, std::vector<ArgType> signature)
      : name_(std::move(name)), fn_(fn), signature_(std::move(signature)) {}
  const std::string &name() const { return name_; }
  LaunchFn entry() const { return fn_; }
  const std::vector<ArgType> &signature() const { return signature_; }

private:
  std::string name_;
  LaunchFn fn_;
  std::vector<ArgType> signature_;
};

/// A loaded shared object; closing it (destruction) invalidates its kernels.
class Module {
public:
  /// Opens `path`; a missing, unreadable or foreign file is an error, never a crash.
  static absl::StatusOr<std::unique_ptr<Module>> Open(const std::string &path);
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The kernel `name`, or NotFound naming the kernels the module does have.
  absl::StatusOr<Kernel> GetKernel(const std::string &name) const;
  /// Names of the kernels in the module.
  std::vector<std::string> KernelNames() const;
  const std::string &path() const { return path_; }

private:
  Module(void *handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void *handle_;
  std::string path_;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_MODULE_H
