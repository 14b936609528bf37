//===- Passes.h - tessel's conversion passes ---------------------*- C++ -*-===//
//
// The three passes of the structured lowering (triton-to-structured, triton-arith-to-linalg,
// structured-to-memref) and their registration with tessel-opt.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_CONVERSION_PASSES_H
#define TESSEL_COMPILER_CONVERSION_PASSES_H

#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "compiler/conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/conversion/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_COMPILER_CONVERSION_PASSES_H
