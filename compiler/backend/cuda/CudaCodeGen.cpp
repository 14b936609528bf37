//===- CudaCodeGen.cpp - NVVM to PTX with LLVM's NVPTX backend; cubin by ptxas -*- C++ -*-===//

#include "compiler/backend/cuda/CudaBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
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
  gpu::GPUModuleOp gpuModule;
  module.walk([&](gpu::GPUModuleOp m) { gpuModule = m; });
  if (!gpuModule)
    return absl::InternalError("the cuda pipeline left no gpu.module");
  // The device code alone, as a module LLVM IR can be made of.
  OpBuilder b(module.getContext());
  OwningOpRef<ModuleOp> device = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(device->getBody());
  for (Operation &op : gpuModule.getBody()->without_terminator())
    b.clone(op);
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(*device, context);
  if (!llvmModule)
    return absl::InternalError("translation of the device code to LLVM IR failed");
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
  llvm::SmallString<128> in, out, log;
  if (llvm::sys::fs::createTemporaryFile("tessel", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("tessel", "cubin", out) ||
      llvm::sys::fs::createTemporaryFile("tessel", "log", log))
    return absl::InternalError("cannot create temporary files for ptxas");
  auto cleanup = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(in);
    llvm::sys::fs::remove(out);
    llvm::sys::fs::remove(log);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec)
      return absl::InternalError("cannot write " + in.str().str());
    os << ptx;
  }
  std::string ptxas = toolkit + "/bin/ptxas", archArg = "-arch=" + arch;
  llvm::SmallVector<llvm::StringRef> args{ptxas, archArg, "-O3", in, "-o", out};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &message);
  if (rc != 0) {
    std::string text;
    if (auto buffer = llvm::MemoryBuffer::getFile(log))
      text = (*buffer)->getBuffer().str();
    return absl::InvalidArgumentError("ptxas failed (exit " + std::to_string(rc) + "): " +
                                      message + text);
  }
  auto cubin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!cubin)
    return absl::InternalError("ptxas wrote no cubin");
  return (*cubin)->getBuffer().str();
}

std::string tessel::libdevicePath(const std::string &toolkit) {
  if (toolkit.empty())
    return "";
  std::string path = toolkit + "/nvvm/libdevice/libdevice.10.bc";
  return llvm::sys::fs::exists(path) ? path : "";
}
