//===- InlineKernels.cpp - kernels always inlined into their launch loop -*- C++ -*-===//

#include "compiler/backend/cpu/CpuBackend.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

/// Each launch entry point's kernel is inlined into its program loop (LLVM's cost model may
/// leave a large kernel a call): invariant address arithmetic leaves the loop, and the
/// prefetches of the next program (PrefetchPlacement.cpp) are placed in the loop's body.
void tessel::inlineKernelsIntoLaunchEntries(llvm::Module &module) {
  for (llvm::Function &f : module)
    if (f.getName().ends_with(tessel::kLaunchSuffix))
      for (llvm::Instruction &inst : llvm::instructions(f))
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst))
          if (llvm::Function *callee = call->getCalledFunction();
              callee && !callee->isDeclaration() &&
              !callee->hasFnAttribute(llvm::Attribute::NoInline))
            callee->addFnAttr(llvm::Attribute::AlwaysInline);
}
