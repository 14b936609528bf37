//===- BundleSignature.h - Ed25519 signatures of tuned bundles -*- C++ -*-===//
//
// A checksum says an artifact is the one the manifest names; it cannot say who wrote the
// manifest: whoever replaces an artifact can rewrite its sha256 too. A signed bundle carries
// manifest.json.sig beside manifest.json, an Ed25519 detached signature (libsodium) over the
// manifest's exact bytes. The manifest names every artifact's sha256 and Bundle::Open checks
// them, so a verified signature covers every artifact.
//
//   manifest.json.sig  {"format": "tessel-bundle-signature", "version": 1,
//                       "algorithm": "ed25519", "key_id": "<16 hex>", "signature": "<128 hex>"}
//   PREFIX.pub         tessel-ed25519-public-key <64 hex>          (a trusted-keys file holds
//                      any number of these lines; blank lines and # comments allowed)
//   PREFIX.key         tessel-ed25519-secret-key <128 hex>         (mode 0600)
//
// A key's id is the first 16 hex digits of the SHA-256 of its 32 public bytes. Every file here
// is untrusted input: each problem is a clear error, a secret key's bytes never appear in one.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_BUNDLESIGNATURE_H
#define TESSEL_RUNTIME_BUNDLESIGNATURE_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessel::runtime {

/// The signature file beside manifest.json, and the most bytes it (or a key file) may hold.
inline constexpr const char *kBundleSignatureFile = "manifest.json.sig";
inline constexpr int64_t kMaxSignatureFileBytes = 4096;
inline constexpr int64_t kMaxKeyFileBytes = int64_t(1) << 20;

/// The environment: a file of trusted public keys, and "1" to refuse unsigned bundles.
inline constexpr const char *kTrustedKeysEnv = "TESSEL_TRUSTED_KEYS";
inline constexpr const char *kRequireSignedBundlesEnv = "TESSEL_REQUIRE_SIGNED_BUNDLES";

/// An Ed25519 public key a bundle may be signed with.
struct BundlePublicKey {
  std::array<uint8_t, 32> bytes{};
  std::string id() const; ///< 16 hex digits
  std::string text() const; ///< its line in a .pub file (no newline)
};

/// An Ed25519 secret key (libsodium's 64 bytes: seed and public key).
struct BundleSecretKey {
  std::array<uint8_t, 64> bytes{};
  BundlePublicKey publicKey() const;
  ~BundleSecretKey(); ///< wipes the bytes
};

/// Which signatures Bundle::Open accepts. With keys, a bundle's signature (when it has one)
/// must verify against one of them; with requireSignature, an unsigned bundle is refused.
struct BundleTrust {
  std::vector<BundlePublicKey> trustedKeys;
  bool requireSignature = false;
};

/// The public keys in a trusted-keys (or .pub) file's `text`; `source` names it in errors.
absl::StatusOr<std::vector<BundlePublicKey>> ParsePublicKeys(const std::string &text,
                                                             const std::string &source);
/// Reads a trusted-keys file (at least one key).
absl::StatusOr<std::vector<BundlePublicKey>> ReadPublicKeyFile(const std::string &path);

/// Reads a secret key file: refused when others may read it, or when its public half is not
/// the one its seed gives (a corrupted key).
absl::StatusOr<std::unique_ptr<BundleSecretKey>> ReadSecretKeyFile(const std::string &path);

/// A fresh key pair written as PREFIX.key (0600) and PREFIX.pub; existing files are never
/// overwritten. Returns the public key.
absl::StatusOr<BundlePublicKey> WriteNewKeyPair(const std::string &prefix);

/// The contents of manifest.json.sig for `manifest` (its exact bytes) signed by `key`.
std::string SignManifest(const std::string &manifest, const BundleSecretKey &key);

/// `trust` with the environment's keys (kTrustedKeysEnv) and requirement
/// (kRequireSignedBundlesEnv) added; a set variable that cannot be read is an error.
absl::StatusOr<BundleTrust> TrustFromEnvironment(BundleTrust trust);

/// Checks the signature of the bundle in `dir` whose manifest.json holds `manifest` (the bytes
/// that will be parsed) against `trust`: OK for a verified signature, and for an unsigned
/// bundle (or one whose signature no key was given to check) unless a signature is required.
absl::Status VerifyBundleSignature(const std::string &dir, const std::string &manifest,
                                   const BundleTrust &trust);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_BUNDLESIGNATURE_H
