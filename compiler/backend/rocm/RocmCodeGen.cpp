//===- RocmCodeGen.cpp - ROCDL to AMDGPU code with LLVM; hsaco by ld.lld -*- C++ -*-===//

#include "compiler/backend/rocm/RocmBackend.h"
#include "compiler/backend/DeviceMath.h"

#include "compiler/backend/GpuKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <mutex>

#ifndef TESSEL_LLVM_PREFIX
#define TESSEL_LLVM_PREFIX "/usr/lib/llvm-22"
#endif

using namespace mlir;

namespace {

void initializeAmdgpuOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

/// LDS laid out as tessel-cuda-map-programs planned it (its total is the workgroup's LDS):
/// the arena (gpu.dynamic_shared_memory, a zero-sized addrspace(3) array) becomes a static
/// array of `arenaBytes`, so the code object's group_segment_fixed_size states all of it and
/// launches pass no dynamic LDS; every LDS variable takes a 16-byte aligned slot of a multiple
/// of 16 bytes, as the plan counts them (again after LLVM's optimizations, which shrink
/// variables to what is used of them).
void layOutLds(llvm::Module &module, int64_t arenaBytes) {
  for (llvm::GlobalVariable &global : llvm::make_early_inc_range(module.globals())) {
    if (global.getAddressSpace() != 3)
      continue;
    if (global.use_empty()) {
      global.eraseFromParent();
      continue;
    }
    const llvm::DataLayout &layout = module.getDataLayout();
    bool arena = global.getValueType()->isArrayTy() &&
                 global.getValueType()->getArrayNumElements() == 0;
    uint64_t bytes = arena ? uint64_t(arenaBytes)
                           : layout.getTypeAllocSize(global.getValueType()).getFixedValue();
    uint64_t padded = llvm::alignTo(bytes, 16);
    llvm::Align align = std::max(global.getAlign().valueOrOne(), llvm::Align(16));
    if (!arena && padded == bytes) {
      global.setAlignment(align);
      continue;
    }
    auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(module.getContext()), padded);
    auto *slot = new llvm::GlobalVariable(
        module, type, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
        llvm::PoisonValue::get(type), "", &global, llvm::GlobalValue::NotThreadLocal, 3);
    slot->setAlignment(align);
    slot->takeName(&global);
    global.replaceAllUsesWith(slot);
    global.eraseFromParent();
  }
}

/// Calls of ocml functions (__ocml_floor_f32, ...: what MLIR's GPU-to-ROCDL lowering makes of
/// math ops) that AMDGPU has instructions for, as the LLVM intrinsics it selects: the exact
/// ones (DeviceMath.h), and exp2, log2, exp, log, sin, cos on f32 and f16 (v_exp_f32,
/// v_log_f32, v_sin_f32, v_cos_f32 with LLVM's range reduction and denormal scaling).
void replaceOcmlCalls(llvm::Module &module) {
  static const std::pair<const char *, llvm::Intrinsic::ID> kNarrow[] = {
      {"exp2", llvm::Intrinsic::exp2}, {"log2", llvm::Intrinsic::log2},
      {"exp", llvm::Intrinsic::exp},   {"log", llvm::Intrinsic::log},
      {"sin", llvm::Intrinsic::sin},   {"cos", llvm::Intrinsic::cos},
  };
  for (llvm::Function &f : llvm::make_early_inc_range(module)) {
    llvm::StringRef name = f.getName();
    if (!f.isDeclaration() || !name.consume_front("__ocml_") || f.arg_empty())
      continue;
    auto [base, suffix] = name.rsplit('_');
    llvm::Intrinsic::ID id = tessel::exactMathIntrinsic(base);
    if (id == llvm::Intrinsic::not_intrinsic && (suffix == "f32" || suffix == "f16"))
      for (auto [narrow, intrinsic] : kNarrow)
        if (base == narrow)
          id = intrinsic;
    if (id == llvm::Intrinsic::not_intrinsic)
      continue;
    llvm::Function *intrinsic =
        llvm::Intrinsic::getOrInsertDeclaration(&module, id, {f.getReturnType()});
    for (llvm::User *user : llvm::make_early_inc_range(f.users()))
      if (auto *call = llvm::dyn_cast<llvm::CallInst>(user)) {
        llvm::SmallVector<llvm::Value *> args(call->args());
        auto *replacement = llvm::CallInst::Create(intrinsic, args, "", call->getIterator());
        call->replaceAllUsesWith(replacement);
        call->eraseFromParent();
      }
    if (f.use_empty())
      f.eraseFromParent();
  }
}

