//===- NvvmMath.cpp - libdevice calls NVPTX has instructions for, as intrinsics -*- C++ -*-===//
//
// MLIR's GPU-to-NVVM lowering turns math ops (and a few arith ones, such as maxnumf) into
// calls of libdevice (__nv_floorf, __nv_fmaxf, ...). libdevice comes with the CUDA toolkit,
// which a machine building PTX may not have; the functions below are single PTX instructions
// (cvt.rmi, max, abs, sqrt.rn, fma.rn, ...) that LLVM's NVPTX backend emits for the
// corresponding intrinsics. The transcendental functions never get here: the pipeline
// approximates them with polynomials first.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/CudaBackend.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

absl::Status tessel::replaceLibdeviceCalls(llvm::Module &module) {
  static const std::pair<const char *, llvm::Intrinsic::ID> kIntrinsics[] = {
      {"floor", llvm::Intrinsic::floor},   {"ceil", llvm::Intrinsic::ceil},
      {"fabs", llvm::Intrinsic::fabs},     {"sqrt", llvm::Intrinsic::sqrt},
      {"fmax", llvm::Intrinsic::maxnum},   {"fmin", llvm::Intrinsic::minnum},
      {"copysign", llvm::Intrinsic::copysign}, {"trunc", llvm::Intrinsic::trunc},
      {"round", llvm::Intrinsic::round},   {"rint", llvm::Intrinsic::rint},
      {"nearbyint", llvm::Intrinsic::nearbyint}, {"fma", llvm::Intrinsic::fma},
  };
  std::string missing;
  for (llvm::Function &f : llvm::make_early_inc_range(module)) {
    llvm::StringRef name = f.getName();
    if (!f.isDeclaration() || !name.consume_front("__nv_"))
      continue;
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    for (auto [base, intrinsic] : kIntrinsics)
      if (name == base || name == (std::string(base) + "f"))
        id = intrinsic;
    // tl.exp2 is the hardware's approximate 2^x (ex2.approx.f32), as in Triton.
    if (name == "exp2f" || name == "exp2")
      id = llvm::Intrinsic::nvvm_ex2_approx;
    if (id == llvm::Intrinsic::not_intrinsic || f.arg_empty()) {
      if (!f.use_empty())
        missing += (missing.empty() ? "" : ", ") + f.getName().str();
      continue;
    }
    llvm::Type *type = f.getReturnType();
    llvm::Function *intrinsic = llvm::Intrinsic::getOrInsertDeclaration(&module, id, {type});
    for (llvm::User *user : llvm::make_early_inc_range(f.users()))
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(user)) {
        llvm::IRBuilder<> b(call);
        llvm::SmallVector<llvm::Value *> args(call->args());
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
