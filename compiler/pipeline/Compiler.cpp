//===- Compiler.cpp - compile a kernel from TTIR to any stage -----*- C++ -*-===//

#include "compiler/pipeline/Compiler.h"
#include "compiler/pipeline/SourceLimits.h"
#include "llvm/Support/JSON.h"

#include "compiler/backend/Registry.h"
#include "compiler/backend/cpu/Passes.h"
#include "compiler/backend/cuda/Passes.h"
#include "compiler/backend/rocm/Passes.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/structured/StructuredDialect.h"
#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/frontend/Parser.h"
#include "compiler/pipeline/StructuredPipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/SourceMgr.h"

#include <mutex>

using namespace mlir;

namespace {

bool isSharedStage(const std::string &emit) {
  for (const char *stage : tessel::kSharedStages)
    if (emit == stage)
      return true;
  return false;
}

} // namespace

absl::Status tessel::validateCompileOptions(const CompileOptions &options) {
  absl::StatusOr<const Backend *> backend = lookupBackend(options.target.kind);
  if (!backend.ok())
    return backend.status();
  if (absl::Status s = (*backend)->validateTarget(options.target); !s.ok())
    return s;
  if (absl::Status s = (*backend)->validateKnobs(options.knobs); !s.ok())
    return s;
  if (isSharedStage(options.emit))
    return absl::OkStatus();
  absl::StatusOr<ArtifactKind> kind = (*backend)->findArtifactKind(options.emit);
  if (!kind.ok()) {
    std::string kinds;
    for (const ArtifactKind &k : (*backend)->artifactKinds())
      kinds += ", " + k.name;
    return absl::InvalidArgumentError("unknown --emit '" + options.emit +
                                      "' (expected ttir, structured, linalg" + kinds + ")");
  }
  if (kind->writesFile && options.outputPath.empty())
    return absl::InvalidArgumentError("--emit " + options.emit + " needs an output path");
  return absl::OkStatus();
}

namespace {

/// Pass registration is process-wide; textual pipelines need it.
void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    tessel::registerConversionPasses();
    tessel::registerCpuPasses();
    tessel::registerCudaPasses();
    tessel::registerRocmPasses();
  });
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

/// `file:line:col` of the first file position in `loc` (as the frontend and tessel-opt print
/// it), or the location as MLIR prints it where it has none.
std::string where(Location loc) {
  std::string out;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      out = file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
            std::to_string(file.getColumn());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (out.empty()) {
    llvm::raw_string_ostream os(out);
    os << loc;
  }
  return out;
}

/// Collects every diagnostic of a context as "file:line:col: error: message" lines.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << where(diag.getLocation()) << ": ";
          switch (diag.getSeverity()) {
          case DiagnosticSeverity::Error:
            os << "error: ";
            break;
          case DiagnosticSeverity::Warning:
            os << "warning: ";
            break;
          case DiagnosticSeverity::Note:
            os << "note: ";
            break;
          case DiagnosticSeverity::Remark:
            return success(); // remarks (left unstructured, ...) are not failures
          }
          os << diag << "\n";
          return success();
        }) {}

  absl::Status error(const std::string &what) const {
    return absl::InvalidArgumentError(what + (text.empty() ? "" : ":\n" + text));
  }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};

} // namespace

