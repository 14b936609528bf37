//===- ParserFuzzer.cpp - libFuzzer entry point: any bytes through the frontend -*- C++ -*-===//
//
// Parses the input as a kernel file and generates tt IR for each @triton.jit function with
// every runtime parameter typed i32 and every constexpr left to its default. Errors are
// expected; crashes, hangs and aborts are bugs. Built as a libFuzzer target with clang
// (tools/build_parser_fuzzer.sh); under the default toolchain parser_fuzz_test runs the same
// entry point over a seed corpus and its mutations.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/CodeGen.h"
#include "compiler/frontend/Parser.h"

#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace tessel::frontend;
  SourceFile file("fuzz.py", std::string(reinterpret_cast<const char *>(data), size));
  absl::StatusOr<Module> module = Parse(file);
  if (!module.ok())
    return 0;
  for (const FunctionDef &fn : module->functions) {
    KernelSpec spec;
    spec.entry = fn.name;
    for (size_t k = 0; k < fn.params.size(); ++k)
      spec.signature.push_back(k == 0 ? "*fp32" : "i32");
    mlir::MLIRContext context;
    (void)GenerateKernel(context, file, *module, spec);
  }
  return 0;
}
