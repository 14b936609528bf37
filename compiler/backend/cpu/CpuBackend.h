//===- CpuBackend.h - memref/linalg IR to native code for the host -*- C++ -*-===//
//
// Takes the structured pipeline's output (func.func kernels over memrefs and tensors),
// bufferizes it, lowers it to the LLVM dialect with a launch entry point per kernel, and emits
// LLVM IR, assembly, an object file or a shared object.
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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

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

/// Where and how to generate code. Empty fields mean "this machine".
struct CpuTarget {
  std::string triple;
  /// LLVM CPU name (e.g. "skylake-avx512", "znver3", "x86-64-v3"); empty: the host CPU.
  std::string cpu;
  /// LLVM feature string (e.g. "+avx2,+fma"); empty: the host's features when `cpu` is empty.
  std::string features;
  /// LLVM optimization level, 0..3.
  unsigned optLevel = 3;
};

/// Lowering knobs that matter for speed; the autotuner sweeps them.
struct CpuKnobs {
  /// Register tile of the matmul micro-kernel: rows (1..16), columns (vector elements,
  /// 8..128) and reduction depth (1..4) of the tile one vectorized step computes; a dimension
  /// that does not divide the block is halved until it does. 0 rows: no tiling (loops that
  /// LLVM vectorizes on its own). Default: the best of a sweep on an AVX-512 machine (see
  /// benchmarks/cpu_kernels_benchmark).
  int64_t matmulTileM = 4, matmulTileN = 64, matmulTileK = 1;
  /// Elementwise ops (linalg ops with only parallel loops): vector width along the innermost
  /// dimension (elements, 4..64) and unroll factor along the next one (rows, 1..8); halved
  /// until they divide the tile. 0 width (the default: no faster in the benchmark sweep):
  /// leave them to LLVM's loop vectorizer.
  int64_t vectorWidth = 0, unroll = 1;
  /// Software prefetch of the blocks the program `prefetch` program ids ahead will load and
  /// store, spread over this program's busiest loop (Prefetch.cpp); 0: none.
  int64_t prefetch = 0;
};

/// Sets the knob that a sweep configuration names `knob.<name>`: tile_m, tile_n, tile_k (the
/// matmul register tile), vector_width, unroll, prefetch. False for another name.
bool setKnob(CpuKnobs &knobs, const std::string &name, int64_t value);

/// The target with empty fields filled in from the host.
CpuTarget resolveCpuTarget(const CpuTarget &target);

/// Lowers `module` (structured pipeline output) to the LLVM dialect for `target`, adding a
/// launch entry point per public kernel. Diagnostics go to the context's handler.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module, const CpuKnobs &knobs = {},
                                       const CpuTarget &target = {});

/// Whether `target` (empty fields: the host) has an LLVM feature such as "avx512f".
bool cpuTargetHasFeature(const CpuTarget &target, const std::string &feature);

/// Whether LLVM knows `target`'s CPU name (an empty name: the host, always known).
bool cpuTargetIsKnown(const CpuTarget &target);

/// memref.generic_atomic_rmw (from tt.atomic_cas) as a compare-and-swap loop on the element's
/// address (GenericAtomics.cpp).
void lowerGenericAtomics(mlir::ModuleOp module);

/// Whether `block` (its terminator aside) is plain arithmetic: no op with regions or memory
/// effects. The rewrites below move or clone only such bodies.
bool isPlainArithmetic(mlir::Block &block);

/// Reductions of several operands (argmax) over a 1-D tensor, lane by lane so that LLVM
/// vectorizes them (LaneReductions.cpp).
void reduceByLanes(mlir::ModuleOp module);

/// Fewer passes over a tile (Fusion.cpp): an elementwise producer and a reduction of its
/// result become one op (with both results where the producer's result has other users); an
/// elementwise result that is only stored is computed straight into the store's destination.
void fuseTilePasses(mlir::ModuleOp module);

/// A masked load into a 1-D tile buffer (fill of the rest, copy of the valid prefix) as one
/// loop of vector-wide masked loads and stores, instead of memcpy and a fill (TileLoads.cpp).
void loadTilesByVectors(mlir::ModuleOp module);

/// Marks, in each kernel, the blocks of the program `distance` program ids ahead for
/// prefetching (Prefetch.cpp); after the LLVM optimization pipeline, placePrefetches turns the
/// marks into prefetches inside the busiest loop. declarePrefetchMarker, before that pipeline,
/// tells LLVM that the marks touch no visible memory.
void prefetchNextPrograms(mlir::ModuleOp module, int64_t distance);
void declarePrefetchMarker(llvm::Module &module);
void placePrefetches(llvm::Module &module);

/// tt.print (tl.device_print) as printf calls, one line per element (Print.cpp).
void lowerPrints(mlir::ModuleOp module);

/// exp/exp2 on f32 as a polynomial and llvm.ldexp (FastExp.cpp): for targets where ldexp is
/// one instruction (AVX-512's vscalefps).
void populateFastExpPatterns(mlir::RewritePatternSet &patterns);

/// Translates an LLVM-dialect module to LLVM IR, optimizes it for `target` and returns
/// textual IR (`emitIR`), assembly or an object file. On failure returns an empty string and
/// sets `error`.
enum class CpuEmitKind { LLVMIR, Assembly, Object };
std::string emitCpuCode(mlir::ModuleOp module, const CpuTarget &target, CpuEmitKind kind,
                        std::string &error);

/// Links an object file into a shared object at `outputPath` (written atomically); returns an
/// empty string or an error message.
std::string linkSharedObject(const std::string &objectBytes, const std::string &outputPath);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CPU_CPUBACKEND_H
