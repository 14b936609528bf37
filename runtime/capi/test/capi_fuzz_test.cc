//===- capi_fuzz_test.cc - the C API on the manifest fuzzer's corpus, mutated -===//

#include "runtime/capi/fuzz/CapiFuzzer.h"
#include "runtime/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

namespace {

using namespace tessel::fuzz;

TEST(Fuzz, CapiAcceptsEverySeed) {
  for (const std::string &seed : BundleManifestSeeds())
    EXPECT_TRUE(FuzzCapiManifest(seed)) << seed;
}

TEST(Fuzz, CapiOnBundleManifests) {
  RunEntry("capi-manifest", BundleManifestSeeds(), FuzzCapiManifest);
}

} // namespace
