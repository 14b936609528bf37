//===- TritonTypes.td - tt types and type constraints ------*- tablegen -*-===//

#ifndef TESSEL_TRITON_TYPES_TD
#define TESSEL_TRITON_TYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "compiler/dialect/triton/TritonDialect.td"

/// `!tt.ptr<T>` or `!tt.ptr<T, addrspace>`; the address space defaults to 1 (global memory)
/// and is printed only when it differs. `!tt.ptr<tensor<...>>` is a block pointer.
def TT_PointerType : TypeDef<TT_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "pointer to a scalar, or to a tensor (block pointer)";
  let parameters = (ins "::mlir::Type":$pointeeType, "int":$addressSpace);
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Constraints
//===----------------------------------------------------------------------===//

def TT_Float : AnyTypeOf<[F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, F16, BF16, F32, F64],
                         "floating-point">;
def TT_FloatTensor : RankedTensorOf<[TT_Float]>;
def TT_FloatLike : AnyTypeOf<[TT_Float, TT_FloatTensor]>;

def TT_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
def TT_IntTensor : RankedTensorOf<[TT_Int]>;
def TT_IntLike : AnyTypeOf<[TT_Int, TT_IntTensor]>;
def TT_I32Like : AnyTypeOf<[I32, RankedTensorOf<[I32]>]>;
def TT_I64Like : AnyTypeOf<[I64, RankedTensorOf<[I64]>]>;
def TT_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;

def TT_IsScalarPtr : CPred<"::tessel::tt::isScalarPointer($_self)">;
def TT_IsTensorPtr : CPred<"::tessel::tt::isBlockPointer($_self)">;

def TT_Ptr : Type<TT_IsScalarPtr, "pointer to a scalar", "::tessel::tt::PointerType">;
def TT_PtrTensor : RankedTensorOf<[TT_Ptr]>;
def TT_PtrLike : AnyTypeOf<[TT_Ptr, TT_PtrTensor]>;
/// A block pointer: `!tt.ptr<tensor<...>>`.
def TT_TensorPtr : Type<TT_IsTensorPtr, "block pointer", "::tessel::tt::PointerType">;

def TT_Tensor : RankedTensorOf<[TT_Float, TT_Int, TT_Ptr]>;
def TT_Scalar : AnyTypeOf<[TT_Float, TT_Int, TT_Ptr]>;
def TT_Type : AnyTypeOf<[TT_Scalar, TT_Tensor, TT_TensorPtr]>;
/// What tt.load reads through / tt.store writes through.
def TT_LoadStorePtr : AnyTypeOf<[TT_Ptr, TT_PtrTensor, TT_TensorPtr]>;

#endif // TESSEL_TRITON_TYPES_TD
