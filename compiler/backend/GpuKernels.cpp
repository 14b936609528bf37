//===- GpuKernels.cpp - what the GPU backends share: kernels' launch metadata -*- C++ -*-===//

#include "compiler/backend/GpuKernels.h"
#include "compiler/backend/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

absl::StatusOr<std::vector<tessel::GpuKernelInfo>>
tessel::describeGpuKernels(ModuleOp module, int32_t blockThreads, const std::string &backend) {
  std::vector<GpuKernelInfo> kernels;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f.isPublic() || f.isExternal() || f.getNumArguments() < 6)
      continue;
    GpuKernelInfo info;
    info.name = f.getName().str();
    for (Type t : f.getFunctionType().getInputs().drop_back(6))
      info.signature += (info.signature.empty() ? "" : ",") + launchTypeName(t);
    // What the kernel may assume of its arguments (Triton's specialization): the pipeline
    // makes LLVM use it, the runtime checks it at launch.
    for (unsigned i = 0; i + 6 < f.getNumArguments(); ++i) {
      auto d = f.getArgAttrOfType<IntegerAttr>(i, "tt.divisibility");
      int64_t v = d ? d.getInt() : 1;
      if (v < 1 || v > (int64_t(1) << 30) || !llvm::isPowerOf2_64(uint64_t(v)))
        return absl::InvalidArgumentError("argument " + std::to_string(i) + " of " + info.name +
                                          ": tt.divisibility " + std::to_string(v) +
                                          " is not a power of two");
      info.divisibility.push_back(v);
    }
    if (llvm::all_of(info.divisibility, [](int64_t v) { return v == 1; }))
      info.divisibility.clear();
    else
      f->setAttr(kArgDivisibilityAttr,
                 DenseI64ArrayAttr::get(module.getContext(), info.divisibility));
    info.block = {blockThreads, 1, 1};
    kernels.push_back(info);
  }
  if (module->walk([](Operation *op) {
              return op->getName().getStringRef() == "tt.print" ? WalkResult::interrupt()
                                                                 : WalkResult::advance();
            })
          .wasInterrupted())
    return absl::UnimplementedError("tl.device_print is not supported on " + backend + " yet");
  return kernels;
}

absl::Status tessel::lowerGpuKernels(ModuleOp module, const std::string &pipeline,
                                     int32_t blockThreads, const std::string &backend,
                                     bool totalShared, GpuArtifact &artifact) {
  if (auto info = module->getAttrOfType<StringAttr>(kBuildInfoAttr)) {
    artifact.buildInfo = info.getValue().str();
    module->removeAttr(kBuildInfoAttr);
  }
  absl::StatusOr<std::vector<GpuKernelInfo>> kernels =
      describeGpuKernels(module, blockThreads, backend);
  if (!kernels.ok())
    return kernels.status();
  artifact.kernels = std::move(*kernels);
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return absl::InternalError("bad " + backend + " pipeline: " + error);
  if (failed(pm.run(module)))
    return absl::InvalidArgumentError("the " + backend + " backend failed");
  takeSharedBytes(module, artifact.kernels, totalShared);
  return absl::OkStatus();
}

void tessel::takeSharedBytes(ModuleOp module, std::vector<GpuKernelInfo> &kernels, bool total) {
  if (auto shared = module->getAttrOfType<DictionaryAttr>(kDynamicSharedBytesAttr)) {
    for (GpuKernelInfo &info : kernels)
      if (auto bytes = shared.getAs<IntegerAttr>(info.name))
        info.sharedBytes = bytes.getInt();
    module->removeAttr(kDynamicSharedBytesAttr);
  }
  if (auto shared = module->getAttrOfType<DictionaryAttr>(kTotalSharedBytesAttr)) {
    if (total)
      for (GpuKernelInfo &info : kernels)
        if (auto bytes = shared.getAs<IntegerAttr>(info.name))
          info.ldsBytes = bytes.getInt();
    module->removeAttr(kTotalSharedBytesAttr);
  }
}

