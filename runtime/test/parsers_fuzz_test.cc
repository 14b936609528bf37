//===- parsers_fuzz_test.cc - the runtime's parsers on mutated input -*- C++ -*-===//
//
// .npy files, GPU artifacts and bundle manifests, each entry of runtime/fuzz/ from its seeds and
// their mutations (tools/fuzz/Fuzz.h): every input is read or refused, never a crash or an
// escaping exception, and what is accepted is consistent.
//
//===----------------------------------------------------------------------===//

#include "runtime/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

namespace {

using namespace tessel::fuzz;

TEST(Fuzz, Npy) { RunEntry("npy", NpySeeds(), FuzzNpy); }

TEST(Fuzz, GpuArtifact) { RunEntry("gpu-artifact", GpuArtifactSeeds(), FuzzGpuArtifact); }

TEST(Fuzz, BundleManifest) {
  RunEntry("bundle-manifest", BundleManifestSeeds(), FuzzBundleManifest);
}

} // namespace
