//===- TritonDialect.td - the tt dialect (Triton IR) -------*- tablegen -*-===//
//
// The dialect Triton's frontend prints (TTIR). Its textual syntax is a compatibility contract:
// IR dumped by Triton 3.x parses, verifies and prints back unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRITON_DIALECT_TD
#define TESSEL_TRITON_DIALECT_TD

include "mlir/IR/OpBase.td"

def TT_Dialect : Dialect {
  let name = "tt";
  let cppNamespace = "::tessel::tt";
  let summary = "Triton IR: tile-level kernels over tensors of pointers";
  let description = [{
    Kernels operate on tensors (tiles) of values and of pointers; a program instance is one
    point of a launch grid (`tt.get_program_id`). Memory is reached through `!tt.ptr<T>`
    values, tensors of them, or block pointers (`!tt.ptr<tensor<...>>`).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect",
  ];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class TT_Op<string mnemonic, list<Trait> traits = []> : Op<TT_Dialect, mnemonic, traits>;

#endif // TESSEL_TRITON_DIALECT_TD
