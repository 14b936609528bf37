//===- TritonDialect.h - the tt dialect (Triton IR) -------------*- C++ -*-===//
//
// Types, attributes and operations of the tt dialect, whose textual form is the one Triton 3.x
// prints. Include this header to use any of them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_DIALECT_TRITON_TRITONDIALECT_H
#define TESSEL_COMPILER_DIALECT_TRITON_TRITONDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "compiler/dialect/triton/TritonDialect.h.inc"
#include "compiler/dialect/triton/TritonEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialect/triton/TritonTypes.h.inc"

namespace tessel::tt {

/// The tt dialect (ODS names the class after the dialect's namespace, `tt`).
using TritonDialect = TTDialect;

/// True for `!tt.ptr<T>` where T is not a tensor.
bool isScalarPointer(mlir::Type type);
/// True for a block pointer, `!tt.ptr<tensor<...>>`.
bool isBlockPointer(mlir::Type type);
/// True for a scalar pointer or a ranked tensor of them.
bool isPointerLike(mlir::Type type);
/// True when `type`, or its element type, is any `!tt.ptr` (block pointers included).
bool hasPointerElements(mlir::Type type);

/// The type tt.load yields from `ptrLike`: `T` for `!tt.ptr<T>`, `tensor<S x T>` for
/// `tensor<S x !tt.ptr<T>>` and for `!tt.ptr<tensor<S x T>>`. Null for anything else.
mlir::Type getLoadedType(mlir::Type ptrLike);

/// `i1` with the shape of `type`: `i1` for a scalar, `tensor<S x i1>` for a tensor or block
/// pointer of shape S.
mlir::Type getMaskType(mlir::Type type);

/// For a block pointer `!tt.ptr<tensor<S x T>, a>`, the scalar pointer `!tt.ptr<T, a>`.
mlir::Type getBlockBaseType(mlir::Type blockPtr);

/// The shape of a ranked tensor or of the tensor a block pointer points to; empty for scalars.
llvm::ArrayRef<int64_t> getShapeOf(mlir::Type type);

} // namespace tessel::tt

#define GET_OP_CLASSES
#include "compiler/dialect/triton/TritonOps.h.inc"

#endif // TESSEL_COMPILER_DIALECT_TRITON_TRITONDIALECT_H
