//===- Fuzzers.h - fuzz entries of the runtime's parsers -*- C++ -*-===//
//
// .npy files, GPU artifacts and bundle manifests: each entry reads its input or refuses it and
// returns whether it was accepted; what is accepted must be consistent (tools/fuzz/Fuzz.h's
// Check). Driven by runtime/test/parsers_fuzz_test under gcc and built as libFuzzer binaries by
// tools/build_fuzzers.sh.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_FUZZ_FUZZERS_H
#define TESSEL_RUNTIME_FUZZ_FUZZERS_H

#include <string>
#include <vector>

namespace tessel::fuzz {

bool FuzzNpy(const std::string &bytes);
std::vector<std::string> NpySeeds();

bool FuzzGpuArtifact(const std::string &bytes);
std::vector<std::string> GpuArtifactSeeds();

/// The input is the manifest of a bundle whose one artifact exists.
bool FuzzBundleManifest(const std::string &bytes);
std::vector<std::string> BundleManifestSeeds();
/// That bundle's directory (its artifact written on first use).
const std::string &FuzzBundleDir();

} // namespace tessel::fuzz

#endif // TESSEL_RUNTIME_FUZZ_FUZZERS_H
