//===- LaunchEntry.cpp - the C launch entry point of each kernel ---*- C++ -*-===//
//
// Adds `k__tessel_launch(args, begin, end, gx, gy, gz)` next to every public kernel `k`: it
// unpacks the 8-byte argument slots (pointers become memref descriptors) and calls `k` once
// per program id in [begin, end), passing (x, y, z, gx, gy, gz).
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"
#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/backend/Backend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace {

/// The LLVM struct a rank-1 strided memref lowers to.
LLVM::LLVMStructType descriptorType(MLIRContext *ctx) {
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto dims = LLVM::LLVMArrayType::get(i64, 1);
  return LLVM::LLVMStructType::getLiteral(ctx, {ptr, ptr, i64, dims, dims});
}

/// Loads kernel argument `i` from its slot as a value of `type`.
FailureOr<Value> unpackArgument(OpBuilder &b, Location loc, Value args, unsigned i, Type type) {
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i64 = b.getI64Type();
  Value slot = LLVM::GEPOp::create(b, loc, ptrType, i64, args,
                                   ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (memref.getRank() != 1)
      return failure();
    Value base = LLVM::LoadOp::create(b, loc, ptrType, slot);
    auto descType = descriptorType(ctx);
    Value desc = LLVM::UndefOp::create(b, loc, descType);
    desc = LLVM::InsertValueOp::create(b, loc, desc, base, ArrayRef<int64_t>{0});
    desc = LLVM::InsertValueOp::create(b, loc, desc, base, ArrayRef<int64_t>{1});
    Value zero = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(0));
    Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
    // The extent is unknown to the kernel; accesses are bounded by its own masks.
    Value extent = LLVM::ConstantOp::create(b, loc, i64,
                                            b.getI64IntegerAttr(int64_t(1) << 62));
    desc = LLVM::InsertValueOp::create(b, loc, desc, zero, ArrayRef<int64_t>{2});
    desc = LLVM::InsertValueOp::create(b, loc, desc, extent, ArrayRef<int64_t>{3, 0});
    desc = LLVM::InsertValueOp::create(b, loc, desc, one, ArrayRef<int64_t>{4, 0});
    return UnrealizedConversionCastOp::create(b, loc, TypeRange{type}, ValueRange{desc})
        .getResult(0);
  }
  if (type.isInteger(1)) {
    Value byte = LLVM::LoadOp::create(b, loc, b.getI8Type(), slot);
    return arith::TruncIOp::create(b, loc, type, byte).getResult();
  }
  if (type.isIntOrFloat())
    return LLVM::LoadOp::create(b, loc, type, slot).getResult();
  return failure();
}

/// How the runtime names an argument type: "ptr:f32", "i32", "f16", ...

} // namespace

static LogicalResult addLaunchEntryPoints(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      kernels.push_back(func);
  for (func::FuncOp kernel : kernels) {
    // The structured lowering's kernels end with the six program-id / grid arguments.
    if (kernel.getNumArguments() < 6 ||
        llvm::any_of(kernel.getArgumentTypes().take_back(6),
                     [](Type t) { return !t.isSignlessInteger(32); }))
      return kernel.emitError() << "a kernel needs six trailing i32 arguments (program ids x, y, "
                                   "z and grid sizes x, y, z) for its launch entry";
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointAfter(kernel);
    Location loc = kernel.getLoc();
    Type i32 = b.getI32Type();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto type = FunctionType::get(ctx, {ptrType, i32, i32, i32, i32, i32}, {});
    std::string name = (kernel.getName() + tessel::kLaunchSuffix).str();
    auto entry = func::FuncOp::create(b, loc, name, type);
    entry->setAttr("llvm.linkage", LLVM::LinkageAttr::get(ctx, LLVM::Linkage::External));
    Block *block = entry.addEntryBlock();
    b.setInsertionPointToStart(block);
    Value args = block->getArgument(0), begin = block->getArgument(1),
          end = block->getArgument(2), gx = block->getArgument(3), gy = block->getArgument(4),
          gz = block->getArgument(5);

    ArrayRef<Type> inputs = kernel.getFunctionType().getInputs();
    unsigned numUser = inputs.size() - 6;

    // `k__tessel_signature`: the argument types, comma-separated, for the runtime to check.
    std::string signature;
    for (unsigned i = 0; i < numUser; ++i)
      signature += (i ? "," : "") + tessel::launchTypeName(inputs[i]);
    {
      OpBuilder gb(module.getBodyRegion());
      gb.setInsertionPoint(entry);
      signature.push_back('\0');
      auto arrayType = LLVM::LLVMArrayType::get(gb.getI8Type(), signature.size());
      LLVM::GlobalOp::create(gb, loc, arrayType, /*isConstant=*/true, LLVM::Linkage::External,
                             (kernel.getName() + tessel::kSignatureSuffix).str(),
                             gb.getStringAttr(signature));
    }
    SmallVector<Value> operands;
    for (unsigned i = 0; i < numUser; ++i) {
      FailureOr<Value> v = unpackArgument(b, loc, args, i, inputs[i]);
      if (failed(v))
        return kernel.emitError() << "cannot pass argument #" << i << " of type " << inputs[i]
                                  << " through the launch ABI";
      operands.push_back(*v);
    }
    Value lb = arith::IndexCastOp::create(b, loc, b.getIndexType(), begin);
    Value ub = arith::IndexCastOp::create(b, loc, b.getIndexType(), end);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                       [&](OpBuilder &lb2, Location l, Value iv, ValueRange) {
                         Value pid = arith::IndexCastOp::create(lb2, l, i32, iv);
                         Value x = arith::RemUIOp::create(lb2, l, pid, gx);
                         Value rest = arith::DivUIOp::create(lb2, l, pid, gx);
                         Value y = arith::RemUIOp::create(lb2, l, rest, gy);
                         Value z = arith::DivUIOp::create(lb2, l, rest, gy);
                         SmallVector<Value> callArgs(operands);
                         callArgs.append({x, y, z, gx, gy, gz});
                         func::CallOp::create(lb2, l, kernel, callArgs);
                         scf::YieldOp::create(lb2, l);
                       });
    func::ReturnOp::create(b, loc);
  }
  return success();
}

namespace tessel {
#define GEN_PASS_DEF_CPUADDLAUNCHENTRIES
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuAddLaunchEntriesPass : tessel::impl::CpuAddLaunchEntriesBase<CpuAddLaunchEntriesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(addLaunchEntryPoints(getOperation())))
      signalPassFailure();
  }
};
} // namespace
