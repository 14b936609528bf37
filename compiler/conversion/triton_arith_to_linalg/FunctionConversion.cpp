//===- FunctionConversion.cpp - tt.func/call/return to func -------*- C++ -*-===//

#include "compiler/conversion/triton_arith_to_linalg/TritonArithToLinalg.h"

#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
namespace tt = tessel::tt;

/// Attributes of tt.func that func.func spells differently or recomputes.
static bool isSignatureAttr(StringRef name) {
  return name == "function_type" || name == "sym_name" || name == "arg_attrs" ||
         name == "res_attrs" || name == "sym_visibility";
}

static void convertFunction(tt::FuncOp ttFunc) {
  OpBuilder builder(ttFunc);
  MLIRContext *ctx = ttFunc.getContext();
  Type i32 = builder.getI32Type();
  FunctionType oldType = ttFunc.getFunctionType();
  SmallVector<Type> inputs(oldType.getInputs());
  inputs.append(tessel::kNumGridArguments, i32);
  auto newType = FunctionType::get(ctx, inputs, oldType.getResults());

  auto func = func::FuncOp::create(builder, ttFunc.getLoc(), ttFunc.getName(), newType);
  if (auto visibility = ttFunc.getSymVisibilityAttr())
    func.setSymVisibilityAttr(visibility);
  for (NamedAttribute attr : ttFunc->getAttrs())
    if (!isSignatureAttr(attr.getName().getValue()))
      func->setAttr(attr.getName(), attr.getValue());
  if (ttFunc.isNoInline())
    func.setNoInline(true);
  for (unsigned i = 0, e = oldType.getNumInputs(); i < e; ++i)
    if (DictionaryAttr attrs = ttFunc.getArgAttrDict(i))
      func.setArgAttrs(i, attrs);
  for (unsigned i = 0, e = oldType.getNumResults(); i < e; ++i)
    if (DictionaryAttr attrs = ttFunc.getResultAttrDict(i))
      func.setResultAttrs(i, attrs);

  func.getBody().takeBody(ttFunc.getBody());
  if (!func.isExternal()) {
    Block &entry = func.getBody().front();
    SmallVector<Location> locs(tessel::kNumGridArguments, ttFunc.getLoc());
    entry.addArguments(SmallVector<Type>(tessel::kNumGridArguments, i32), locs);
  }
  ttFunc.erase();
}

/// The grid arguments of the function enclosing `op`.
static ValueRange gridArguments(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  return func.getArguments().take_back(tessel::kNumGridArguments);
}

LogicalResult tessel::convertTritonFunctions(ModuleOp module) {
  // Kernels are the module's own functions: one in a nested module (two top-level operations
  // parse into an implicit module around them) would be left unconverted.
  WalkResult nested = module.walk([&](tt::FuncOp func) {
    if (func->getParentOp() == module.getOperation())
      return WalkResult::advance();
    func.emitError() << "kernels are functions at the top level of the module; '"
                     << func.getName() << "' is in a nested " << func->getParentOp()->getName();
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return failure();
  for (auto func : llvm::make_early_inc_range(module.getOps<tt::FuncOp>()))
    convertFunction(func);

  SmallVector<Operation *> toRewrite;
  module.walk([&](Operation *op) {
    if (isa<tt::ReturnOp, tt::CallOp, tt::GetProgramIdOp, tt::GetNumProgramsOp>(op))
      toRewrite.push_back(op);
  });
  for (Operation *op : toRewrite) {
    OpBuilder builder(op);
    if (auto ret = dyn_cast<tt::ReturnOp>(op)) {
      func::ReturnOp::create(builder, ret.getLoc(), ret.getSrcs());
      ret.erase();
      continue;
    }
    if (!op->getParentOfType<func::FuncOp>())
      return op->emitError() << "'" << op->getName() << "' outside a function";
    ValueRange grid = gridArguments(op);
    if (auto pid = dyn_cast<tt::GetProgramIdOp>(op)) {
      pid.replaceAllUsesWith(grid[static_cast<unsigned>(pid.getAxis())]);
      pid.erase();
      continue;
    }
    if (auto num = dyn_cast<tt::GetNumProgramsOp>(op)) {
      num.replaceAllUsesWith(grid[3 + static_cast<unsigned>(num.getAxis())]);
      num.erase();
      continue;
    }
    auto call = cast<tt::CallOp>(op);
    SmallVector<Value> operands(call.getOperands());
    operands.append(grid.begin(), grid.end());
    auto newCall = func::CallOp::create(builder, call.getLoc(), call.getCalleeAttr(),
                                        call.getResultTypes(), operands);
    call.replaceAllUsesWith(newCall.getResults());
    call.erase();
  }
  return success();
}
