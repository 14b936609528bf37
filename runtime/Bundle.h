//===- Bundle.h - tuned kernel bundles: open, verify, look up, load -*- C++ -*-===//
//
// A bundle is a directory holding manifest.json and the artifacts it names (written by
// autotune/BundleWriter.cpp):
//
//   {"schema_version": 1, "compiler_version": "...",
//    "target": {"kind": "cpu", "arch": "x86_64", "features": ["avx512f", ...]},
//    "kernels": [{"name": "my_kernel", "signature": "ptr:f32,...",
//                 "entries": [{"shape": {"M": 1024, ...}, "dtype": "f32",
//                              "entry": "matmul_kernel", "artifact": "artifacts/m.so",
//                              "sha256": "...", "config": {...}, "metrics": {...},
//                              "serves": {"cols": [513, 1024]}}],
//                 "launch": {"dims": [...], "dispatch": [...], "grid": "...", "args": [...]}}]}
//
// "launch" (schema 2, optional): the kernel's launch contract (LaunchContract below;
// docs/bundle.schema.json). An entry may carry its own "signature" (another dtype of the kernel); else the kernel's.
// "serves" (optional) bounds dimensions compiled into the artifact: lookups pick the entry only
// for shapes within them.
//
// Open verifies everything before anything is loaded: the schema version, the target (kind,
// architecture, and every CPU feature the artifacts were built for present here), that each
// artifact stays inside the bundle and matches its checksum, and that the manifest says what
// each artifact is (read from its bytes, not loaded): its kernel's signature, and the value of
// every constexpr and knob its build recorded that the entry's config names. manifest.json is
// read as the artifacts are: a regular file inside the bundle, no link, at most
// kMaxManifestBytes. Each mismatch is a clear error;
// an artifact for another machine is never loaded. A signed bundle (manifest.json.sig, see
// BundleSignature.h) is verified against the trusted keys before its manifest is parsed.
// Lookups return the entry tuned for the requested shape, or for the nearest tuned shape, and
// say which.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_BUNDLE_H
#define TESSEL_RUNTIME_BUNDLE_H

#include "runtime/BundleSignature.h"
#include "runtime/Device.h"
#include "runtime/Module.h"
#include "runtime/target/Target.h"

#include "absl/status/statusor.h"
#include "nlohmann/json_fwd.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessel::runtime {

/// The target as manifests and records write it: {"kind", "arch", "features"[, "cpu"]}. In
/// namespace tessel for nlohmann's lookup.
} // namespace tessel::runtime
namespace tessel {
void to_json(nlohmann::json &j, const Target &t);
} // namespace tessel
namespace tessel::runtime {

/// The schema version the autotuner writes (2: kernels may carry a launch contract); this
/// runtime reads it and every version from kOldestBundleSchemaVersion.
inline constexpr int kBundleSchemaVersion = 2;
inline constexpr int kOldestBundleSchemaVersion = 1;

/// One parameter of a kernel's launch contract ("launch" in the manifest, from the kernel's
/// spec): a tensor (dtype, "{dtype}" for the entry's; shape as expressions of the dims; role
/// in, out or inout), a scalar passed at launch (type; value an expression of the dims and the
/// tensors' strides; divisible by 16 or 0), a constexpr baked in (value as written), or a
/// meta-parameter (its value is each entry's config).
struct LaunchArg {
  std::string name, kind, dtype, role, type, value;
  std::vector<std::string> shape;
  int divisible = 0;
};
/// How a kernel is launched without knowing it: its dims, those entries are looked up by, the
/// grid (the Python expression its users write) and its parameters in order. Every expression
/// parses (runtime/expr) when the bundle is opened.
struct LaunchContract {
  std::vector<std::string> dims, dispatch;
  std::string grid;
  std::vector<LaunchArg> args;
};

/// The largest manifest.json a bundle may hold (64 MiB): a larger file is refused unread.
inline constexpr int64_t kMaxManifestBytes = int64_t(64) << 20;

struct BundleEntry {
  std::string kernel;   ///< the kernel's name in the bundle
  std::string signature;
  std::map<std::string, int64_t> shape;
  std::string dtype;
  std::string entry;    ///< the symbol in the artifact
  std::string artifact; ///< path of the shared object
  std::string bundleDir, artifactInBundle; ///< where it is read from: no symlink, no ".."
  std::string sha256;
  std::string configJson, metricsJson; ///< the tuned configuration and its measurements
  /// Dimensions the artifact was compiled for: it serves only shapes with these dimensions in
  /// [first, second] ("serves" in the manifest; absent: any value).
  std::map<std::string, std::pair<int64_t, int64_t>> serves;
  /// The kernel's launch contract, when the bundle carries one (schema 2, spec kernels).
  std::shared_ptr<const LaunchContract> launch;
};

/// For tests only: `hook` runs inside Bundle::Load after the artifact was verified against its
/// checksum and before it is loaded (the moment a swapped file would matter); empty: none.
void SetArtifactVerifiedHookForTesting(std::function<void(const std::string &artifact)> hook);

/// "K=64,M=128,N=32": a shape's dimensions in name order.
std::string ShapeText(const std::map<std::string, int64_t> &shape);

/// What a lookup chose.
struct BundleChoice {
  const BundleEntry *entry = nullptr;
  bool exact = false;
  std::string explanation; ///< e.g. "nearest tuned shape M=1024,N=1024 for M=1000,N=1000"
};

/// How Bundle::Open treats signatures.
struct BundleOpenOptions {
  BundleTrust trust;
  /// Also trust the keys in the file $TESSEL_TRUSTED_KEYS, and require a signature when
  /// $TESSEL_REQUIRE_SIGNED_BUNDLES is 1.
  bool useEnvironment = true;
};

class Bundle {
public:
  /// Opens and verifies the bundle in `dir` for `host`. A GPU bundle opened for the CPU host
  /// (the default) is verified against its GPU when an artifact is loaded on the device.
  static absl::StatusOr<std::unique_ptr<Bundle>> Open(const std::string &dir,
                                                      const Target &host = Target::Host());
  /// Opens as above, with `options`' signature checks: a signature must verify against a
  /// trusted key, and an unsigned bundle is refused when a signature is required.
  static absl::StatusOr<std::unique_ptr<Bundle>> Open(const std::string &dir,
                                                      const BundleOpenOptions &options,
                                                      const Target &host = Target::Host());
  /// The entry of `kernel` tuned for `shape` (and `dtype` when not empty), else the one tuned
  /// for the nearest shape with the same dimensions (distance: sum of |log2 ratio|) among the
  /// entries whose compiled-in dimensions serve `shape`.
  absl::StatusOr<BundleChoice> Find(const std::string &kernel,
                                    const std::map<std::string, int64_t> &shape,
                                    const std::string &dtype = "") const;
  /// Loads an entry's artifact (checked again against its checksum) on `device`, which must be
  /// the kind of device the bundle's target runs on, and checks its kernel's signature.
  absl::StatusOr<std::unique_ptr<Executable>> Load(const BundleEntry &entry,
                                                   Device &device) const;

  const std::vector<BundleEntry> &entries() const { return entries_; }
  const std::string &compilerVersion() const { return compilerVersion_; }
  const Target &target() const { return target_; }

private:
  std::string compilerVersion_;
  Target target_;
  std::vector<BundleEntry> entries_;
};

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_BUNDLE_H
