//===- Passes.h - the rocm backend's passes ------------------------*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_ROCM_PASSES_H
#define TESSEL_COMPILER_BACKEND_ROCM_PASSES_H

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace tessel {

#define GEN_PASS_DECL
#include "compiler/backend/rocm/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/backend/rocm/Passes.h.inc"

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_ROCM_PASSES_H
