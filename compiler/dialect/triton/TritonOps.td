//===- TritonOps.td - operations of the tt dialect ---------*- tablegen -*-===//
//
// Assembly formats follow what Triton 3.x prints, so that its TTIR dumps round-trip.
// tt.reduce and tt.scan have no custom format: Triton prints them in generic form.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRITON_OPS_TD
#define TESSEL_TRITON_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "compiler/dialect/triton/TritonDialect.td"
include "compiler/dialect/triton/TritonTypes.td"
include "compiler/dialect/triton/TritonAttrs.td"

/// The pointee of a pointer-like type, with the same shape (what tt.load yields).
class TT_LoadedFromPtr<string ptr, string res>
    : TypesMatchWith<res # " type is what " # ptr # " points to", ptr, res,
                     "::tessel::tt::getLoadedType($_self)">;

/// An i1 tensor (or i1) with the shape of a pointer-like type.
class TT_MaskFor<string ptr, string mask, int minOperands>
    : TypesMatchWith<mask # " is i1 with the shape of " # ptr, ptr, mask,
                     "::tessel::tt::getMaskType($_self)",
                     "($_op.getNumOperands() <= " # minOperands # ") || std::equal_to<>()">;

//===----------------------------------------------------------------------===//
// Functions and calls
//===----------------------------------------------------------------------===//

