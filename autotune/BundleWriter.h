//===- BundleWriter.h - write a tuned kernel bundle atomically -*- C++ -*-===//
//
// Writes DIR (manifest.json + artifacts/, the layout runtime/Bundle.h reads) into a temporary
// directory beside it, then swaps it in with one atomic rename: readers see the old bundle or
// the new one, never a partial one, and a failed write leaves the old bundle untouched.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_BUNDLEWRITER_H
#define TESSEL_AUTOTUNE_BUNDLEWRITER_H

#include "runtime/Bundle.h"

#include "absl/status/status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

/// One tuned entry: a compiled artifact and what it was tuned for.
struct TunedEntry {
  std::string kernel, signature, dtype, entry;
  std::map<std::string, int64_t> shape;
  /// Path of the compiled artifact (of the bundle target's kind) to copy into the bundle.
  std::string artifact;
  std::string configJson = "{}", metricsJson = "{}";
  /// Dimensions compiled into the artifact: it computes correctly only for values in
  /// [first, second] (a block that covers a row covers only rows that short; a head dim compiled in serves only itself).
  std::map<std::string, std::pair<int64_t, int64_t>> serves;
  /// The kernel's launch contract (JSON text, Kernel::launchJson); empty: none. Written once
  /// per kernel, from its first entry that has one.
  std::string launchJson;
  /// The tie set the entry's configuration was chosen from (configurations as JSON text, the
  /// chosen one first); fewer than two: no tie, nothing written.
  std::vector<std::string> ties;
};

absl::Status WriteBundle(const std::string &dir, const Target &target,
                         const std::string &compilerVersion,
                         const std::vector<TunedEntry> &entries);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_BUNDLEWRITER_H
