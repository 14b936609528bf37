//===- Membar.h - which block barriers order conflicting memory accesses -*- C++ -*-===//
//
// A barrier (gpu.barrier) is needed where an access before it, since the previous barrier,
// conflicts with an access after it, up to the next barrier: a write and a read or a write of
// the same shared buffer, or of global memory (one thread's store another thread loads). The
// accesses are the ops' declared memory effects, each memref traced through views and casts to
// its buffer: a workgroup attribution, a workgroup global, the dynamic shared-memory arena (one
// buffer: its views are not told apart), private memory (never a conflict) or global memory.
// An op with undeclared effects (a call, an NVVM op other than mma.sync) reads and writes all
// memory; wgmma (nvvm.wgmma.mma_async and inline assembly marked kRegistersOnlyAttr) and
// its wait read all shared memory (the operand tiles through descriptors, until the wait)
// and write registers only; its fence and commit access nothing. Control flow is followed conservatively: an op with regions counts with everything
// inside it (its own barriers do not stop the scan), a loop's body wraps around to its start
// and end (the previous or next iteration), ifs and execute_regions are passed through.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_ANALYSIS_MEMBAR_H
#define TESSEL_COMPILER_ANALYSIS_MEMBAR_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace tessel {

/// Marks tessel's own inline assembly that runs a wgmma (A from registers): it writes
/// registers only and reads shared memory as nvvm.wgmma.mma_async does, although it declares
/// side effects (which keep it in order with the wgmma fences and waits).
inline constexpr llvm::StringLiteral kRegistersOnlyAttr = "tessel.registers_only";

/// Whether `barrier` orders two conflicting accesses (given the other barriers as they are).
bool barrierNeeded(mlir::gpu::BarrierOp barrier);

/// Removes the barriers of `func` that order no conflicting accesses, one at a time in program
/// order (each decided with the barriers still there); returns how many it removed.
int removeRedundantBarriers(mlir::FunctionOpInterface func);

} // namespace tessel

#endif // TESSEL_COMPILER_ANALYSIS_MEMBAR_H
