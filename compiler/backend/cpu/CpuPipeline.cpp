//===- CpuPipeline.cpp - the CPU backend's pass pipeline ------------*- C++ -*-===//
//
// From the structured lowering's output (tensors and memrefs, linalg, scf) to the LLVM
// dialect: tessel's CPU passes (Passes.td) between MLIR's bufferization and conversions.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"
#include "compiler/conversion/narrow_floats/NarrowFloatLowering.h"

#include "mlir/Pass/PassRegistry.h"

#include <string>

std::string tessel::cpuPipeline(const CpuKnobs &knobs, bool fastExp,
                                const SixteenBitExpansion &sixteenBit) {
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string pipeline;
  auto add = [&](const std::string &step) {
    pipeline += (pipeline.empty() ? "" : ",") + step;
  };
  add("tessel-cpu-drop-triton-attributes");
  add("tessel-cpu-lower-prints");
  // Tiles and vectors by the knobs, before elementwise fusion changes the ops.
  add("tessel-cpu-tile-matmuls{tile-m=" + n(knobs.matmulTileM) + " tile-n=" +
      n(knobs.matmulTileN) + " tile-k=" + n(knobs.matmulTileK) + "}");
  add("tessel-cpu-vectorize-elementwise{vector-width=" + n(knobs.vectorWidth) +
      " unroll=" + n(knobs.unroll) + "}");
  // Elementwise producers (splats, sub, exp, ...) fuse into their consumers: one pass over a
  // tile instead of one per op.
  add("linalg-fuse-elementwise-ops,canonicalize");
  add("tessel-cpu-reduce-by-lanes");
  add("tessel-cpu-fuse-tile-passes");
  add("tessel-cpu-reuse-dead-inputs");
  // Bufferize; tile buffers out of loops, then onto the stack (no malloc per program) up to
  // 64 KiB.
  add("one-shot-bufferize{bufferize-function-boundaries=true "
      "function-boundary-type-conversion=identity-layout-map "
      "allow-return-allocs-from-loops=true}");
  add("canonicalize,cse");
  add("func.func(buffer-hoisting,buffer-loop-hoisting,"
      "promote-buffers-to-stack{max-alloc-size-in-bytes=65536})");
  add("tessel-cpu-deallocate-heap-buffers");
  add("tessel-cpu-load-tiles-by-vectors");
  add("tessel-cpu-copies-to-linalg");
  add("tessel-cpu-prefetch-next-programs{distance=" + n(knobs.prefetch) + "}");
  add("tessel-cpu-align-tile-buffers");
  add("tessel-cpu-lower-generic-atomics");
  add("convert-linalg-to-loops");
  add("convert-vector-to-scf{full-unroll=true}");
  add("expand-strided-metadata,lower-affine,canonicalize,cse");
  add(std::string("tessel-cpu-approximate-math{fast-exp=") + (fastExp ? "true" : "false") +
      "}");
  // Math on 16- and 8-bit floats in f32 (as LLVM would do it, with a conversion back that may
  // be a compiler-rt call). 8-bit floats, and the 16-bit ones the target CPU cannot convert in
  // hardware: arithmetic on them as f32, conversions as integer arithmetic, so that no artifact
  // calls __truncsfbf2 and the like (a fresh machine has no library that defines them, and a
  // call per element would not vectorize).
  add("math-extend-to-supported-types{target-type=f32}");
  add(narrowFloatLowering(sixteenBit));
  add("tessel-cpu-add-launch-entries");
  add("convert-scf-to-cf");
  add("finalize-memref-to-llvm");
  add("convert-vector-to-llvm{vector-contract-lowering=outerproduct "
      "reassociate-fp-reductions=true}");
  add("convert-math-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,convert-ub-to-llvm");
  add("convert-cf-to-llvm,convert-func-to-llvm");
  add("reconcile-unrealized-casts,canonicalize");
  return pipeline;
}

namespace {

struct CpuPipelineOptions : mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<int64_t> tileM{*this, "tile-m", llvm::cl::init(4)};
  Option<int64_t> tileN{*this, "tile-n", llvm::cl::init(64)};
  Option<int64_t> tileK{*this, "tile-k", llvm::cl::init(1)};
  Option<int64_t> vectorWidth{*this, "vector-width", llvm::cl::init(0)};
  Option<int64_t> unroll{*this, "unroll", llvm::cl::init(1)};
  Option<int64_t> prefetch{*this, "prefetch", llvm::cl::init(0)};
  Option<bool> fastExp{*this, "fast-exp", llvm::cl::init(false)};
  Option<bool> expandF16{*this, "expand-f16", llvm::cl::init(false)};
  Option<bool> expandBF16{*this, "expand-bf16", llvm::cl::init(false)};
};

} // namespace

void tessel::registerCpuPipeline() {
  mlir::PassPipelineRegistration<CpuPipelineOptions>(
      "tessel-cpu-pipeline",
      "The CPU backend: structured lowering output to the LLVM dialect with launch entries",
      [](mlir::OpPassManager &pm, const CpuPipelineOptions &o) {
        CpuKnobs knobs;
        knobs.matmulTileM = o.tileM;
        knobs.matmulTileN = o.tileN;
        knobs.matmulTileK = o.tileK;
        knobs.vectorWidth = o.vectorWidth;
        knobs.unroll = o.unroll;
        knobs.prefetch = o.prefetch;
        // The pipeline text is built here and cannot be malformed; a failure is reported by
        // the pass manager as an empty pipeline's error.
        SixteenBitExpansion sixteenBit;
        sixteenBit.f16 = o.expandF16;
        sixteenBit.bf16 = o.expandBF16;
        sixteenBit.fromF64 = true;
        (void)mlir::parsePassPipeline(cpuPipeline(knobs, o.fastExp, sixteenBit), pm);
      });
}
