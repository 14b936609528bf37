//===- Passes.h - the CPU backend's passes and its pipeline --------*- C++ -*-===//
//
// The passes declared in Passes.td (one per file, each with a lit test in test/), their
// registration with tessel-opt, and the pipeline that strings them together with MLIR's
// bufferization and LLVM lowering (CpuPipeline.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_PASSES_H
#define TESSEL_COMPILER_BACKEND_CPU_PASSES_H

#include "compiler/conversion/narrow_floats/NarrowFloatLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace tessel {

#define GEN_PASS_DECL
#include "compiler/backend/cpu/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/backend/cpu/Passes.h.inc"

/// Lowering knobs that matter for speed (the CPU backend's knobs, CpuBackend.cpp declares
/// their ranges and defaults); the autotuner sweeps them.
struct CpuKnobs {
  /// Register tile of the matmul micro-kernel: rows, columns (vector elements) and reduction
  /// depth; 0 rows: no tiling (loops that LLVM vectorizes on its own).
  int64_t matmulTileM = 4, matmulTileN = 64, matmulTileK = 1;
  /// Elementwise ops: vector width (0: LLVM's loop vectorizer) and rows per vector step.
  int64_t vectorWidth = 0, unroll = 1;
  /// Software prefetch of the blocks of the program `prefetch` ids ahead; 0: none.
  int64_t prefetch = 0;
};

/// The CPU pipeline from the structured lowering's output to the LLVM dialect, as the textual
/// pass pipeline tessel-opt runs (`--pass-pipeline='builtin.module(...)'` minus the anchor).
/// `fastExp`: the target has a one-instruction ldexp (AVX-512). `sixteenBit`: the f16 and bf16
/// conversions the target has no instructions for (cpuSixteenBitExpansion), expanded into
/// integer arithmetic.
std::string cpuPipeline(const CpuKnobs &knobs, bool fastExp,
                        const SixteenBitExpansion &sixteenBit);

/// Registers `tessel-cpu-pipeline` (options: the knobs and fast-exp) with tessel-opt.
void registerCpuPipeline();

/// Whether `block` (its terminator aside) is plain arithmetic: no op with regions or memory
/// effects. The rewrites move or clone only such bodies.
bool isPlainArithmetic(mlir::Block &block);

/// exp/exp2 on f32 as a polynomial and llvm.ldexp (FastExp.cpp).
void populateFastExpPatterns(mlir::RewritePatternSet &patterns);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CPU_PASSES_H
