//===- CudaCodeGen.cpp - NVVM to PTX with LLVM's NVPTX backend; cubin by ptxas -*- C++ -*-===//

#include "compiler/backend/cuda/CudaBackend.h"

#include "compiler/backend/GpuKernels.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ScopeExit.h"
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

#include "runtime/target/GpuArtifact.h"

#include <mutex>

using namespace mlir;

namespace {

void initializeNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

} // namespace

absl::Status tessel::emitPtx(ModuleOp module, const std::string &arch,
                             const std::string &libdevice, std::string *llvmIR,
                             std::string *ptx) {
  initializeNvptxOnce();
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> translated = translateDeviceCode(module, context);
  if (!translated.ok())
    return translated.status();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*translated);
  if (absl::Status s = replaceLibdeviceCalls(*llvmModule, !libdevice.empty()); !s.ok())
    return s;
  // The dynamic shared-memory arena (gpu.dynamic_shared_memory) arrives as an internal,
  // zero-sized shared global, which NVPTX would print as a one-byte static variable that the
  // other static buffers are placed after: it must be the `.extern .shared` array whose size
  // the launch gives.
  for (llvm::GlobalVariable &global : llvmModule->globals())
    if (global.getAddressSpace() == 3 && global.getValueType()->isArrayTy() &&
        global.getValueType()->getArrayNumElements() == 0) {
      global.setInitializer(nullptr);
      global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
  absl::StatusOr<std::string> ptxVersion = PtxVersionFor(arch);
  if (!ptxVersion.ok())
    return ptxVersion.status();
  std::string features = "+ptx" + ptxVersion->substr(0, 1) + ptxVersion->substr(2);
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return absl::FailedPreconditionError("LLVM has no NVPTX target: " + error);
  // The chip and PTX version are checked above: LLVM aborts on a pair it does not support.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, arch, features, llvm::TargetOptions(), std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return absl::InternalError("cannot create an NVPTX target machine for " + arch);
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  if (!libdevice.empty())
    if (absl::Status s = linkLibdevice(*llvmModule, libdevice); !s.ok())
      return s;
  if (llvm::Error e = makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return absl::InternalError(llvm::toString(std::move(e)));
  if (llvmIR) {
    llvm::raw_string_ostream os(*llvmIR);
    llvmModule->print(os, nullptr);
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return absl::InternalError("the NVPTX target cannot emit assembly");
  pm.run(*llvmModule);
  *ptx = std::string(buffer.str());
  return absl::OkStatus();
}

absl::StatusOr<std::string> tessel::findCudaToolkit(const std::string &requested) {
  auto hasPtxas = [](const std::string &root) {
    return llvm::sys::fs::can_execute(root + "/bin/ptxas");
  };
  if (requested == "none")
    return std::string();
  if (!requested.empty()) {
    if (!hasPtxas(requested))
      return absl::NotFoundError("no CUDA toolkit at " + requested + " (no bin/ptxas)");
    return requested;
  }
  if (const char *env = std::getenv("CUDA_PATH"); env && *env && hasPtxas(env))
    return std::string(env);
  if (hasPtxas("/usr/local/cuda"))
    return std::string("/usr/local/cuda");
  return std::string();
}

std::string tessel::ptxasVersion(const std::string &toolkit) {
  llvm::SmallString<128> log;
  if (llvm::sys::fs::createTemporaryFile("tessel-ptxas", "txt", log))
    return "unknown";
  auto cleanup = llvm::make_scope_exit([&] { llvm::sys::fs::remove(log); });
  std::string ptxas = toolkit + "/bin/ptxas";
  llvm::SmallVector<llvm::StringRef> args{ptxas, "--version"};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, /*SecondsToWait=*/30) != 0)
    return "unknown";
  auto text = llvm::MemoryBuffer::getFile(log);
  if (!text)
    return "unknown";
  llvm::StringRef last = llvm::StringRef((*text)->getBuffer()).trim().rsplit('\n').second;
  if (last.empty())
    last = llvm::StringRef((*text)->getBuffer()).trim();
  return last.str();
}

absl::StatusOr<std::string> tessel::assembleCubin(const std::string &toolkit,
                                                  const std::string &ptx,
                                                  const std::string &arch) {
  return runTool(toolkit + "/bin/ptxas", {"-arch=" + arch, "-O3", "{in}", "-o", "{out}"}, ptx,
                 "ptxas");
}

std::string tessel::libdevicePath(const std::string &toolkit) {
  if (toolkit.empty())
    return "";
  std::string path = toolkit + "/nvvm/libdevice/libdevice.10.bc";
  return llvm::sys::fs::exists(path) ? path : "";
}
