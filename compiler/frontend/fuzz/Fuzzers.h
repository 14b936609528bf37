//===- Fuzzers.h - fuzz entries of the compiler's readers -*- C++ -*-===//
//
// Triton-language kernel files (parsed, then tt IR generated for each @triton.jit function with
// a generic specialization) and TTIR (parsed, verified, then down the structured lowering):
// errors are expected, crashes, hangs and aborts are bugs. Driven under gcc by
// compiler/frontend's parser_fuzz_test and compiler_fuzz_test, built as libFuzzer binaries by
// tools/build_fuzzers.sh. Seeds are read from the repository (run from its root).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_FUZZ_FUZZERS_H
#define TESSEL_COMPILER_FRONTEND_FUZZ_FUZZERS_H

#include <string>
#include <vector>

namespace tessel::fuzz {

/// Returns whether the file parsed.
bool FuzzKernelSource(const std::string &bytes);
std::vector<std::string> KernelSourceSeeds();

/// Returns whether the module parsed and verified.
bool FuzzTtir(const std::string &bytes);
std::vector<std::string> TtirSeeds();

} // namespace tessel::fuzz

#endif // TESSEL_COMPILER_FRONTEND_FUZZ_FUZZERS_H
