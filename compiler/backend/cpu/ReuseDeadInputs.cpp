//===- ReuseDeadInputs.cpp - an elementwise op writes into a dead input -*- C++ -*-===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

/// A linalg.generic output that is a fresh tensor (tensor.empty) written element by element
/// (identity map, not read by the payload), of the type of an identity-mapped input that
/// nothing reads after the op, takes that input's place: the payload reads the element through
/// the output and bufferization updates the input's buffer in place rather than allocating a
/// second tile buffer (softmax's exp and division reuse the loaded row; reading through the
/// output keeps that in place where the op also reduces). Fewer buffers also means no 4
/// KiB-aliased pairs of stack buffers, which stall loads behind unrelated stores.
static void reuseDeadInputsAsOutputs(ModuleOp module) {
  SmallVector<linalg::GenericOp> ops;
  module.walk([&](linalg::GenericOp op) {
    if (op.hasPureTensorSemantics())
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : ops) {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      if (!init.get().getDefiningOp<tensor::EmptyOp>() || op.payloadUsesValueFromOperand(&init) ||
          !op.getMatchingIndexingMap(&init).isIdentity())
        continue;
      OpOperand *reused = nullptr;
      for (OpOperand *input : op.getDpsInputOperands()) {
        Value value = input->get();
        // A function argument belongs to the caller (a noinline callee's tensor argument).
        if (isa<BlockArgument>(value) &&
            isa<FunctionOpInterface>(cast<BlockArgument>(value).getOwner()->getParentOp()))
          continue;
        if (value.getType() != init.get().getType() ||
            !op.getMatchingIndexingMap(input).isIdentity())
          continue;
        // Every other reader must come before `op` in its block (or the buffer would be
        // needed afterwards and bufferization would copy it).
        bool deadAfter = llvm::all_of(value.getUsers(), [&](Operation *user) {
          return user == op || (user->getBlock() == op->getBlock() && user->isBeforeInBlock(op));
        });
        if (deadAfter && llvm::count(op->getOperands(), value) == 1) {
          reused = input;
          break;
        }
      }
      if (!reused)
        continue;
      unsigned inputIndex = reused->getOperandNumber();
      unsigned initIndex = init.getOperandNumber();
      SmallVector<Value> inputs, inits(op.getDpsInits());
      SmallVector<AffineMap> maps;
      for (OpOperand *input : op.getDpsInputOperands())
        if (input != reused) {
          inputs.push_back(input->get());
          maps.push_back(op.getMatchingIndexingMap(input));
        }
      for (OpOperand &out : op.getDpsInitsMutable())
        maps.push_back(op.getMatchingIndexingMap(&out));
      inits[initIndex - op.getNumDpsInputs()] = reused->get();
      rewriter.setInsertionPoint(op);
      auto fresh = linalg::GenericOp::create(rewriter, op.getLoc(), op.getResultTypes(), inputs,
                                             inits, maps, op.getIteratorTypesArray());
      rewriter.inlineRegionBefore(op.getRegion(), fresh.getRegion(), fresh.getRegion().end());
      Block &body = fresh.getRegion().front();
      // Block arguments follow the operands: the input's element is now the output's.
      rewriter.replaceAllUsesWith(body.getArgument(inputIndex), body.getArgument(initIndex));
      body.eraseArgument(inputIndex);
      rewriter.replaceOp(op, fresh.getResults());
      break; // one input per op: `op` is gone
    }
  }
}


namespace tessel {
#define GEN_PASS_DEF_CPUREUSEDEADINPUTS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuReuseDeadInputsPass : tessel::impl::CpuReuseDeadInputsBase<CpuReuseDeadInputsPass> {
  using Base::Base;
  void runOnOperation() override {
    reuseDeadInputsAsOutputs(getOperation());
  }
};
} // namespace
