//===- StructuredDialect.h - the tts dialect (TritonStructured) -*- C++ -*-===//
//
// Structured pointer tiles (`tts.make_tptr`) and their masked loads and stores, the
// intermediate form between Triton IR and strided memrefs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_DIALECT_STRUCTURED_STRUCTUREDDIALECT_H
#define TESSEL_COMPILER_DIALECT_STRUCTURED_STRUCTUREDDIALECT_H

#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/structured/StructuredDialect.h.inc"

namespace tessel::tts {
/// The tts dialect (ODS names the class after the dialect's namespace, `tts`).
using StructuredDialect = TTSDialect;
} // namespace tessel::tts

#define GET_OP_CLASSES
#include "compiler/dialect/structured/StructuredOps.h.inc"

#endif // TESSEL_COMPILER_DIALECT_STRUCTURED_STRUCTUREDDIALECT_H
