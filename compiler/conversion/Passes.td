//===- Passes.td - tessel's conversion passes ---------------*- tablegen -*-===//
//
// The structured lowering, in pipeline order. Each pass is usable alone from tessel-opt and
// through its create function.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_CONVERSION_PASSES_TD
#define TESSEL_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TritonToStructured : Pass<"triton-to-structured", "::mlir::ModuleOp"> {
  let summary = "Turn provably strided tt pointer tiles into tts.make_tptr/tts.load/tts.store";
  let description = [{
    Analyses how tensors of pointers are built (tt.splat, tt.addptr, tt.make_range,
    tt.expand_dims, tt.broadcast, arith on offsets, `%` for wrap-around, block pointers) and how
    masks are built (range comparisons, and/or, broadcasts), and rewrites the loads and stores it
    can prove structured. Loop-carried pointers become loop-carried offsets. Anything it cannot
    prove stays as tt ops with a remark; the pass never fails on valid IR.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::tessel::tts::TTSDialect",
  ];
}

def TritonArithToLinalg : Pass<"triton-arith-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower tt functions and tensor computations to func, linalg and tensor";
  let description = [{
    tt.func becomes func.func with six trailing i32 arguments (program id x, y, z and number
    of programs x, y, z) that tt.get_program_id/tt.get_num_programs read and tt.call forwards.
    They carry no launch ABI: each backend decides what they are (compiler/backend/Backend.h).
    The cpu backend keeps them as arguments that its launch entry fills per program; a GPU
    backend maps them to block ids and grid sizes.
    Tensor computations (elementwise arith/math, splat, broadcast, expand_dims, reshape,
    trans, join, split, cat, make_range, dot, reduce, scan, histogram, gather, ...) become
    linalg/tensor/scf ops. Memory accesses (tts.*, leftover tt.load/tt.store/atomics) and
    pointer arithmetic are left for structured-to-memref.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def StructuredToMemref : Pass<"structured-to-memref", "::mlir::ModuleOp"> {
  let summary = "Lower pointers and memory accesses to memrefs";
  let description = [{
    !tt.ptr function arguments become memrefs; tts.make_tptr becomes memref.reinterpret_cast
    (two of them, and two copies, for wrap-around); masked tts.load/tts.store become subviews and
    copies; scalar and leftover (gather/scatter) tt.load/tt.store/atomics become memref accesses
    in per-element loops. A scalar tt.int_to_ptr is a root of its own: a memref descriptor
    built from the address (LLVM dialect ops behind an unrealized cast, which the lowering to
    LLVM folds away). No tt or tts op is left.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ExpandNarrowFloats : Pass<"tessel-expand-narrow-floats"> {
  let summary = "Conversions to and from narrow floats as integer arithmetic";
  let description = [{
    arith.truncf to f8E5M2, f8E4M3FN, f8E5M2FNUZ or f8E4M3FNUZ (from f16, bf16, f32 or f64) and
    arith.extf from them become integer operations on the bits, with Triton's semantics on
    NVIDIA (cvt.rn.satfinite): round to nearest even (toward zero with
    `roundingmode = toward_zero`), overflow and infinities saturate to the largest finite value,
    NaN stays NaN, FNUZ formats have no negative zero. Run it after
    arith-emulate-unsupported-floats, which turns arithmetic on these types into f32 arithmetic
    between such conversions; what remains (loads, stores, selects, constants) is i8 to LLVM.

    With the options, conversions to f16 and bf16 (and from f16) are expanded too, with IEEE
    semantics (to nearest even, overflow to infinity; toward zero, to the largest finite
    value): the CPU backend asks for those its target has no instructions for, which LLVM
    would otherwise turn into compiler-rt calls that a kernel's shared object cannot resolve.
  }];
  let options = [
    Option<"f16", "f16", "bool", /*default=*/"false",
           "Also expand f32 -> f16 and f16 -> f32 (a CPU without F16C)">,
    Option<"bf16", "bf16", "bool", /*default=*/"false",
           "Also expand f32 -> bf16 and bf16 -> f32 (a CPU without AVX512-BF16)">,
    Option<"fromF64", "from-f64", "bool", /*default=*/"false",
           "Also expand f64 -> f16 and f64 -> bf16 (no x86 instruction does them)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // TESSEL_CONVERSION_PASSES_TD
