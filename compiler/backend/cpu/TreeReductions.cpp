//===- TreeReductions.cpp - horizontal min/max as trees of vector ops -*- C++ -*-===//

#include "compiler/backend/cpu/CpuBackend.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

/// LLVM expands a horizontal min/max of a vector (llvm.vector.reduce.fmax and friends, left
/// after the loop vectorizer turns a max reduction into vector accumulators) into one scalar
/// step per lane unless NaNs are ruled out; maxnum/minnum/maximum/minimum are associative and
/// commutative with NaNs too, so a tree of vector ops on halves gives the same result in
/// log2(lanes) steps (16 serial scalar steps -> 4 vector steps for a row max on AVX-512).
void tessel::treeMinMaxReductions(llvm::Module &module) {
  llvm::SmallVector<llvm::IntrinsicInst *> reductions;
  for (llvm::Function &f : module)
    for (llvm::Instruction &inst : llvm::instructions(f))
      if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
        switch (intrinsic->getIntrinsicID()) {
        case llvm::Intrinsic::vector_reduce_fmax:
        case llvm::Intrinsic::vector_reduce_fmin:
        case llvm::Intrinsic::vector_reduce_fmaximum:
        case llvm::Intrinsic::vector_reduce_fminimum:
          reductions.push_back(intrinsic);
          break;
        default:
          break;
        }
  for (llvm::IntrinsicInst *reduction : reductions) {
    llvm::Intrinsic::ID elementwise;
    switch (reduction->getIntrinsicID()) {
    case llvm::Intrinsic::vector_reduce_fmax:
      elementwise = llvm::Intrinsic::maxnum;
      break;
    case llvm::Intrinsic::vector_reduce_fmin:
      elementwise = llvm::Intrinsic::minnum;
      break;
    case llvm::Intrinsic::vector_reduce_fmaximum:
      elementwise = llvm::Intrinsic::maximum;
      break;
    default:
      elementwise = llvm::Intrinsic::minimum;
      break;
    }
    auto *type = llvm::dyn_cast<llvm::FixedVectorType>(reduction->getArgOperand(0)->getType());
    if (!type || !llvm::isPowerOf2_32(type->getNumElements()))
      continue;
    llvm::IRBuilder<> b(reduction);
    b.setFastMathFlags(reduction->getFastMathFlags());
    llvm::Value *v = reduction->getArgOperand(0);
    for (unsigned width = type->getNumElements(); width > 1; width /= 2) {
      llvm::SmallVector<int> low, high;
      for (unsigned i = 0; i < width / 2; ++i) {
        low.push_back(i);
        high.push_back(i + width / 2);
      }
      llvm::Value *a = b.CreateShuffleVector(v, low), *c = b.CreateShuffleVector(v, high);
      v = b.CreateBinaryIntrinsic(elementwise, a, c);
    }
    reduction->replaceAllUsesWith(b.CreateExtractElement(v, uint64_t(0)));
    reduction->eraseFromParent();
  }
}
