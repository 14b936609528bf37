//===- PlainArithmetic.cpp - bodies the CPU rewrites may move or clone -*- C++ -*-===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

bool tessel::isPlainArithmetic(mlir::Block &block) {
  return llvm::all_of(block.without_terminator(), [](mlir::Operation &op) {
    return op.getNumRegions() == 0 && mlir::isMemoryEffectFree(&op);
  });
}