/// Calls of the ockl functions MLIR's ROCDL translation makes of gpu.block_dim and
/// gpu.grid_dim (__ockl_get_local_size, __ockl_get_num_groups) as reads of the dispatch packet
/// (HSA's hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z as u16 at byte 4, grid_size_x/y/z
/// in work-items as u32 at byte 12), which AMDGPU folds where the workgroup size is known.
void replaceOcklCalls(llvm::Module &module) {
  for (llvm::Function &f : llvm::make_early_inc_range(module)) {
    llvm::StringRef name = f.getName();
    bool local = name == "__ockl_get_local_size", groups = name == "__ockl_get_num_groups";
    if (!f.isDeclaration() || !(local || groups) || f.arg_size() != 1)
      continue;
    for (llvm::User *user : llvm::make_early_inc_range(f.users())) {
      auto *call = llvm::dyn_cast<llvm::CallInst>(user);
      if (!call)
        continue;
      llvm::IRBuilder<> b(call);
      llvm::Value *dim = b.CreateZExtOrTrunc(call->getArgOperand(0), b.getInt64Ty());
      llvm::Value *packet = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_dispatch_ptr, {});
      llvm::Value *sizeAt =
          b.CreateGEP(b.getInt8Ty(), packet, b.CreateAdd(b.getInt64(4), b.CreateShl(dim, 1)));
      llvm::Value *size = b.CreateZExt(b.CreateAlignedLoad(b.getInt16Ty(), sizeAt, llvm::Align(2)),
                                       b.getInt32Ty());
      llvm::Value *result = size;
      if (groups) {
        llvm::Value *gridAt =
            b.CreateGEP(b.getInt8Ty(), packet, b.CreateAdd(b.getInt64(12), b.CreateShl(dim, 2)));
        llvm::Value *grid = b.CreateAlignedLoad(b.getInt32Ty(), gridAt, llvm::Align(4));
        // Work-items to workgroups, a partial last one counted.
        result = b.CreateUDiv(b.CreateAdd(grid, b.CreateSub(size, b.getInt32(1))), size);
      }
      result = b.CreateZExtOrTrunc(result, call->getType());
      call->replaceAllUsesWith(result);
      call->eraseFromParent();
    }
    if (f.use_empty())
      f.eraseFromParent();
  }
}

/// A function the device code calls that nothing defines (a device-library function such as
/// __ocml_erf_f32 the lowering left), by name; empty when there is none.
std::string undefinedCallee(const llvm::Module &module) {
  for (const llvm::Function &f : module)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty())
      return f.getName().str();
  return "";
}

} // namespace

absl::StatusOr<tessel::RocmCode> tessel::emitRocmCode(ModuleOp module, const RocmChip &chip,
                                                      bool isa, int64_t arenaBytes) {
  initializeAmdgpuOnce();
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> translated = translateDeviceCode(module, context);
  if (!translated.ok())
    return translated.status();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*translated);
  layOutLds(*llvmModule, arenaBytes);
  replaceOcmlCalls(*llvmModule);
  replaceOcklCalls(*llvmModule);
  if (std::string callee = undefinedCallee(*llvmModule); !callee.empty())
    return absl::UnimplementedError(
        "the kernel calls " + callee +
        ", which the rocm backend does not lower (it links no ROCm device library)");

  llvm::Triple triple("amdgcn-amd-amdhsa");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return absl::FailedPreconditionError("LLVM has no AMDGPU target: " + error);
  std::string features = chip.waveSize == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip.arch, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return absl::InternalError(std::string("cannot create an AMDGPU target machine for ") +
                               chip.arch);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // Code object version 5 (ROCm 5.x and later load it).
  llvmModule->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", 500);
  if (llvm::Error e = makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return absl::InternalError(llvm::toString(std::move(e)));
  layOutLds(*llvmModule, arenaBytes);
  RocmCode code;
  {
    llvm::raw_string_ostream os(code.llvmIR);
    llvmModule->print(os, nullptr);
  }
  auto generate = [&](llvm::CodeGenFileType type, std::string *out) -> absl::Status {
    // Code generation changes the module: each kind from a copy of the optimized IR.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*llvmModule);
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, os, nullptr, type))
      return absl::InternalError("the AMDGPU target cannot emit this kind of file");
    pm.run(*copy);
    *out = std::string(buffer.str());
    return absl::OkStatus();
  };
  if (isa)
    if (absl::Status s = generate(llvm::CodeGenFileType::AssemblyFile, &code.isa); !s.ok())
      return s;
  if (absl::Status s = generate(llvm::CodeGenFileType::ObjectFile, &code.object); !s.ok())
    return s;
  return code;
}

absl::StatusOr<std::string> tessel::findLld() {
  std::string lld = std::string(TESSEL_LLVM_PREFIX) + "/bin/ld.lld";
  if (llvm::sys::fs::can_execute(lld))
    return lld;
  for (const char *name : {"ld.lld-22", "ld.lld"})
    if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName(name))
      return *found;
  return absl::FailedPreconditionError("a code object needs ld.lld (LLVM 22's linker: Debian's "
                                       "lld-22); none at " + lld + " or on PATH");
}

absl::StatusOr<std::string> tessel::linkHsaco(const std::string &lld, const std::string &object) {
  return runTool(lld, {"-flavor", "gnu", "-shared", "{in}", "-o", "{out}"}, object, "ld.lld",
                 /*seconds=*/120);
}