absl::StatusOr<std::string> tessel::writeGpuArtifact(const GpuArtifact &artifact,
                                                     const std::string &path) {
  if (path.empty())
    return absl::InvalidArgumentError("an artifact needs an output path");
  std::string text = SerializeGpuArtifact(artifact);
  // Only what the runtime will load: an artifact its parser refuses (a tensor map over an
  // argument that is not a pointer, ...) is tessel's error, reported here and not written.
  if (absl::StatusOr<GpuArtifact> back = ParseGpuArtifact(text); !back.ok())
    return absl::InternalError("tessel built an artifact the runtime would refuse (" +
                               std::string(back.status().message()) + "); nothing written to " +
                               path);
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << text;
        return llvm::Error::success();
      }))
    return absl::InternalError("cannot write " + path + ": " + llvm::toString(std::move(e)));
  return path;
}

const tessel::KnobInfo &tessel::gpuUnrollKnob() {
  static const KnobInfo knob = {
      "unroll", 1, 16, {1, 2, 4, 8, 16}, 4,
      "iterations of a loop spread over the threads that each thread runs at once (loads in "
      "flight)"};
  return knob;
}

const tessel::KnobInfo &tessel::gpuVectorBytesKnob() {
  static const KnobInfo knob = {
      "vector_bytes", 0, 16, {0, 4, 8, 16}, 16,
      "bytes of consecutive elements a thread owns of a tile kept in registers, loaded and "
      "stored as one vector where the accesses are proven contiguous and aligned (4 or 0: one "
      "f32 element a thread at a time)"};
  return knob;
}

absl::StatusOr<std::unique_ptr<llvm::Module>>
tessel::translateDeviceCode(ModuleOp module, llvm::LLVMContext &context) {
  gpu::GPUModuleOp gpuModule;
  module.walk([&](gpu::GPUModuleOp m) { gpuModule = m; });
  if (!gpuModule)
    return absl::InternalError("the GPU pipeline left no gpu.module");
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
  registerROCDLDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(*device, context);
  if (!llvmModule)
    return absl::InternalError("translation of the device code to LLVM IR failed");
  return llvmModule;
}

std::string tessel::gpuBufferizationPipeline() {
  // An early return (Triton's cf.cond_br to a block with tt.return) as scf.if: program
  // mapping spreads one block's structured ops over the threads. The CPU keeps the branches.
  return "lift-cf-to-scf,canonicalize,"
         "tessel-cpu-drop-triton-attributes,"
         "linalg-fuse-elementwise-ops,canonicalize,"
         "one-shot-bufferize{bufferize-function-boundaries=true "
         "function-boundary-type-conversion=identity-layout-map "
         "allow-return-allocs-from-loops=true},"
         "canonicalize,cse,"
         "func.func(buffer-hoisting,buffer-loop-hoisting),"
         "convert-bufferization-to-memref,"
         "tessel-cpu-copies-to-linalg";
}

absl::StatusOr<std::string> tessel::runTool(const std::string &tool,
                                            const std::vector<std::string> &args,
                                            const std::string &input, const std::string &what,
                                            unsigned seconds) {
  llvm::SmallString<128> in, out, log;
  if (llvm::sys::fs::createTemporaryFile("tessel", "in", in) ||
      llvm::sys::fs::createTemporaryFile("tessel", "out", out) ||
      llvm::sys::fs::createTemporaryFile("tessel", "log", log))
    return absl::InternalError("cannot create temporary files for " + what);
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
    os << input;
  }
  std::vector<std::string> expanded = {tool};
  for (const std::string &arg : args)
    expanded.push_back(arg == "{in}" ? in.str().str() : arg == "{out}" ? out.str().str() : arg);
  llvm::SmallVector<llvm::StringRef> refs(expanded.begin(), expanded.end());
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(tool, refs, std::nullopt, redirects, seconds, 0, &message);
  if (rc != 0) {
    std::string text;
    if (auto buffer = llvm::MemoryBuffer::getFile(log))
      text = (*buffer)->getBuffer().str();
    return absl::InvalidArgumentError(what + " failed (exit " + std::to_string(rc) + "): " +
                                      message + text);
  }
  auto result = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!result)
    return absl::InternalError(what + " wrote nothing");
  return (*result)->getBuffer().str();
}
