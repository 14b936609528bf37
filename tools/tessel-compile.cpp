//===- tessel-compile.cpp - compile a kernel to any stage ---------*- C++ -*-===//
//
// tessel-compile INPUT.{ttir,mlir,py} --entry NAME [--target cpu[:NAME]|cuda[:sm_NN]|rocm:gfxN]
//                [--knob NAME=VALUE ...] [--features +a,-b]
//                [--matmul-tile M,N,K] [--vector-width W] [--unroll U] [--prefetch D]
//                --emit ttir|structured|linalg|<backend artifact kind> -o OUT
// tessel-compile --target T --list-knobs      the backend's knobs and artifact kinds
// tessel-compile FILE.py --list-kernels        the file's kernels: what --entry names
//
// --matmul-tile, --vector-width, --unroll and --prefetch are the cpu knobs tile_m/n/k,
// vector_width, unroll and prefetch under their older names.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/Registry.h"
#include "compiler/frontend/Parser.h"
#include "compiler/pipeline/Compiler.h"

#include "absl/strings/numbers.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::opt<std::string> input(cl::Positional, cl::desc("<input .ttir/.mlir/.py>"));
static cl::opt<std::string> entry("entry", cl::desc("kernel to compile"));
static cl::opt<std::string> target("target",
                                   cl::desc("cpu[:<llvm-cpu>], cuda[:sm_NN[a]] or rocm:gfxNNN"),
                                   cl::init("cpu"));
static cl::opt<bool> listKernels(
    "list-kernels",
    cl::desc("print the @triton.jit functions of a .py file (what --entry names), then exit"));
static cl::opt<bool> listKnobs("list-knobs",
                               cl::desc("print the target's knobs and artifact kinds, then exit"));
static cl::list<std::string> knobArgs("knob", cl::desc("NAME=VALUE: a backend knob"));
static cl::opt<std::string> cudaToolkit(
    "cuda-toolkit",
    cl::desc("CUDA toolkit root for ptxas (default: $CUDA_PATH or /usr/local/cuda; none: PTX "
             "only)"));
static cl::opt<std::string> features("features", cl::desc("LLVM target features (+avx2,...)"));
static cl::opt<std::string> emit("emit",
                                 cl::desc("ttir|structured|linalg|<artifact kind of the backend>"),
                                 cl::init("artifact"));
static cl::opt<std::string> output("o", cl::desc("output file"));
static cl::opt<int64_t> vectorWidth(
    "vector-width", cl::desc("cpu knob vector_width: elementwise vector width (0 = LLVM's)"),
    cl::init(-1));
static cl::opt<int64_t> unroll("unroll", cl::desc("cpu knob unroll: rows per vector step"),
                               cl::init(-1));
static cl::opt<int64_t> prefetch(
    "prefetch", cl::desc("cpu knob prefetch: program ids ahead to prefetch (0 = none)"),
    cl::init(-1));
static cl::list<std::string> constexprs(
    "constexpr", cl::desc("NAME=VALUE: a constexpr (or baked-in) parameter of a .py kernel"));
static cl::opt<std::string> signature(
    "signature",
    cl::desc("types of a .py kernel's runtime parameters: '*fp32:16,i32,...'; a host-made tensor "
             "descriptor is 'tensordesc<fp16[64, 64]>' (its base, shape and strides at run "
             "time)"));
static cl::opt<bool> debugMode(
    "debug", cl::desc("keep device assertions of a .py kernel (Triton's debug mode)"));
static cl::list<int64_t> matmulTile("matmul-tile",
                                    cl::desc("cpu knobs tile_m,tile_n,tile_k (rows 0 = loops)"),
                                    cl::CommaSeparated);

