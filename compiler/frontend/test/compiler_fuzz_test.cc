//===- compiler_fuzz_test.cc - the frontend and the TTIR reader on mutated input -*- C++ -*-===//
//
// Triton-language kernels (the corpus's and the zoo's, with their specializations) and TTIR as
// Triton 3.6 prints it, each from valid seeds and their mutations (tools/fuzz/Fuzz.h): the
// frontend generates TTIR or reports an error; the TTIR reader parses and verifies or reports
// an error, and what verifies goes down the structured lowering (compiler/frontend/fuzz/). Never a
// crash.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/fuzz/Fuzzers.h"
#include "compiler/frontend/test/CorpusSpecs.h"
#include "compiler/pipeline/Compiler.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

namespace {

TEST(Fuzz, TritonLanguageFrontend) {
  // Each corpus specialization; mutations of its source keep its entry and constexprs.
  const auto &specs = tessel::test::corpusSpecs();
  std::vector<std::string> seeds;
  std::vector<const tessel::test::CorpusSpec *> specOfSeed;
  for (const auto &s : specs) {
    seeds.push_back(tessel::fuzz::ReadFileBytes(s.source));
    specOfSeed.push_back(&s);
    ASSERT_FALSE(seeds.back().empty()) << s.source;
  }
  size_t next = 0;
  int generated = 0;
  tessel::fuzz::Run(
      "triton-language",
      seeds,
      [&](const std::string &source) {
        // A specialization whose kernel the (mutated) source still defines, in turn; else any.
        const tessel::test::CorpusSpec *chosen = nullptr;
        for (size_t k = 0; k < specOfSeed.size() && !chosen; ++k) {
          const tessel::test::CorpusSpec *c = specOfSeed[(next + k) % specOfSeed.size()];
          if (source.find("def " + c->entry + "(") != std::string::npos)
            chosen = c;
        }
        const tessel::test::CorpusSpec &s = chosen ? *chosen : *specOfSeed[next % specOfSeed.size()];
        ++next;
        tessel::frontend::KernelSpec spec;
        spec.entry = s.entry;
        spec.constexprs = s.constexprs;
        spec.signature = tessel::frontend::SplitSignature(s.signature);
        generated += tessel::generateTTIR(source, "fuzz.py", spec).ok();
      },
      10, 300);
  EXPECT_GT(generated, 0);
}

TEST(Fuzz, TtirReaderAndStructuredLowering) {
  // Every seed verifies (else the entry aborts); then their mutations.
  tessel::fuzz::RunEntry("ttir", tessel::fuzz::TtirSeeds(), tessel::fuzz::FuzzTtir, 15, 100);
}

} // namespace
