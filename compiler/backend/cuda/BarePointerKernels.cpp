//===- BarePointerKernels.cpp - kernels take the Triton signature: pointers and scalars -*- C++ -*-===//
//
// See Passes.td (CudaBarePointerKernels). After convert-gpu-to-nvvm (or -rocdl: the rocm
// backend runs this pass too, its kernels marked rocdl.kernel), a kernel `k` takes each
// rank-1 memref as the five fields of MLIR's descriptor (allocated and aligned pointer,
// offset, size, stride). `k` becomes the internal `k__body`, and a new kernel `k` takes one
// pointer per memref and the scalars, builds the descriptors (offset 0, stride 1, a size
// that bounds nothing) and calls it; the body is always inlined.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

using namespace mlir;

namespace tessel {
#define GEN_PASS_DEF_CUDABAREPOINTERKERNELS
#include "compiler/backend/cuda/Passes.h.inc"
} // namespace tessel

namespace {

LogicalResult addEntry(LLVM::LLVMFuncOp kernel, ArrayRef<int64_t> ranks,
                       ArrayRef<int64_t> divisibility) {
  MLIRContext *ctx = kernel.getContext();
  LLVM::LLVMFunctionType type = kernel.getFunctionType();
  SmallVector<Type> params;
  unsigned next = 0;
  for (int64_t rank : ranks) {
    if (rank > 1)
      return kernel.emitError() << "a kernel argument of rank " << rank
                                << " has no bare-pointer form";
    if (rank < 0) {
      if (next >= type.getNumParams())
        return kernel.emitError() << "argument count mismatch after the GPU lowering";
      params.push_back(type.getParamType(next++));
      continue;
    }
    unsigned fields = rank == 0 ? 3 : 5;
    if (next + fields > type.getNumParams() ||
        !isa<LLVM::LLVMPointerType>(type.getParamType(next)))
      return kernel.emitError() << "a memref argument is not a descriptor after the GPU lowering";
    params.push_back(type.getParamType(next));
    next += fields;
  }
  if (next != type.getNumParams())
    return kernel.emitError() << "argument count mismatch after the GPU lowering";

  // The target's kernel marker and attributes (nvvm.* or rocdl.*: block sizes, ...) move to
  // the entry.
  StringRef marker = NVVM::NVVMDialect::getKernelFuncAttrName(), prefix = "nvvm.";
  if (kernel->hasAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName())) {
    marker = ROCDL::ROCDLDialect::getKernelFuncAttrName();
    prefix = "rocdl.";
  }
  std::string name = kernel.getName().str();
  kernel.setName(name + "__body");
  kernel.setLinkage(LLVM::Linkage::Internal);
  // Inlined into the entry whatever its size: a call the inliner's cost model declines stays
  // a PTX .func call, which ptxas compiles with the calling convention (a stack frame, spills,
  // no constants from the entry's parameters).
  kernel.setAlwaysInline(true);
  kernel->removeAttr(gpu::GPUDialect::getKernelFuncAttrName());
  kernel->removeAttr(marker);
  OpBuilder b(kernel);
  auto entry = LLVM::LLVMFuncOp::create(
      b, kernel.getLoc(), name, LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params));
  entry->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  entry->setAttr(marker, UnitAttr::get(ctx));
  if (!divisibility.empty() && divisibility.size() != ranks.size())
    return kernel.emitError() << "tessel.arg_divisibility has " << divisibility.size()
                              << " entries for " << ranks.size() << " arguments";
  for (NamedAttribute attr : kernel->getAttrs())
    if (attr.getName().getValue().starts_with(prefix) && attr.getName() != marker)
      entry->setAttr(attr.getName(), attr.getValue());
  // TMA tensor maps (TileCopies.h: TmaLoads): 128-byte parameters the code reads in place
  // (grid constants) through their address.
  if (auto maps = kernel->getAttrOfType<ArrayAttr>(tessel::cuda::kTensorMapsAttr)) {
    entry->setAttr(tessel::cuda::kTensorMapsAttr, maps);
    kernel->removeAttr(tessel::cuda::kTensorMapsAttr);
    for (Attribute m : maps) {
      auto at = cast<DictionaryAttr>(m).getAs<IntegerAttr>("argument");
      if (!at || at.getInt() < 0 || at.getInt() >= int64_t(params.size()) ||
          !isa<LLVM::LLVMPointerType>(params[at.getInt()]))
        return kernel.emitError() << "a tensor map's argument is not a pointer parameter";
      unsigned i = unsigned(at.getInt());
      entry.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                       TypeAttr::get(LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 128)));
      entry.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(64));
      entry.setArgAttr(i, "nvvm.grid_constant", UnitAttr::get(ctx));
    }
  }
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  Location loc = kernel.getLoc();
  Type i64 = b.getI64Type();
  Value zero = LLVM::ConstantOp::create(b, loc, i64, 0);
  Value one = LLVM::ConstantOp::create(b, loc, i64, 1);
  Value unbounded = LLVM::ConstantOp::create(b, loc, i64, int64_t(1) << 62);
  // Triton's divisibility: a pointer's alignment, an integer's known factor (the runtime
  // checks both at launch).
  for (auto [i, d] : llvm::enumerate(divisibility)) {
    if (d <= 1)
      continue;
    Value arg = block->getArgument(i);
    if (isa<LLVM::LLVMPointerType>(arg.getType())) {
      entry.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), b.getI64IntegerAttr(d));
    } else if (auto type = dyn_cast<IntegerType>(arg.getType())) {
      Value low = LLVM::AndOp::create(b, loc, arg, LLVM::ConstantOp::create(b, loc, type, d - 1));
      Value divides = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, low,
                                           LLVM::ConstantOp::create(b, loc, type, 0));
      LLVM::AssumeOp::create(b, loc, divides);
    }
  }
  SmallVector<Value> args;
  for (auto [i, rank] : llvm::enumerate(ranks)) {
    Value arg = block->getArgument(i);
    if (rank < 0) {
      args.push_back(arg);
      continue;
    }
    args.append({arg, arg, zero});
    if (rank == 1)
      args.append({unbounded, one});
  }
  LLVM::CallOp::create(b, loc, kernel, args);
  LLVM::ReturnOp::create(b, loc, ValueRange());
  return success();
}

struct CudaBarePointerKernelsPass
    : tessel::impl::CudaBarePointerKernelsBase<CudaBarePointerKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<LLVM::LLVMFuncOp> kernels;
    getOperation().walk([&](LLVM::LLVMFuncOp f) {
      if (f->hasAttr("tessel.memref_ranks"))
        kernels.push_back(f);
    });
    for (LLVM::LLVMFuncOp k : kernels) {
      auto ranks = k->getAttrOfType<DenseI64ArrayAttr>("tessel.memref_ranks");
      k->removeAttr("tessel.memref_ranks");
      ArrayRef<int64_t> divisibility;
      if (auto d = k->getAttrOfType<DenseI64ArrayAttr>(tessel::kArgDivisibilityAttr)) {
        divisibility = d.asArrayRef();
        k->removeAttr(tessel::kArgDivisibilityAttr);
      }
      if (failed(addEntry(k, ranks.asArrayRef(), divisibility)))
        return signalPassFailure();
    }
  }
};

} // namespace
