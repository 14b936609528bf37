//===- NvvmMath.cpp - libdevice calls NVPTX has instructions for, as intrinsics -*- C++ -*-===//
//
// MLIR's GPU-to-NVVM lowering turns math ops (and a few arith ones, such as maxnumf) into
// calls of libdevice (__nv_floorf, __nv_fmaxf, ...). libdevice comes with the CUDA toolkit,
// which a machine building PTX may not have; the functions below are single PTX instructions
// (cvt.rmi, max, abs, sqrt.rn, fma.rn, ...) that LLVM's NVPTX backend emits for the
// corresponding intrinsics. Without libdevice the transcendental functions never get here (the
// pipeline approximates them with polynomials first); with it, they are linked from the
// toolkit's libdevice (linkLibdevice), exp and exp2 on f32 excepted (ex2.approx.ftz, as Triton).
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/CudaBackend.h"
#include "compiler/backend/DeviceMath.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/SourceMgr.h"

absl::Status tessel::replaceLibdeviceCalls(llvm::Module &module, bool haveLibdevice) {
  std::string missing;
  for (llvm::Function &f : llvm::make_early_inc_range(module)) {
    llvm::StringRef name = f.getName();
    if (!f.isDeclaration() || !name.consume_front("__nv_"))
      continue;
    // __nv_floor (f64) and __nv_floorf (f32).
    llvm::Intrinsic::ID id = exactMathIntrinsic(name);
    if (id == llvm::Intrinsic::not_intrinsic && name.ends_with("f"))
      id = exactMathIntrinsic(name.drop_back());
    // tl.exp2 on f32 is the hardware's approximate 2^x with subnormal inputs and results
    // flushed to zero (ex2.approx.ftz.f32: one MUFU.EX2; without ftz ptxas scales inputs below
    // -126 around it, three instructions more), as Triton 3.6's kernels run it, and tl.exp on
    // f32 is 2^(x log2 e) through it (Triton's lowering too).
    bool exp = name == "expf";
    if (name == "exp2f" || exp)
      id = llvm::Intrinsic::nvvm_ex2_approx_ftz;
    else if (name == "exp2")
      id = llvm::Intrinsic::nvvm_ex2_approx;
    if (id == llvm::Intrinsic::not_intrinsic || f.arg_empty()) {
      // Left for libdevice where it is linked.
      if (!f.use_empty() && !haveLibdevice)
        missing += (missing.empty() ? "" : ", ") + f.getName().str();
      continue;
    }
    llvm::Type *type = f.getReturnType();
    llvm::Function *intrinsic = llvm::Intrinsic::getOrInsertDeclaration(&module, id, {type});
    for (llvm::User *user : llvm::make_early_inc_range(f.users()))
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(user)) {
        llvm::IRBuilder<> b(call);
        llvm::SmallVector<llvm::Value *> args(call->args());
        if (exp)
          args[0] = b.CreateFMul(args[0], llvm::ConstantFP::get(type, 1.4426950408889634));
        call->replaceAllUsesWith(b.CreateCall(intrinsic, args));
        call->eraseFromParent();
      }
    if (f.use_empty())
      f.eraseFromParent();
  }
  if (!missing.empty())
    return absl::UnimplementedError("the kernel needs libdevice functions tessel does not lower "
                                    "to PTX yet: " + missing);
  return absl::OkStatus();
}

absl::Status tessel::linkLibdevice(llvm::Module &module, const std::string &path) {
  bool needed = llvm::any_of(module, [](const llvm::Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_") && !f.use_empty();
  });
  if (!needed)
    return absl::OkStatus();
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> libdevice =
      llvm::parseIRFile(path, diagnostic, module.getContext());
  if (!libdevice)
    return absl::FailedPreconditionError("cannot read libdevice " + path + ": " +
                                         diagnostic.getMessage().str());
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::LinkOnlyNeeded))
    return absl::InternalError("cannot link libdevice " + path);
  // Only the kernels are entry points: the linked functions are inlined and the rest dropped.
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel)
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  // libdevice asks __nvvm_reflect whether denormals flush to zero: they do not.
  module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return absl::OkStatus();
}
