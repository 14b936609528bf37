//===- ParserFuzzer.cpp - fuzz entry: bytes as a kernel file -*- C++ -*-===//
//
// Parses the input as a kernel file and generates tt IR for each @triton.jit function with its
// first parameter typed *fp32, every other runtime parameter i32 and every constexpr left to its
// default.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/CodeGen.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include "mlir/IR/MLIRContext.h"

namespace tessel::fuzz {

bool FuzzKernelSource(const std::string &bytes) {
  using namespace tessel::frontend;
  SourceFile file("fuzz.py", bytes);
  absl::StatusOr<Module> module = Parse(file);
  if (!module.ok())
    return false;
  for (const FunctionDef &fn : module->functions) {
    KernelSpec spec;
    spec.entry = fn.name;
    for (size_t k = 0; k < fn.params.size(); ++k)
      spec.signature.push_back(k == 0 ? "*fp32" : "i32");
    mlir::MLIRContext context;
    (void)GenerateKernel(context, file, *module, spec);
  }
  return true;
}

std::vector<std::string> KernelSourceSeeds() {
  std::vector<std::string> seeds;
  for (const char *path :
       {"compiler/frontend/test/samples/kernels.py", "compiler/frontend/test/lit/builtins.py",
        "compiler/frontend/test/lit/calls.py", "compiler/frontend/test/lit/control_flow.py",
        "compiler/frontend/test/lit/more_builtins.py", "compiler/frontend/test/lit/noinline.py",
        "compiler/frontend/test/lit/promotion.py", "compiler/frontend/test/lit/shapes.py",
        "compiler/frontend/test/lit/syntax.py",
        "compiler/frontend/test/kernels/frontend_kernels.py"}) {
    seeds.push_back(ReadFileBytes(path));
    Check(!seeds.back().empty(), path);
  }
  return seeds;
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzKernelSource, tessel::fuzz::KernelSourceSeeds)
