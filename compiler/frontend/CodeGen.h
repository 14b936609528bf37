//===- CodeGen.h - Triton-language kernels to tt IR -*- C++ -*-===//
//
// Generates the tt IR of one kernel (a @triton.jit function of a parsed module) specialized
// for given constexpr values and argument types, as Triton does when it compiles a kernel for
// a launch: constexpr parameters are baked in, called jit functions are inlined, loops become
// scf.for / scf.while carrying the variables they reassign, dynamic ifs become scf.if.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_CODEGEN_H
#define TESSEL_COMPILER_FRONTEND_CODEGEN_H

#include "compiler/frontend/Ast.h"

#include "absl/status/statusor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>
#include <vector>

namespace tessel::frontend {

/// Which kernel to generate and how to specialize it.
struct KernelSpec {
  std::string entry;
  /// Values of constexpr parameters (and of plain parameters to bake in, as Triton does for
  /// integers equal to 1): "128", "1.5", "True", "float16" / "tl.float16" / "fp16".
  std::map<std::string, std::string> constexprs;
  /// Types of the remaining parameters in order, in Triton's signature syntax: "*fp32",
  /// "*bf16", "i32", "i64", "u32", "fp32", "i1"; a ":16" suffix marks the value (pointer
  /// address or integer) divisible by 16, as Triton's specialization does.
  std::vector<std::string> signature;
  /// Keep device assertions (tl.device_assert, `assert` on runtime values); like Triton's
  /// debug mode. Off: they are dropped, as Triton drops them.
  bool debug = false;
};

/// The tt module holding the specialized kernel (a public tt.func named after the entry) and
/// the functions it calls that are not inlined. Errors: "file:line:col: error: ..." with the
/// source line and a caret.
absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>>
GenerateKernel(mlir::MLIRContext &context, const SourceFile &file, const Module &module,
               const KernelSpec &spec);

/// Parses a signature list "*fp32:16,i32,fp32" into entries (commas and spaces inside a type's
/// brackets, as in tensordesc<fp16[64, 64]>, stay in the entry; other spaces go).
std::vector<std::string> SplitSignature(const std::string &text);

/// A tensor-descriptor signature entry, tensordesc<DTYPE[B0,B1,...]> (a layout after the block
/// shape is allowed and ignored): its element type and block shape (powers of two, at most 5
/// dimensions and 2^20 elements); ok false when it is not one. A kernel takes such a
/// descriptor as its base pointer, then its shape (an i32 a dimension), then its strides (an
/// i64 a dimension).
struct TensorDescType {
  bool ok = false;
  std::string dtype;
  std::vector<int64_t> block;
};
TensorDescType parseTensorDescType(const std::string &text);

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_CODEGEN_H
