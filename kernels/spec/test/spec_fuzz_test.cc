//===- spec_fuzz_test.cc - kernel specs on mutated input: refused or read, never a crash -===//

#include "kernels/spec/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

namespace {

TEST(Fuzz, KernelSpecs) {
  tessel::fuzz::RunEntry("kernel-spec", tessel::fuzz::SpecSeeds(), tessel::fuzz::FuzzSpec);
}

} // namespace
