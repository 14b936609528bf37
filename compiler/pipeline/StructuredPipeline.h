//===- StructuredPipeline.h - the structured lowering as one pipeline -*- C++ -*-===//
//
// Inlining (of functions not marked noinline), triton-to-structured, triton-arith-to-linalg and
// structured-to-memref, with canonicalization and CSE in between: tt IR in, memref/linalg/scf
// out, no tt op left.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_PIPELINE_STRUCTUREDPIPELINE_H
#define TESSEL_COMPILER_PIPELINE_STRUCTUREDPIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

namespace tessel {

/// Appends the structured lowering to `pm` (which runs on a builtin.module).
void buildStructuredPipeline(mlir::OpPassManager &pm);

/// Runs the structured lowering on `module`; diagnostics go to the context's handler.
mlir::LogicalResult runStructuredPipeline(mlir::ModuleOp module);

/// Registers `--tessel-structured-pipeline` with the pass registry (tessel-opt).
void registerStructuredPipeline();

} // namespace tessel

#endif // TESSEL_COMPILER_PIPELINE_STRUCTUREDPIPELINE_H
