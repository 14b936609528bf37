//===- CpuCodeGen.cpp - LLVM dialect to LLVM IR, assembly, object code -*- C++ -*-===//
//
// The CPU target as LLVM sees it (triple, CPU, features; the host's where not given) and code
// generation: translation to LLVM IR, the LLVM IR steps around LLVM's optimization pipeline
// (InlineKernels.cpp, PrefetchPlacement.cpp, TreeReductions.cpp), then assembly or an object.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/CpuBackend.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;

static void initializeNativeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

tessel::CpuTarget tessel::toCpuTarget(const Target &target) {
  CpuTarget cpu;
  cpu.cpu = target.cpu;
  for (const std::string &f : target.features)
    if (!f.empty() && (f[0] == '+' || f[0] == '-'))
      cpu.features += (cpu.features.empty() ? "" : ",") + f;
  if (!target.arch.empty() && target.arch != Target::Host().arch)
    cpu.triple = target.arch + "-unknown-linux-gnu";
  return cpu;
}

tessel::CpuTarget tessel::resolveCpuTarget(const CpuTarget &target) {
  CpuTarget r = target;
  if (r.triple.empty())
    r.triple = llvm::sys::getDefaultTargetTriple();
  if (r.cpu.empty()) {
    r.cpu = llvm::sys::getHostCPUName().str();
    if (r.features.empty()) {
      std::string features;
      for (const auto &f : llvm::sys::getHostCPUFeatures()) {
        if (!features.empty())
          features += ",";
        features += (f.second ? "+" : "-") + f.first().str();
      }
      // LLVM's tuning for AVX-512 server parts keeps vectors at 256 bits; the tile kernels are
      // all vector work, so use the full width.
      if (features.find("+avx512f") != std::string::npos)
        features += ",-prefer-256-bit";
      r.features = features;
    }
  } else if (r.features.empty()) {
    // A named CPU with AVX-512 (a bundle built for another machine): full-width vectors too.
    initializeNativeTargetOnce();
    llvm::Triple triple(r.triple);
    std::string error;
    if (const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error)) {
      std::unique_ptr<llvm::MCSubtargetInfo> info(t->createMCSubtargetInfo(triple, r.cpu, ""));
      if (info && info->isCPUStringValid(r.cpu) && info->checkFeatures("+avx512f"))
        r.features = "-prefer-256-bit";
    }
  }
  return r;
}

/// LLVM's description of `requested`'s CPU (empty fields: the host), or null.
static std::unique_ptr<llvm::MCSubtargetInfo> subtargetInfo(const tessel::CpuTarget &requested) {
  initializeNativeTargetOnce();
  tessel::CpuTarget target = tessel::resolveCpuTarget(requested);
  llvm::Triple triple(target.triple);
  std::string error;
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return nullptr;
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      llvmTarget->createMCSubtargetInfo(triple, target.cpu, target.features));
}

bool tessel::cpuTargetHasFeature(const CpuTarget &requested, const std::string &feature) {
  std::unique_ptr<llvm::MCSubtargetInfo> info = subtargetInfo(requested);
  return info && info->checkFeatures("+" + feature);
}

bool tessel::cpuTargetIsKnown(const CpuTarget &target) {
  if (target.cpu.empty())
    return true;
  CpuTarget generic = target;
  generic.cpu = "generic";
  std::unique_ptr<llvm::MCSubtargetInfo> info = subtargetInfo(generic);
  return info && info->isCPUStringValid(target.cpu);
}

std::vector<std::string> tessel::cpuinfoFeatures(const CpuTarget &target) {
  static const std::pair<const char *, const char *> kNames[] = {
      {"sse2", "sse2"},         {"sse3", "pni"},            {"ssse3", "ssse3"},
      {"sse4.1", "sse4_1"},     {"sse4.2", "sse4_2"},       {"popcnt", "popcnt"},
      {"avx", "avx"},           {"avx2", "avx2"},           {"fma", "fma"},
      {"f16c", "f16c"},         {"bmi", "bmi1"},            {"bmi2", "bmi2"},
      {"lzcnt", "abm"},         {"movbe", "movbe"},         {"aes", "aes"},
      {"pclmul", "pclmulqdq"},  {"adx", "adx"},             {"sha", "sha_ni"},
      {"gfni", "gfni"},         {"vaes", "vaes"},           {"vpclmulqdq", "vpclmulqdq"},
      {"avxvnni", "avx_vnni"},  {"avx512f", "avx512f"},     {"avx512dq", "avx512dq"},
      {"avx512cd", "avx512cd"}, {"avx512bw", "avx512bw"},   {"avx512vl", "avx512vl"},
      {"avx512ifma", "avx512ifma"}, {"avx512vbmi", "avx512vbmi"},
      {"avx512vbmi2", "avx512_vbmi2"}, {"avx512vnni", "avx512_vnni"},
      {"avx512bitalg", "avx512_bitalg"}, {"avx512vpopcntdq", "avx512_vpopcntdq"},
      {"avx512bf16", "avx512_bf16"}, {"avx512fp16", "avx512_fp16"}};
  std::vector<std::string> out;
  for (const auto &[llvmName, cpuinfoName] : kNames)
    if (cpuTargetHasFeature(target, llvmName))
      out.push_back(cpuinfoName);
  return out;
}

absl::StatusOr<std::string> tessel::emitCpuCode(ModuleOp module, const CpuTarget &requested,
                                                CpuEmitKind kind) {
  std::string error;
  initializeNativeTargetOnce();
  CpuTarget target = resolveCpuTarget(requested);
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);

  // The compiler's record of what this is built from becomes an exported string.
  std::string buildInfo;
  if (auto info = module->getAttrOfType<StringAttr>(kBuildInfoAttr)) {
    buildInfo = info.getValue().str();
    module->removeAttr(kBuildInfoAttr);
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    return absl::InternalError("translation to LLVM IR failed");
  }
  if (!buildInfo.empty()) {
    llvm::Constant *text = llvm::ConstantDataArray::getString(llvmContext, buildInfo);
    new llvm::GlobalVariable(*llvmModule, text->getType(), /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage, text, "__tessel_build_info");
  }
  llvm::Triple triple(target.triple);
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return absl::InvalidArgumentError(error);
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.cpu, target.features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt,
      target.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : target.optLevel == 0 ? llvm::CodeGenOptLevel::None
                             : llvm::CodeGenOptLevel::Default));
  if (!machine) {
    return absl::InvalidArgumentError("cannot create a target machine for " + target.triple +
                                      " / " + target.cpu);
  }
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  declarePrefetchMarker(*llvmModule);
  inlineKernelsIntoLaunchEntries(*llvmModule);
  if (llvm::Error e = makeOptimizingTransformer(target.optLevel, 0, machine.get())(
          llvmModule.get())) {
    return absl::InternalError(llvm::toString(std::move(e)));
  }
  treeMinMaxReductions(*llvmModule);
  placePrefetches(*llvmModule);
  std::string out;
  if (kind == CpuEmitKind::LLVMIR) {
    llvm::raw_string_ostream os(out);
    llvmModule->print(os, nullptr);
    return out;
  }
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  auto fileType = kind == CpuEmitKind::Assembly ? llvm::CodeGenFileType::AssemblyFile
                                                : llvm::CodeGenFileType::ObjectFile;
  if (machine->addPassesToEmitFile(pm, os, nullptr, fileType)) {
    return absl::InternalError("the target machine cannot emit this file type");
  }
  pm.run(*llvmModule);
  return std::string(buffer.str());
}
