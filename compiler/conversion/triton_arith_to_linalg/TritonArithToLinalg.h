//===- TritonArithToLinalg.h - tt functions and tensor math to linalg -*- C++ -*-===//
//
// The pieces of the triton-arith-to-linalg pass, usable on their own.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_CONVERSION_TRITON_ARITH_TO_LINALG_TRITONARITHTOLINALG_H
#define TESSEL_COMPILER_CONVERSION_TRITON_ARITH_TO_LINALG_TRITONARITHTOLINALG_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace tessel {

/// Number of trailing i32 arguments every converted function gets: program id x, y, z, then the
/// number of programs along x, y, z.
inline constexpr unsigned kNumGridArguments = 6;

/// On a linalg.matmul of f32 operands: its tt.dot allowed tf32 (`input_precision="tf32"`,
/// Triton's default), so a GPU may multiply the operands rounded to tf32 on tensor cores. A
/// matmul without it is computed in full f32.
inline constexpr llvm::StringLiteral kTf32Attr = "tessel.tf32";

/// Rewrites every tt.func in `module` as a func.func with the grid arguments appended,
/// tt.return as func.return, tt.call as func.call forwarding the caller's grid arguments, and
/// tt.get_program_id/tt.get_num_programs as uses of those arguments.
mlir::LogicalResult convertTritonFunctions(mlir::ModuleOp module);

/// Patterns for shape ops (splat, make_range, broadcast, expand_dims, reshape, trans, join,
/// split, cat) and tt elementwise math on non-pointer tensors.
void populateTensorOpConversionPatterns(mlir::RewritePatternSet &patterns);

/// Patterns for tt.dot, tt.reduce, tt.scan, tt.histogram, tt.gather and tt.assert.
void populateComputeOpConversionPatterns(mlir::RewritePatternSet &patterns);

} // namespace tessel

#endif // TESSEL_COMPILER_CONVERSION_TRITON_ARITH_TO_LINALG_TRITONARITHTOLINALG_H
