//===- StructuredOps.td - the tts dialect (TritonStructured) -*- tablegen -*-===//
//
// Structured memory accesses in the sense of triton-shared's design: a tile of pointers
// described by offsets, strides and sizes instead of an opaque tensor of addresses, so that it
// lowers to a strided memref view.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_STRUCTURED_OPS_TD
#define TESSEL_STRUCTURED_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "compiler/dialect/triton/TritonTypes.td"

def TTS_Dialect : Dialect {
  let name = "tts";
  let cppNamespace = "::tessel::tts";
  let summary = "structured (strided) pointer tiles and their loads and stores";
  let dependentDialects = ["::tessel::tt::TTDialect"];
}

class TTS_Op<string mnemonic, list<Trait> traits = []> : Op<TTS_Dialect, mnemonic, traits>;

def TTS_MakeTensorPtrOp : TTS_Op<"make_tptr", [Pure, AttrSizedOperandSegments]> {
  let summary = "a tile of pointers described by offsets, strides and sizes";
  let description = [{
    ```
    %p = tts.make_tptr %base to sizes: [128, 64], strides: [%s, 1], offsets: [%o, 0],
         parent_sizes: [%m, 0] : !tt.ptr<f32> to tensor<128x64x!tt.ptr<f32>>
    ```
    Element (i, j) is `base + sum_d ((offsets[d] + i_d) mod parent_sizes[d]) * strides[d]`:
    along a dimension whose parent size is a static 0 there is no wrap-around; otherwise the
    index wraps around modulo the parent size *after* the offset is added (how `% M` on an
    offset row in Triton reads). With `order: [...]` the result is a block pointer
    (`!tt.ptr<tensor<...>>`, from `tt.make_tensor_ptr`) and `parent_sizes` is the parent
    tensor's shape, used for boundary checks.
  }];
  let arguments = (ins
    TT_Ptr:$base,
    DenseI64ArrayAttr:$sizes,
    Variadic<Index>:$strides,
    Variadic<Index>:$offsets,
    Variadic<Index>:$parent_sizes,
    DenseI64ArrayAttr:$static_strides,
    DenseI64ArrayAttr:$static_offsets,
    DenseI64ArrayAttr:$static_parent_sizes,
    OptionalAttr<DenseI32ArrayAttr>:$order);
  let results = (outs AnyTypeOf<[TT_PtrTensor, TT_TensorPtr]>:$result);
  let assemblyFormat = [{
    $base `to` `sizes` `` `:` $sizes
    `,` `strides` `` `:` custom<DynamicIndexList>($strides, $static_strides)
    `,` `offsets` `` `:` custom<DynamicIndexList>($offsets, $static_offsets)
    `,` `parent_sizes` `` `:` custom<DynamicIndexList>($parent_sizes, $static_parent_sizes)
    (`,` `order` `` `:` $order^)?
    attr-dict `:` qualified(type($base)) `to` type($result)
  }];
  let extraClassDeclaration = [{
    /// Mixed static/dynamic values, one per dimension.
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedStrides();
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedOffsets();
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedParentSizes();
    /// True when the result is a block pointer (made from tt.make_tensor_ptr).
    bool isBlockPointer() { return getOrder().has_value(); }
  }];
  let hasVerifier = 1;
}

def TTS_LoadOp : TTS_Op<"load", [
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead]>,
    TypesMatchWith<"other is the loaded element type", "ptr", "other",
                   "::mlir::getElementTypeOrSelf(::tessel::tt::getLoadedType($_self))",
                   // `other` is the only non-index operand after ptr; absent, nothing to check.
                   "($_op.getNumOperands() == 1 || $_op.getOperand($_op.getNumOperands() - 1)"
                   ".getType().isIndex()) || std::equal_to<>()">]> {
  let summary = "load a structured tile, masked to a leading sub-block";
  let description = [{
    `tts.load %p mask: [%rows, 64] other = %zero : tensor<128x64x!tt.ptr<f32>> ->
    tensor<128x64xf32>` reads the first `mask[d]` elements along each dimension d and fills
    the rest with `other` (undefined without it). No `mask:` reads the whole tile.
  }];
  let arguments = (ins
    AnyTypeOf<[TT_PtrTensor, TT_TensorPtr]>:$ptr,
    Variadic<Index>:$mask_dims,
    DefaultValuedAttr<DenseI64ArrayAttr, "::llvm::ArrayRef<int64_t>{}">:$static_mask_dims,
    Optional<AnyTypeOf<[TT_Float, TT_Int]>>:$other);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $ptr custom<MaskDims>($mask_dims, $static_mask_dims) (`other` `=` $other^)?
    attr-dict `:` type($ptr) `->` type($result)
  }];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedMaskDims();
    bool hasMask() { return !getStaticMaskDims().empty(); }
  }];
  let hasVerifier = 1;
}

def TTS_StoreOp : TTS_Op<"store", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is what ptr points to", "ptr", "value",
                   "::tessel::tt::getLoadedType($_self)">]> {
  let summary = "store a structured tile, masked to a leading sub-block";
  let arguments = (ins
    AnyTypeOf<[TT_PtrTensor, TT_TensorPtr]>:$ptr,
    TT_Tensor:$value,
    Variadic<Index>:$mask_dims,
    DefaultValuedAttr<DenseI64ArrayAttr, "::llvm::ArrayRef<int64_t>{}">:$static_mask_dims);
  let assemblyFormat = [{
    $ptr `,` $value custom<MaskDims>($mask_dims, $static_mask_dims) attr-dict `:` type($ptr)
  }];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedMaskDims();
    bool hasMask() { return !getStaticMaskDims().empty(); }
  }];
  let hasVerifier = 1;
}

#endif // TESSEL_STRUCTURED_OPS_TD