absl::StatusOr<std::string> tessel::compileTTIR(const std::string &source,
                                                const std::string &filename,
                                                const CompileOptions &options) {
  if (absl::Status s = validateCompileOptions(options); !s.ok())
    return s;
  registerPassesOnce();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<tt::TritonDialect, tts::StructuredDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(context);

  if (std::string why = IrNestingProblem(source); !why.empty())
    return absl::InvalidArgumentError(filename + ":" + why);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(source, filename),
                               llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return diagnostics.error("cannot parse " + filename);

  // Keep the entry kernel public; every other function becomes private.
  bool found = false;
  std::string kernels;
  for (Operation &op : module->getOps()) {
    auto fn = dyn_cast<FunctionOpInterface>(op);
    if (!fn)
      continue;
    auto symbol = cast<SymbolOpInterface>(op);
    if (symbol.isPublic())
      kernels += (kernels.empty() ? "" : ", ") + fn.getName().str();
    if (fn.getName() == options.entry)
      found = true;
    else if (symbol.isPublic())
      symbol.setPrivate();
  }
  if (!found)
    return absl::NotFoundError("no kernel named '" + options.entry + "' in " + filename +
                               " (public functions: " + (kernels.empty() ? "none" : kernels) +
                               ")");
  if (options.emit == "ttir")
    return printModule(*module);

  // Inline assembly (tl.inline_asm_elementwise) is GPU code no target lowers yet: --emit ttir
  // keeps it; anything further is refused at its location.
  bool inlineAsm = false;
  module->walk([&](tt::ElementwiseInlineAsmOp op) {
    op.emitError() << "tl.inline_asm_elementwise: "
                   << (options.target.kind == TargetKind::Cpu
                           ? std::string("the cpu target cannot run GPU assembly")
                           : "inline assembly is not supported on " + options.target.str() +
                                 " yet")
                   << " (--emit ttir keeps it)";
    inlineAsm = true;
  });
  if (inlineAsm)
    return diagnostics.error("cannot compile " + filename + " for " + options.target.str());

  if (options.emit == "structured") {
    PassManager pm(&context, ModuleOp::getOperationName());
    pm.addPass(createInlinerPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createTritonToStructured());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (failed(pm.run(*module)))
      return diagnostics.error("triton-to-structured failed on " + filename);
    return printModule(*module);
  }
  if (failed(runStructuredPipeline(*module)))
    return diagnostics.error("the structured lowering failed on " + filename);
  if (options.emit == "linalg")
    return printModule(*module);

  // validateCompileOptions found the backend.
  const Backend *backend = *lookupBackend(options.target.kind);
  // What the artifact is compiled from, for runners to check (cpu: an exported string; GPU
  // artifacts: a field).
  {
    llvm::json::Object knobs, constexprs;
    for (const auto &[name, value] : options.knobs)
      knobs[name] = value;
    for (const auto &[name, value] : options.constexprs)
      constexprs[name] = value;
    llvm::json::Object info{{"entry", options.entry},
                            {"target", options.target.str()},
                            {"compiler_version", kCompilerVersion},
                            {"knobs", std::move(knobs)},
                            {"constexprs", std::move(constexprs)}};
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::json::Value(std::move(info));
    (*module)->setAttr(kBuildInfoAttr, StringAttr::get(&context, text));
  }
  EmitRequest request;
  request.target = options.target;
  request.knobs = options.knobs;
  request.artifact = options.emit;
  request.outputPath = options.outputPath;
  request.toolkit = options.toolkit;
  absl::StatusOr<std::string> artifact = backend->emit(*module, request);
  if (!artifact.ok())
    return diagnostics.error(std::string(artifact.status().message()) + " on " + filename);
  return artifact;
}

absl::StatusOr<std::string> tessel::generateTTIR(const std::string &source,
                                                 const std::string &filename,
                                                 const frontend::KernelSpec &spec) {
  frontend::SourceFile file(filename, source);
  absl::StatusOr<frontend::Module> ast = frontend::Parse(file);
  if (!ast.ok())
    return ast.status();
  MLIRContext context;
  absl::StatusOr<OwningOpRef<ModuleOp>> module =
      frontend::GenerateKernel(context, file, *ast, spec);
  if (!module.ok())
    return module.status();
  std::string text;
  llvm::raw_string_ostream os(text);
  (**module)->print(os, OpPrintingFlags().enableDebugInfo(/*enable=*/true, /*prettyForm=*/false));
  return text;
}

absl::StatusOr<std::string> tessel::compilePython(const std::string &source,
                                                  const std::string &filename,
                                                  const frontend::KernelSpec &spec,
                                                  const CompileOptions &options) {
  frontend::KernelSpec withEntry = spec;
  withEntry.entry = options.entry;
  absl::StatusOr<std::string> ttir = generateTTIR(source, filename, withEntry);
  if (!ttir.ok())
    return ttir.status();
  CompileOptions recorded = options;
  recorded.constexprs = spec.constexprs;
  // A kernel nested in host code ("test_add.kernel") is the function named by its last part.
  if (size_t dot = options.entry.rfind('.'); dot != std::string::npos)
    recorded.entry = options.entry.substr(dot + 1);
  return compileTTIR(*ttir, filename, recorded);
}
