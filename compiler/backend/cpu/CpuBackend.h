//===- CpuBackend.h - memref/linalg IR to native code for the host -*- C++ -*-===//
//
// The `cpu` backend (registered in compiler/backend/Registry.cpp): takes the structured
// pipeline's output (func.func kernels over memrefs and tensors, program ids and grid sizes as
// six trailing arguments, which this backend keeps), runs its pass pipeline (Passes.td,
// CpuPipeline.cpp) to the LLVM dialect with a launch entry point per kernel, and emits LLVM
// IR, assembly, an object file or a shared object (the artifact the runtime loads).
//
// Kernel ABI: for a kernel `k`, the shared object exports
//   void k__tessel_launch(const uint64_t *args, int32_t begin, int32_t end,
//                         int32_t gridX, int32_t gridY, int32_t gridZ);
// which runs programs begin..end-1 (linear ids; x fastest). `args` holds one 8-byte slot per
// kernel argument: a pointer, or a scalar in the slot's low bytes. `k__tessel_signature` names
// the argument types so that the runtime can check a launch.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_CPUBACKEND_H
#define TESSEL_COMPILER_BACKEND_CPU_CPUBACKEND_H

#include "compiler/backend/Backend.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace llvm {
class Module;
}

namespace tessel {

/// Suffix of the exported launch entry point of every kernel.
inline constexpr const char *kLaunchSuffix = "__tessel_launch";
/// Suffix of the exported NUL-terminated argument signature of every kernel, e.g.
/// "ptr:f32,ptr:f32,i32".
inline constexpr const char *kSignatureSuffix = "__tessel_signature";
/// The marker call PrefetchMarkers.cpp leaves for PrefetchPlacement.cpp.
inline constexpr const char *kPrefetchMarker = "__tessel_prefetch";
inline constexpr int64_t kCacheLineBytes = 64;

/// The registered CPU backend.
const Backend &cpuBackend();

/// How LLVM generates code for a cpu Target. Empty fields mean "this machine".
struct CpuTarget {
  std::string triple;
  /// LLVM CPU name (e.g. "skylake-avx512", "znver3", "x86-64-v3"); empty: the host CPU.
  std::string cpu;
  /// LLVM feature string (e.g. "+avx2,+fma"); empty: the host's features when `cpu` is empty.
  std::string features;
  /// LLVM optimization level, 0..3.
  unsigned optLevel = 3;
};

/// The LLVM view of a cpu Target: its CPU name and the LLVM feature flags among its features
/// (entries with a leading + or -); a non-empty arch other than this machine's names the
/// triple.
CpuTarget toCpuTarget(const Target &target);

/// The target with empty fields filled in from the host.
CpuTarget resolveCpuTarget(const CpuTarget &target);

/// Whether `target` (empty fields: the host) has an LLVM feature such as "avx512f".
bool cpuTargetHasFeature(const CpuTarget &target, const std::string &feature);

/// Whether LLVM knows `target`'s CPU name (an empty name: the host, always known).
bool cpuTargetIsKnown(const CpuTarget &target);

/// The x86 features (as /proc/cpuinfo names them) that `target`'s CPU has and LLVM generates
/// code for: what a bundle built for it needs of the machine that loads it.
std::vector<std::string> cpuinfoFeatures(const CpuTarget &target);

/// Translates an LLVM-dialect module to LLVM IR, optimizes it for `target`, runs the LLVM IR
/// steps below and returns textual IR, assembly or an object file (CpuCodeGen.cpp).
enum class CpuEmitKind { LLVMIR, Assembly, Object };
absl::StatusOr<std::string> emitCpuCode(mlir::ModuleOp module, const CpuTarget &target,
                                        CpuEmitKind kind);

/// Links an object file into a shared object at `outputPath`, written atomically
/// (SharedObjectLinker.cpp).
absl::Status linkSharedObject(const std::string &objectBytes, const std::string &outputPath);

// LLVM IR steps, each in its own file; emitCpuCode runs them around LLVM's pipeline.

/// Before the pipeline: the prefetch marker touches no visible memory (PrefetchPlacement.cpp).
void declarePrefetchMarker(llvm::Module &module);
/// After the pipeline: markers become prefetches spread over the busiest loop
/// (PrefetchPlacement.cpp).
void placePrefetches(llvm::Module &module);
/// Before the pipeline: each launch entry's kernel is always inlined into its program loop
/// (InlineKernels.cpp).
void inlineKernelsIntoLaunchEntries(llvm::Module &module);
/// After the pipeline: horizontal min/max reductions as trees of vector ops
/// (TreeReductions.cpp).
void treeMinMaxReductions(llvm::Module &module);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CPU_CPUBACKEND_H