int main(int argc, char **argv) {
  // A bad command line exits 2, as every tessel tool's does (tools/cli), not LLVM's 1.
  if (!cl::ParseCommandLineOptions(argc, argv, "tessel kernel compiler\n", &llvm::errs()))
    return 2;
  auto fail = [](const std::string &message) {
    llvm::errs() << "tessel-compile: " << message << "\n";
    return 1;
  };
  tessel::CompileOptions options;
  absl::StatusOr<tessel::Target> parsed = tessel::ParseTarget(target);
  if (!parsed.ok())
    return fail(std::string(parsed.status().message()));
  options.target = *parsed;
  absl::StatusOr<const tessel::Backend *> backend = tessel::lookupBackend(options.target.kind);
  if (!backend.ok())
    return fail(std::string(backend.status().message()));
  if (listKnobs) {
    llvm::outs() << "knobs of the " << tessel::TargetKindName(options.target.kind)
                 << " backend (--knob NAME=VALUE):\n";
    for (const tessel::KnobInfo &k : (*backend)->knobs())
      llvm::outs() << "  " << k.name << "  allowed " << k.allowedText() << ", default "
                   << k.defaultValue << "  " << k.doc << "\n";
    llvm::outs() << "artifact kinds (--emit):\n";
    for (const tessel::ArtifactKind &a : (*backend)->artifactKinds())
      llvm::outs() << "  " << a.name << "  " << a.doc << "\n";
    return 0;
  }
  if (listKernels) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(input);
    if (!file)
      return fail("cannot read " + input + ": " + file.getError().message());
    tessel::frontend::SourceFile source(input, (*file)->getBuffer().str());
    absl::StatusOr<tessel::frontend::Module> module = tessel::frontend::Parse(source);
    if (!module.ok())
      return fail(std::string(module.status().message()));
    // One line each: NAME(PARAM, ..., BLOCK: constexpr = 64) at line L.
    for (const tessel::frontend::FunctionDef &fn : module->functions) {
      llvm::outs() << fn.qualifiedName() << "(";
      for (size_t i = 0; i < fn.params.size(); ++i) {
        const tessel::frontend::Param &p = fn.params[i];
        llvm::outs() << (i ? ", " : "") << p.name;
        if (p.annotation && p.annotation->name == "constexpr")
          llvm::outs() << ": constexpr";
        if (const tessel::frontend::Expr *d = p.defaultValue.get()) {
          using K = tessel::frontend::ExprKind;
          llvm::outs() << " = ";
          if (d->kind == K::Int)
            llvm::outs() << d->intValue;
          else if (d->kind == K::Float)
            llvm::outs() << d->floatValue;
          else if (d->kind == K::Bool)
            llvm::outs() << (d->intValue ? "True" : "False");
          else if (d->kind == K::None)
            llvm::outs() << "None";
          else if (d->kind == K::String)
            llvm::outs() << "'" << d->name << "'";
          else
            llvm::outs() << "...";
        }
      }
      llvm::outs() << ") at line " << fn.loc.line << "\n";
    }
    return 0;
  }
  if (input.empty() || entry.empty() || output.empty())
    return fail("an input file, --entry and -o are required (or --list-knobs, --list-kernels)");
  options.entry = entry;
  if (!features.empty()) {
    llvm::SmallVector<llvm::StringRef> flags;
    llvm::StringRef(features).split(flags, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef f : flags)
      options.target.features.push_back(f.str());
  }
  auto setKnob = [&](const std::string &name, int64_t value) {
    if (!options.knobs.emplace(name, value).second)
      return fail("knob " + name + " given twice");
    return 0;
  };
  for (const std::string &k : knobArgs) {
    size_t eq = k.find('=');
    int64_t value = 0;
    if (eq == std::string::npos || eq == 0 || !absl::SimpleAtoi(k.substr(eq + 1), &value))
      return fail("--knob takes NAME=INTEGER, got '" + k + "'");
    if (int rc = setKnob(k.substr(0, eq), value))
      return rc;
  }
  if (vectorWidth.getNumOccurrences())
    if (int rc = setKnob("vector_width", vectorWidth))
      return rc;
  if (unroll.getNumOccurrences())
    if (int rc = setKnob("unroll", unroll))
      return rc;
  if (prefetch.getNumOccurrences())
    if (int rc = setKnob("prefetch", prefetch))
      return rc;
  if (!matmulTile.empty()) {
    if (matmulTile.size() != 3)
      return fail("--matmul-tile takes rows,cols,depth (rows 0 for plain loops)");
    for (auto [name, value] : {std::pair<const char *, int64_t>{"tile_m", matmulTile[0]},
                               {"tile_n", matmulTile[1]},
                               {"tile_k", matmulTile[2]}})
      if (int rc = setKnob(name, value))
        return rc;
  }
  options.emit = emit;
  options.outputPath = output;
  options.toolkit = cudaToolkit;
  if (absl::Status s = tessel::validateCompileOptions(options); !s.ok())
    return fail(std::string(s.message()));
  absl::StatusOr<tessel::ArtifactKind> fileKind = (*backend)->findArtifactKind(options.emit);
  bool writesFile = fileKind.ok() && fileKind->writesFile;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file = llvm::MemoryBuffer::getFile(input);
  if (!file)
    return fail("cannot read " + input + ": " + file.getError().message());
  bool isPython = llvm::StringRef(input).ends_with(".py");
  if (!isPython && (!constexprs.empty() || !signature.empty()))
    return fail("--constexpr and --signature apply to Triton-language (.py) input only");
  absl::StatusOr<std::string> artifact;
  if (isPython) {
    tessel::frontend::KernelSpec spec;
    for (const std::string &c : constexprs) {
      size_t eq = c.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == c.size())
        return fail("--constexpr takes NAME=VALUE, got '" + c + "'");
      if (!spec.constexprs.emplace(c.substr(0, eq), c.substr(eq + 1)).second)
        return fail("--constexpr " + c.substr(0, eq) + " given twice");
    }
    spec.signature = tessel::frontend::SplitSignature(signature);
    spec.debug = debugMode;
    artifact = tessel::compilePython((*file)->getBuffer().str(), input, spec, options);
  } else {
    artifact = tessel::compileTTIR((*file)->getBuffer().str(), input, options);
  }
  if (!artifact.ok())
    return fail(std::string(artifact.status().message()));
  if (writesFile)
    return 0;
  std::error_code ec;
  llvm::ToolOutputFile out(output, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write " + output + ": " + ec.message());
  out.os() << *artifact;
  out.keep();
  return 0;
}
