//===- Print.cpp - tt.print (tl.device_print) as printf calls on the CPU -*- C++ -*-===//
//
// Each operand is printed element by element, one line per element, as Triton does on GPUs:
//   pid (x, y, z) idx (i, j) <prefix> <value>
// (with " (operand k)" after the prefix when there are several operands). Integers print in
// decimal (signed or unsigned as the frontend recorded) or, with hex, as 0x...; floats as %f
// of the value widened to double. Runs before bufferization, on tensors.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"
#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace {

LLVM::LLVMFuncOp getOrInsertPrintf(ModuleOp module) {
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>("printf"))
    return f;
  OpBuilder b(module.getBodyRegion());
  MLIRContext *ctx = module.getContext();
  auto type = LLVM::LLVMFunctionType::get(IntegerType::get(ctx, 32),
                                          {LLVM::LLVMPointerType::get(ctx)}, /*isVarArg=*/true);
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), "printf", type);
}

/// The address of a NUL-terminated constant string (one global per distinct text).
Value stringAddress(OpBuilder &b, Location loc, ModuleOp module, const std::string &text) {
  std::string name = "__tessel_fmt_" + std::to_string(std::hash<std::string>()(text));
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    std::string data = text + '\0';
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
    global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
                                    name, b.getStringAttr(data));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

void lowerPrint(tessel::tt::PrintOp print, ModuleOp module) {
  OpBuilder b(print);
  Location loc = print.getLoc();
  auto fn = print->getParentOfType<func::FuncOp>();
  LLVM::LLVMFuncOp printf = getOrInsertPrintf(module);
  // The program ids: the first three of the six grid arguments every kernel function gets.
  SmallVector<Value> pids;
  unsigned n = fn.getNumArguments();
  for (unsigned k = 0; k < 3; ++k)
    pids.push_back(n >= 6 ? Value(fn.getArgument(n - 6 + k))
                          : Value(arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)));
  std::string prefix = print.getPrefix().str();
  ArrayRef<int32_t> isSigned = print.getIsSigned();
  bool hex = print.getHex();
  if (print.getArgs().empty()) {
    Value fmt = stringAddress(b, loc, module, "pid (%d, %d, %d) " + prefix + "\n");
    SmallVector<Value> args = {fmt};
    args.append(pids);
    LLVM::CallOp::create(b, loc, printf, args);
    print.erase();
    return;
  }
  for (auto [k, operand] : llvm::enumerate(print.getArgs())) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    ArrayRef<int64_t> shape = type ? type.getShape() : ArrayRef<int64_t>{};
    Type elem = getElementTypeOrSelf(operand.getType());
    bool signedInt = k < isSigned.size() ? isSigned[k] != 0 : true;
    std::string valueFmt = isa<FloatType>(elem) ? "%f" : hex ? "0x%llx" : signedInt ? "%lld" : "%llu";
    std::string idx = "(";
    for (size_t d = 0; d < shape.size(); ++d)
      idx += (d ? ", " : "") + std::string("%lld");
    idx += ")";
    std::string text = "pid (%d, %d, %d) idx " + idx + " " + prefix +
                       (print.getArgs().size() > 1 ? " (operand " + std::to_string(k) + ")" : "") +
                       " " + valueFmt + "\n";
    // One printf per element: loops over the tensor's indices.
    std::function<void(OpBuilder &, SmallVector<Value> &)> nest = [&](OpBuilder &nb,
                                                                     SmallVector<Value> &ivs) {
      if (ivs.size() == shape.size()) {
        Value v = shape.empty() ? operand : Value(tensor::ExtractOp::create(nb, loc, operand, ivs));
        if (isa<FloatType>(elem)) {
          if (!elem.isF64())
            v = arith::ExtFOp::create(nb, loc, nb.getF64Type(), v);
        } else if (isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() < 64) {
          // Booleans print as 0 and 1 (sign-extended, true would be -1).
          v = signedInt && !hex && !elem.isInteger(1)
                  ? Value(arith::ExtSIOp::create(nb, loc, nb.getI64Type(), v))
                                : Value(arith::ExtUIOp::create(nb, loc, nb.getI64Type(), v));
        }
        SmallVector<Value> args = {stringAddress(nb, loc, module, text)};
        args.append(pids);
        for (Value iv : ivs)
          args.push_back(arith::IndexCastOp::create(nb, loc, nb.getI64Type(), iv));
        args.push_back(v);
        LLVM::CallOp::create(nb, loc, printf, args);
        return;
      }
      int64_t extent = shape[ivs.size()];
      Value lb = arith::ConstantIndexOp::create(nb, loc, 0);
      Value ub = arith::ConstantIndexOp::create(nb, loc, extent);
      Value st = arith::ConstantIndexOp::create(nb, loc, 1);
      scf::ForOp::create(nb, loc, lb, ub, st, ValueRange{},
                         [&](OpBuilder &lb2, Location, Value iv, ValueRange) {
                           ivs.push_back(iv);
                           nest(lb2, ivs);
                           ivs.pop_back();
                           scf::YieldOp::create(lb2, loc);
                         });
    };
    SmallVector<Value> ivs;
    nest(b, ivs);
  }
  print.erase();
}

} // namespace

static void lowerPrints(ModuleOp module) {
  SmallVector<tessel::tt::PrintOp> prints;
  module.walk([&](tessel::tt::PrintOp p) { prints.push_back(p); });
  for (tessel::tt::PrintOp p : prints)
    lowerPrint(p, module);
}

namespace tessel {
#define GEN_PASS_DEF_CPULOWERPRINTS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuLowerPrintsPass : tessel::impl::CpuLowerPrintsBase<CpuLowerPrintsPass> {
  using Base::Base;
  void runOnOperation() override {
    lowerPrints(getOperation());
  }
};
} // namespace
