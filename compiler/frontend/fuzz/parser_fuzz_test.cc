//===- parser_fuzz_test.cc - the fuzz entry point over seeds and their mutations -*- C++ -*-===//
//
// Every seed (the sample kernels), every prefix of it at token-ish boundaries, every copy with
// one line deleted, and a few thousand random byte-level mutations (fresh seed each run,
// printed) go through LLVMFuzzerTestOneInput. The test fails by crashing or hanging.
//
//===----------------------------------------------------------------------===//

#include "gtest/gtest.h"

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

int run(const std::string &s) {
  return LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string seed() { return readFile("compiler/frontend/test/samples/kernels.py"); }

TEST(ParserFuzz, EveryTestKernelAsIs) {
  // The frontend's own test kernels (constructs, builtins, aggregates) run through the entry
  // point with its generic specialization: errors are fine, crashes are not.
  for (const char *path :
       {"compiler/frontend/test/lit/builtins.py", "compiler/frontend/test/lit/calls.py",
        "compiler/frontend/test/lit/control_flow.py", "compiler/frontend/test/lit/more_builtins.py",
        "compiler/frontend/test/lit/noinline.py", "compiler/frontend/test/lit/promotion.py",
        "compiler/frontend/test/lit/shapes.py", "compiler/frontend/test/lit/syntax.py",
        "compiler/frontend/test/kernels/frontend_kernels.py"}) {
    std::string text = readFile(path);
    ASSERT_FALSE(text.empty()) << path;
    EXPECT_EQ(run(text), 0) << path;
    for (size_t n = 0; n < text.size(); n += 97)
      EXPECT_EQ(run(text.substr(0, n)), 0) << path;
  }
}

TEST(ParserFuzz, SeedPrefixesAndLineDeletions) {
  std::string text = seed();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(run(text), 0);
  for (size_t n = 0; n < text.size(); n += 7)
    EXPECT_EQ(run(text.substr(0, n)), 0);
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
  for (size_t l = 0; l + 1 < starts.size(); ++l)
    EXPECT_EQ(run(text.substr(0, starts[l]) + text.substr(starts[l + 1])), 0);
}

TEST(ParserFuzz, RandomMutations) {
  std::string text = seed();
  unsigned s = std::random_device{}();
  std::printf("random seed %u\n", s);
  std::mt19937 gen(s);
  const std::string alphabet = "()[]{}:,.=+-*/%<>!&|^~@ \n\t#'\"\\0123456789abcdefxyzTFN_";
  for (int i = 0; i < 2000; ++i) {
    std::string m = text;
    int edits = 1 + int(gen() % 4);
    for (int e = 0; e < edits && !m.empty(); ++e) {
      size_t pos = gen() % m.size();
      switch (gen() % 3) {
      case 0:
        m[pos] = alphabet[gen() % alphabet.size()];
        break;
      case 1:
        m.erase(pos, 1 + gen() % 8);
        break;
      default:
        m.insert(pos, 1, alphabet[gen() % alphabet.size()]);
        break;
      }
    }
    EXPECT_EQ(run(m), 0);
  }
}

TEST(ParserFuzz, DeepNesting) {
  // Deep nesting is an error, not a stack overflow.
  EXPECT_EQ(run("x = " + std::string(100000, '(') + "1"), 0);
  EXPECT_EQ(run("x = " + std::string(100000, '-') + "1"), 0);
  EXPECT_EQ(run("x = " + std::string(50000, '[')), 0);
  std::string deep = "import triton\n@triton.jit\ndef k(p):\n";
  for (int d = 1; d < 400; ++d)
    deep += std::string(d, ' ') + "if p:\n";
  deep += std::string(400, ' ') + "pass\n";
  EXPECT_EQ(run(deep), 0);
}

} // namespace
