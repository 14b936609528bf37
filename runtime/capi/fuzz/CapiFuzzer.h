//===- CapiFuzzer.h - fuzz entry of the C API -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_CAPI_FUZZ_CAPIFUZZER_H
#define TESSEL_RUNTIME_CAPI_FUZZ_CAPIFUZZER_H

#include <string>

namespace tessel::fuzz {

/// The input is the manifest of the bundle runtime/fuzz's manifest entry uses, opened and
/// launched through the C API; seeds: BundleManifestSeeds().
bool FuzzCapiManifest(const std::string &bytes);

} // namespace tessel::fuzz

#endif // TESSEL_RUNTIME_CAPI_FUZZ_CAPIFUZZER_H
