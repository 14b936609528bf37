//===- Passes.h - the CUDA backend's passes and its pipeline -------*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_PASSES_H
#define TESSEL_COMPILER_BACKEND_CUDA_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

#include <string>

namespace tessel {

#define GEN_PASS_DECL
#include "compiler/backend/cuda/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/backend/cuda/Passes.h.inc"

/// The cuda pipeline from the structured lowering's output to a gpu.module of NVVM/LLVM
/// dialect kernels with bare-pointer entries (textual, as tessel-opt runs it).
std::string cudaPipeline(int64_t numWarps);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CUDA_PASSES_H
