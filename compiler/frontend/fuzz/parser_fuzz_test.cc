//===- parser_fuzz_test.cc - the fuzz entry point over seeds and their mutations -*- C++ -*-===//
//
// Every seed (the sample kernels), every prefix of it at token-ish boundaries, every copy with
// one line deleted, and a few thousand mutations of the seeds (tools/fuzz/Fuzz.h: fresh seed
// each run, printed) go through the entry (fuzz/ParserFuzzer.cpp). The test fails by crashing or
// hanging.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace {

using tessel::fuzz::FuzzKernelSource;

std::string seed() {
  return tessel::fuzz::ReadFileBytes("compiler/frontend/test/samples/kernels.py");
}

TEST(ParserFuzz, EveryTestKernelAsIs) {
  // The frontend's own test kernels (constructs, builtins, aggregates) run through the entry
  // point with its generic specialization: errors are fine, crashes are not.
  for (const std::string &text : tessel::fuzz::KernelSourceSeeds()) {
    EXPECT_TRUE(FuzzKernelSource(text)) << "a seed does not parse:\n" << text;
    for (size_t n = 0; n < text.size(); n += 97)
      (void)FuzzKernelSource(text.substr(0, n));
  }
}

TEST(ParserFuzz, SeedPrefixesAndLineDeletions) {
  std::string text = seed();
  ASSERT_FALSE(text.empty());
  (void)FuzzKernelSource(text);
  for (size_t n = 0; n < text.size(); n += 7)
    (void)FuzzKernelSource(text.substr(0, n));
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
  for (size_t l = 0; l + 1 < starts.size(); ++l)
    (void)FuzzKernelSource(text.substr(0, starts[l]) + text.substr(starts[l + 1]));
}

TEST(ParserFuzz, RandomMutations) {
  tessel::fuzz::Run(
      "kernel-source", tessel::fuzz::KernelSourceSeeds(),
      [](const std::string &text) { (void)FuzzKernelSource(text); }, 8, 2000);
}

TEST(ParserFuzz, DeepNesting) {
  // Deep nesting is an error, not a stack overflow.
  (void)FuzzKernelSource("x = " + std::string(100000, '(') + "1");
  (void)FuzzKernelSource("x = " + std::string(100000, '-') + "1");
  (void)FuzzKernelSource("x = " + std::string(50000, '['));
  std::string deep = "import triton\n@triton.jit\ndef k(p):\n";
  for (int d = 1; d < 400; ++d)
    deep += std::string(d, ' ') + "if p:\n";
  deep += std::string(400, ' ') + "pass\n";
  (void)FuzzKernelSource(deep);
}

} // namespace
