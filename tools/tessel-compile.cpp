//===- tessel-compile.cpp - compile a kernel to any stage ---------*- C++ -*-===//
//
// tessel-compile INPUT.ttir --entry NAME [--target cpu[:cpu-name]] [--features +a,-b]
//                [--matmul-tile M,N,K] [--vector-width W] [--unroll U]
//                --emit ttir|structured|linalg|llvm|asm|obj|so -o OUT
//
//===----------------------------------------------------------------------===//

#include "compiler/pipeline/Compiler.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::opt<std::string> input(cl::Positional, cl::desc("<input .ttir/.mlir>"), cl::Required);
static cl::opt<std::string> entry("entry", cl::desc("kernel to compile"), cl::Required);
static cl::opt<std::string> target("target", cl::desc("cpu or cpu:<llvm-cpu-name>"),
                                   cl::init("cpu"));
static cl::opt<std::string> features("features", cl::desc("LLVM target features (+avx2,...)"));
static cl::opt<std::string> triple("triple", cl::desc("target triple (default: this machine)"));
static cl::opt<std::string> emit("emit", cl::desc("ttir|structured|linalg|llvm|asm|obj|so"),
                                 cl::init("so"));
static cl::opt<std::string> output("o", cl::desc("output file"), cl::Required);
static cl::opt<int64_t> vectorWidth(
    "vector-width", cl::desc("elementwise vector width in elements (0 = LLVM's vectorizer)"),
    cl::init(0));
static cl::opt<int64_t> unroll("unroll", cl::desc("elementwise rows per vector step"),
                               cl::init(1));
static cl::opt<int64_t> prefetch(
    "prefetch",
    cl::desc("prefetch the blocks of the program this many program ids ahead (0 = none)"),
    cl::init(0));
static cl::list<std::string> constexprs(
    "constexpr", cl::desc("NAME=VALUE: a constexpr (or baked-in) parameter of a .py kernel"));
static cl::opt<std::string> signature(
    "signature", cl::desc("types of a .py kernel's runtime parameters: '*fp32:16,i32,...'"));
static cl::opt<bool> debugMode(
    "debug", cl::desc("keep device assertions of a .py kernel (Triton's debug mode)"));
static cl::list<int64_t> matmulTile("matmul-tile",
                                    cl::desc("matmul register tile rows,cols,depth (0 = loops)"),
                                    cl::CommaSeparated);

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "tessel kernel compiler\n");
  auto fail = [](const std::string &message) {
    llvm::errs() << "tessel-compile: " << message << "\n";
    return 1;
  };
  tessel::CompileOptions options;
  options.entry = entry;
  if (target != "cpu") {
    if (!llvm::StringRef(target).starts_with("cpu:"))
      return fail("unknown --target '" + target + "' (expected cpu or cpu:<name>)");
    options.target.cpu = target.substr(4);
  }
  options.target.features = features;
  options.target.triple = triple;
  absl::StatusOr<tessel::EmitKind> kind = tessel::parseEmitKind(emit);
  if (!kind.ok())
    return fail(std::string(kind.status().message()));
  options.emit = *kind;
  options.outputPath = output;
  if (vectorWidth < 0 || unroll < 1 || prefetch < 0)
    return fail("--vector-width and --prefetch must be >= 0 and --unroll >= 1");
  options.knobs.vectorWidth = vectorWidth;
  options.knobs.unroll = unroll;
  options.knobs.prefetch = prefetch;
  if (!matmulTile.empty()) {
    if (matmulTile.size() != 3 || matmulTile[0] < 0 || matmulTile[1] <= 0 ||
        matmulTile[2] <= 0)
      return fail("--matmul-tile takes rows,cols,depth (rows 0 for plain loops)");
    options.knobs.matmulTileM = matmulTile[0];
    options.knobs.matmulTileN = matmulTile[1];
    options.knobs.matmulTileK = matmulTile[2];
  }

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
  if (options.emit == tessel::EmitKind::SharedObject)
    return 0;
  std::error_code ec;
  llvm::ToolOutputFile out(output, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write " + output + ": " + ec.message());
  out.os() << *artifact;
  out.keep();
  return 0;
}
