//===- Target.h - where code runs: kind, architecture, features -*- C++ -*-===//
//
// The one description of a target, shared by the compiler (CompileOptions), the runtime
// (devices, bundles), records and the compile cache. A leaf: no LLVM, no MLIR, no runtime code,
// so that the compiler may depend on it without depending on the runtime.
//
// Spelling (ParseTarget / Target::str):
//   cpu            this machine's CPU                 cpu:NAME   LLVM's CPU NAME (znver4, ...)
//   cuda           = cuda:sm_90                       cuda:sm_80 | sm_86 | sm_89 | sm_90 | sm_90a
//   rocm:gfx90a | rocm:gfx942 | rocm:gfx1100          (rocm has no default chip)
//
// Records and manifests write a target as {"kind", "arch", "features"[, "cpu"]}; a cpu target's
// arch is the machine architecture (x86_64) and its CPU name is "cpu", a GPU target's arch is
// the chip (sm_90a, gfx942).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_TARGET_TARGET_H
#define TESSEL_RUNTIME_TARGET_TARGET_H

#include "absl/status/statusor.h"

#include <string>
#include <vector>

namespace tessel {

enum class TargetKind { Cpu, Cuda, Rocm };

/// "cpu", "cuda", "rocm".
const char *TargetKindName(TargetKind kind);
/// The kind named `name`; "hip" is read as rocm (the runtime's device name for it).
absl::StatusOr<TargetKind> ParseTargetKind(const std::string &name);

struct Target {
  TargetKind kind = TargetKind::Cpu;
  /// cpu: the machine architecture (x86_64; empty: this machine's); cuda: sm_80 .. sm_90a;
  /// rocm: gfx90a, gfx942, gfx1100.
  std::string arch;
  /// cpu only: LLVM's name of the CPU the code is built for; empty: the building machine's.
  std::string cpu;
  /// cpu: the CPU features the code may use, as /proc/cpuinfo names them (avx512f, ...): a
  /// bundle is loaded only where all exist. A compile may instead pass LLVM feature flags
  /// (+avx2,-avx512f: a leading sign), which the CPU backend hands to LLVM.
  std::vector<std::string> features;

  /// This machine: kind cpu, its architecture and CPU flags.
  static Target Host();

  /// "cpu", "cpu:znver4", "cuda:sm_90a", "rocm:gfx942" (what ParseTarget reads back).
  std::string str() const;
  /// The runtime device that runs this target's code: "cpu", "cuda" or "hip".
  std::string deviceKind() const;
  bool isGpu() const { return kind != TargetKind::Cpu; }

  bool operator==(const Target &other) const {
    return kind == other.kind && arch == other.arch && cpu == other.cpu &&
           features == other.features;
  }
};

/// What code built for `target` depends on, as compile cache keys spell it: kind, arch, CPU
/// name and features, with this machine's architecture and CPU flags for a cpu target that
/// names no CPU (code built for "this machine" differs between machines).
std::string CompileCacheTargetKey(const Target &target);

/// Parses `cpu[:NAME]`, `cuda[:sm_NN[a]]`, `rocm:gfxXXX`. A cpu target's arch is left empty
/// (this machine's); GPU chips must be ones tessel builds for. Errors name what is accepted.
absl::StatusOr<Target> ParseTarget(const std::string &text);

/// The CUDA and ROCm chips tessel builds for.
const std::vector<std::string> &CudaArchs();
const std::vector<std::string> &RocmArchs();

} // namespace tessel

#endif // TESSEL_RUNTIME_TARGET_TARGET_H