def TT_FuncOp : TT_Op<"func", [
    AffineScope, AutomaticAllocationScope, CallableOpInterface, FunctionOpInterface,
    IsolatedFromAbove, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a kernel or device function";
  let description = [{
    `tt.func public @k(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes
    {noinline = false} { ... }`. Public functions are kernels; private ones are device
    functions, called through `tt.call` when marked `noinline = true`.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::FunctionType":$type,
      CArg<"::llvm::ArrayRef<::mlir::NamedAttribute>", "{}">:$attrs,
      CArg<"::llvm::ArrayRef<::mlir::DictionaryAttr>", "{}">:$argAttrs)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return isExternal() ? nullptr : &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    bool isDeclaration() { return isExternal(); }
    /// True when the function carries `noinline = true`.
    bool isNoInline();
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def TT_CallOp : TT_Op<"call", [CallOpInterface,
                               DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call of a tt.func (kept for noinline callees)";
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let builders = [
    OpBuilder<(ins "::tessel::tt::FuncOp":$callee, CArg<"::mlir::ValueRange", "{}">:$operands), [{
      $_state.addOperands(operands);
      $_state.addAttribute("callee", ::mlir::SymbolRefAttr::get(callee));
      $_state.addTypes(callee.getFunctionType().getResults());
    }]>];
  let extraClassDeclaration = [{
    ::mlir::FunctionType getCalleeType() {
      return ::mlir::FunctionType::get(getContext(), getOperandTypes(), getResultTypes());
    }
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
}

def TT_ReturnOp : TT_Op<"return", [Pure, HasParent<"FuncOp">, ReturnLike, Terminator]> {
  let summary = "return from a tt.func";
  let arguments = (ins Variadic<AnyType>:$srcs);
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def TT_GetProgramIdOp : TT_Op<"get_program_id", [Pure]> {
  let summary = "index of this program along a grid dimension";
  let arguments = (ins TT_ProgramDimAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def TT_GetNumProgramsOp : TT_Op<"get_num_programs", [Pure]> {
  let summary = "number of programs along a grid dimension";
  let arguments = (ins TT_ProgramDimAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def TT_MakeRangeOp : TT_Op<"make_range", [Pure]> {
  let summary = "1-D tensor [start, end) of i32";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TT_SplatOp : TT_Op<"splat", [Pure, SameOperandsAndResultElementType]> {
  let summary = "scalar to a tensor of copies";
  let arguments = (ins TT_Type:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TT_BroadcastOp : TT_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "stretch size-1 dimensions";
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_ExpandDimsOp : TT_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a size-1 dimension at `axis`";
  let arguments = (ins TT_Tensor:$src, I32Attr:$axis);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_ReshapeOp : TT_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "same elements, another shape";
  let arguments = (ins TT_Tensor:$src, UnitAttr:$allow_reorder, UnitAttr:$efficient_layout);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?
    attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_TransOp : TT_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute dimensions: result dim i is source dim order[i]";
  let arguments = (ins TT_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_JoinOp : TT_Op<"join", [Pure, SameTypeOperands]> {
  let summary = "stack two tensors along a new minor dimension of size 2";
  let arguments = (ins TT_Tensor:$lhs, TT_Tensor:$rhs);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def TT_SplitOp : TT_Op<"split", [Pure, AllTypesMatch<["outLHS", "outRHS"]>]> {
  let summary = "split a minor dimension of size 2 into two tensors";
  let arguments = (ins TT_Tensor:$src);
  let results = (outs TT_Tensor:$outLHS, TT_Tensor:$outRHS);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($outLHS)";
  let hasVerifier = 1;
}

def TT_CatOp : TT_Op<"cat", [Pure, SameTypeOperands, SameOperandsAndResultElementType]> {
  let summary = "concatenate along the first dimension";
  let arguments = (ins TT_Tensor:$lhs, TT_Tensor:$rhs);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

def TT_AddPtrOp : TT_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "pointer + offset (in elements)";
  let arguments = (ins TT_PtrLike:$ptr, TT_IntLike:$offset);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TT_LoadOp : TT_Op<"load", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TT_LoadedFromPtr<"ptr", "result">,
    TT_MaskFor<"ptr", "mask", 1>,
    TypesMatchWith<"other has the result type", "ptr", "other",
                   "::tessel::tt::getLoadedType($_self)",
                   "($_op.getNumOperands() <= 2) || std::equal_to<>()">]> {
  let summary = "load through a pointer, a tensor of pointers or a block pointer";
  let arguments = (ins
    TT_LoadStorePtr:$ptr,
    Optional<TT_BoolLike>:$mask,
    Optional<TT_Type>:$other,
    DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
    OptionalAttr<TT_PaddingOptionAttr>:$padding,
    DefaultValuedAttr<TT_CacheModifierAttr, "::tessel::tt::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<TT_EvictionPolicyAttr, "::tessel::tt::EvictionPolicy::NORMAL">:$evict,
    DefaultValuedAttr<BoolAttr, "false">:$isVolatile);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def TT_StoreOp : TT_Op<"store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"value is what ptr points to", "ptr", "value",
                   "::tessel::tt::getLoadedType($_self)">,
    TT_MaskFor<"ptr", "mask", 2>]> {
  let summary = "store through a pointer, a tensor of pointers or a block pointer";
  let arguments = (ins
    TT_LoadStorePtr:$ptr,
    TT_Type:$value,
    Optional<TT_BoolLike>:$mask,
    DefaultValuedAttr<DenseI32ArrayAttr, "::llvm::ArrayRef<int32_t>{}">:$boundaryCheck,
    DefaultValuedAttr<TT_CacheModifierAttr, "::tessel::tt::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<TT_EvictionPolicyAttr, "::tessel::tt::EvictionPolicy::NORMAL">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    oilist(`cacheModifier` `=` $cache | `evictionPolicy` `=` $evict)
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def TT_MakeTensorPtrOp : TT_Op<"make_tensor_ptr", [
    Pure, SameVariadicOperandSize,
    TypesMatchWith<"base points to the block's element type", "result", "base",
                   "::tessel::tt::getBlockBaseType($_self)">]> {
  let summary = "block pointer over a strided tensor in memory";
  let description = [{
    `tt.make_tensor_ptr %base, [%shape...], [%strides...], [%offsets...]
    {order = array<i32: 1, 0>} : <tensor<64x64xf16>>`: a block of the result's shape at
    `offsets` inside a parent tensor of `shape` and `strides` (i64) starting at `base`.
  }];
  let arguments = (ins TT_Ptr:$base,
                       Variadic<I64>:$shape,
                       Variadic<I64>:$strides,
                       Variadic<I32>:$offsets,
                       DenseI32ArrayAttr:$order);
  let results = (outs TT_TensorPtr:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def TT_AdvanceOp : TT_Op<"advance", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "move a block pointer by per-dimension offsets";
  let arguments = (ins TT_TensorPtr:$ptr, Variadic<I32>:$offsets);
  let results = (outs TT_TensorPtr:$result);
  let assemblyFormat = "$ptr `,` `[` $offsets `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TT_AtomicRMWOp : TT_Op<"atomic_rmw", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"val is what ptr points to", "ptr", "val",
                   "::tessel::tt::getLoadedType($_self)">,
    TypesMatchWith<"result has the type of val", "val", "result", "$_self">]> {
  let summary = "atomic read-modify-write; yields the old value";
  let arguments = (ins TT_RMWOpAttr:$atomic_rmw_op,
                       TT_PtrLike:$ptr,
                       TT_Type:$val,
                       Optional<TT_BoolLike>:$mask,
                       TT_MemSemanticAttr:$sem,
                       TT_MemSyncScopeAttr:$scope);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)? attr-dict `:`
    functional-type(operands, $result)
  }];
  let hasVerifier = 1;
}

def TT_AtomicCASOp : TT_Op<"atomic_cas", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TypesMatchWith<"cmp is what ptr points to", "ptr", "cmp",
                   "::tessel::tt::getLoadedType($_self)">,
    AllTypesMatch<["cmp", "val", "result"]>]> {
  let summary = "atomic compare-and-swap; yields the old value";
  let arguments = (ins TT_PtrLike:$ptr, TT_Type:$cmp, TT_Type:$val,
                       TT_MemSemanticAttr:$sem, TT_MemSyncScopeAttr:$scope);
  let results = (outs TT_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` functional-type(operands, $result)
  }];
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

def TT_IntToPtrOp : TT_Op<"int_to_ptr", [Pure, SameOperandsAndResultShape]> {
  let summary = "i64 to pointer";
  let arguments = (ins TT_I64Like:$src);
  let results = (outs TT_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_PtrToIntOp : TT_Op<"ptr_to_int", [Pure, SameOperandsAndResultShape]> {
  let summary = "pointer to i64";
  let arguments = (ins TT_PtrLike:$src);
  let results = (outs TT_I64Like:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
}

def TT_BitcastOp : TT_Op<"bitcast", [Pure, SameOperandsAndResultShape]> {
  let summary = "reinterpret bits as another type of the same width";
  let arguments = (ins TT_Type:$src);
  let results = (outs TT_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_FpToFpOp : TT_Op<"fp_to_fp", [Pure, SameOperandsAndResultShape]> {
  let summary = "float conversion (fp8 and friends), with a rounding mode when narrowing";
  let arguments = (ins TT_FloatLike:$src, OptionalAttr<TT_RoundingModeAttr>:$rounding);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = [{
    $src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

def TT_ClampFOp : TT_Op<"clampf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "clamp x to [min, max]";
  let arguments = (ins TT_FloatLike:$x, TT_FloatLike:$min, TT_FloatLike:$max,
                       TT_PropagateNanAttr:$propagateNan);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = [{
    $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
  }];
}

def TT_PreciseSqrtOp : TT_Op<"precise_sqrt", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "correctly rounded square root";
  let arguments = (ins TT_FloatLike:$x);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = "$x attr-dict `:` type($x)";
}

def TT_PreciseDivFOp : TT_Op<"precise_divf", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "correctly rounded division";
  let arguments = (ins TT_FloatLike:$x, TT_FloatLike:$y);
  let results = (outs TT_FloatLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_MulhiUIOp : TT_Op<"mulhiui", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "high half of the unsigned product";
  let arguments = (ins TT_IntLike:$x, TT_IntLike:$y);
  let results = (outs TT_IntLike:$result);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x)";
}

def TT_ExternElementwiseOp : TT_Op<"extern_elementwise", [
    Elementwise, SameOperandsAndResultShape, SameVariadicOperandSize,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "call of a library function (libdevice-style) per element";
  let arguments = (ins Variadic<TT_Type>:$srcs, StrAttr:$libname, StrAttr:$libpath,
                       StrAttr:$symbol, BoolAttr:$pure);
  let results = (outs TT_Type:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, $result)";
}

def TT_ElementwiseInlineAsmOp : TT_Op<"elementwise_inline_asm", [
    Elementwise, DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "GPU assembly applied per element (tl.inline_asm_elementwise)";
  let description = [{
    `asm_string` with LLVM inline-assembly `constraints` (outputs first), applied to every
    `packed_element` consecutive elements of the operands at once; every operand and result
    has one shape. `pure = false` keeps it from being moved or removed.
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<TT_Type>:$args);
  let results = (outs Variadic<TT_Type>:$result);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
  }];
  let hasVerifier = 1;
}

def TT_DotOp : TT_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "d = a * b + c on 2-D (or batched 3-D) tiles";
  let arguments = (ins
    TT_Tensor:$a,
    TT_Tensor:$b,
    TT_Tensor:$c,
    DefaultValuedAttr<TT_InputPrecisionAttr, "::tessel::tt::InputPrecision::IEEE">:$inputPrecision,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs TT_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict `:`
    type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, scans, histograms, gathers
//===----------------------------------------------------------------------===//

def TT_ReduceOp : TT_Op<"reduce", [Pure, SameOperandsShape, SingleBlock,
                                   RecursiveMemoryEffects]> {
  let summary = "reduce tensors along `axis` with a combine region";
  let arguments = (ins Variadic<TT_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<TT_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def TT_ReduceReturnOp : TT_Op<"reduce.return", [Pure, HasParent<"ReduceOp">, Terminator,
                                                ReturnLike]> {
  let summary = "yield of a tt.reduce combine region";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_ScanOp : TT_Op<"scan", [Pure, SameOperandsAndResultShape, SingleBlock,
                               RecursiveMemoryEffects]> {
  let summary = "inclusive scan of tensors along `axis` with a combine region";
  let arguments = (ins Variadic<TT_Tensor>:$srcs, I32Attr:$axis, BoolAttr:$reverse);
  let results = (outs Variadic<TT_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def TT_ScanReturnOp : TT_Op<"scan.return", [Pure, HasParent<"ScanOp">, Terminator,
                                            ReturnLike]> {
  let summary = "yield of a tt.scan combine region";
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "$result attr-dict `:` type($result)";
}

def TT_HistogramOp : TT_Op<"histogram", [Pure, TT_MaskFor<"src", "mask", 1>]> {
  let summary = "count the values of a 1-D integer tensor in [0, bins)";
  let arguments = (ins RankedTensorOf<[TT_Int]>:$src, Optional<TT_BoolLike>:$mask);
  let results = (outs RankedTensorOf<[TT_Int]>:$result);
  let assemblyFormat = "$src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def TT_GatherOp : TT_Op<"gather", [Pure]> {
  let summary = "result[i...] = src[i..., indices[i...] along axis, i...]";
  let arguments = (ins TT_Tensor:$src, TT_IntTensor:$indices, I32Attr:$axis,
                       UnitAttr:$efficient_layout);
  let results = (outs TT_Tensor:$result);
  let assemblyFormat = "$src `[` $indices `]` attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def TT_AssertOp : TT_Op<"assert", [MemoryEffects<[MemWrite]>]> {
  let summary = "runtime check: report `message` where the condition is false";
  let arguments = (ins TT_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def TT_PrintOp : TT_Op<"print", [MemoryEffects<[MemWrite]>]> {
  let summary = "print a prefix and values at run time";
  let arguments = (ins StrAttr:$prefix, BoolAttr:$hex, Variadic<AnyType>:$args,
                       DenseI32ArrayAttr:$isSigned);
  let assemblyFormat = "$prefix attr-dict (`:` $args^ `:` type($args))?";
  let hasVerifier = 1;
}

#endif // TESSEL_TRITON_OPS_TD
