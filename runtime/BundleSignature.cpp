//===- BundleSignature.cpp - Ed25519 signatures of tuned bundles -*- C++ -*-===//

#include "runtime/BundleSignature.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"
#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

#include <sodium.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace tessel::runtime {
namespace {

using nlohmann::json;

constexpr const char *kPublicTag = "tessel-ed25519-public-key";
constexpr const char *kSecretTag = "tessel-ed25519-secret-key";
constexpr const char *kSignatureFormat = "tessel-bundle-signature";

static_assert(crypto_sign_PUBLICKEYBYTES == 32 && crypto_sign_SECRETKEYBYTES == 64 &&
                  crypto_sign_BYTES == 64,
              "Ed25519 sizes");

/// libsodium initialised once per process (thread-safe; later calls return the first result).
absl::Status sodiumReady() {
  static const int rc = sodium_init();
  if (rc < 0)
    return absl::InternalError("libsodium could not be initialised (sodium_init failed)");
  return absl::OkStatus();
}

std::string hex(const uint8_t *bytes, size_t n) {
  std::string out(2 * n + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), bytes, n);
  out.pop_back();
  return out;
}

/// Exactly `n` bytes from exactly 2n hex digits, else false.
bool unhex(const std::string &text, uint8_t *out, size_t n) {
  if (text.size() != 2 * n ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isxdigit(c); }))
    return false;
  size_t len = 0;
  return sodium_hex2bin(out, n, text.data(), text.size(), nullptr, &len, nullptr) == 0 &&
         len == n;
}

/// The words of a key file's line: tag and value (a trailing comment is allowed).
std::vector<std::string> words(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

} // namespace

std::string BundlePublicKey::id() const {
  return Sha256Hex(std::string(bytes.begin(), bytes.end())).substr(0, 16);
}

std::string BundlePublicKey::text() const {
  return std::string(kPublicTag) + " " + hex(bytes.data(), bytes.size());
}

BundlePublicKey BundleSecretKey::publicKey() const {
  BundlePublicKey pk;
  crypto_sign_ed25519_sk_to_pk(pk.bytes.data(), bytes.data());
  return pk;
}

BundleSecretKey::~BundleSecretKey() { sodium_memzero(bytes.data(), bytes.size()); }

absl::StatusOr<std::vector<BundlePublicKey>> ParsePublicKeys(const std::string &text,
                                                             const std::string &source) {
  std::vector<BundlePublicKey> keys;
  std::istringstream in(text);
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    std::string where = source + ":" + std::to_string(lineNo) + ": ";
    std::vector<std::string> w = words(line);
    if (w.empty() || w[0][0] == '#')
      continue;
    // Never echo the line: it may be a secret key pasted into the wrong file.
    if (w[0] == kSecretTag)
      return absl::InvalidArgumentError(
          where + "this is a secret key, not a public one; trust the .pub file written beside "
                  "it (and keep the secret key private)");
    if (w[0] != kPublicTag || w.size() < 2)
      return absl::InvalidArgumentError(where + "expected '" + kPublicTag +
                                        "' and 64 hex digits, found a line of " +
                                        std::to_string(line.size()) + " characters that is not");
    BundlePublicKey key;
    if (!unhex(w[1], key.bytes.data(), key.bytes.size()))
      return absl::InvalidArgumentError(where + "expected 64 hex digits after '" + kPublicTag +
                                        "', found " + std::to_string(w[1].size()) +
                                        " characters that are not (a truncated or corrupted key?)");
    if (w.size() > 2 && w[2][0] != '#')
      return absl::InvalidArgumentError(where + "unexpected text after the key (comments start "
                                                "with #)");
    keys.push_back(key);
  }
  return keys;
}

absl::StatusOr<std::vector<BundlePublicKey>> ReadPublicKeyFile(const std::string &path) {
  absl::StatusOr<std::string> text = ReadRegularFile(path, kMaxKeyFileBytes);
  if (!text.ok())
    return absl::Status(text.status().code(), "cannot read the public key file " + path + ": " +
                                                  std::string(text.status().message()));
  absl::StatusOr<std::vector<BundlePublicKey>> keys = ParsePublicKeys(*text, path);
  if (keys.ok() && keys->empty())
    return absl::InvalidArgumentError(path + ": no public key in it (expected lines '" +
                                      std::string(kPublicTag) + " <64 hex digits>')");
  return keys;
}

absl::StatusOr<std::unique_ptr<BundleSecretKey>> ReadSecretKeyFile(const std::string &path) {
  if (absl::Status s = sodiumReady(); !s.ok())
    return s;
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    return absl::NotFoundError("cannot read the secret key file " + path + ": " +
                               std::strerror(errno));
  absl::StatusOr<std::string> text = ReadRegularFile(path, kMaxKeyFileBytes);
  if (!text.ok())
    return absl::Status(text.status().code(), "cannot read the secret key file " + path + ": " +
                                                  std::string(text.status().message()));
  std::vector<std::string> w = words(*text);
  sodium_memzero(text->data(), text->size());
  auto wipe = [&] {
    for (std::string &s : w)
      sodium_memzero(s.data(), s.size());
  };
  auto bad = [&](const std::string &what) {
    wipe();
    return absl::InvalidArgumentError(path + ": " + what);
  };
  if (!w.empty() && w[0] == kPublicTag)
    return bad("this is a public key; sign with the secret key (the .key file)");
  if (st.st_mode & 077) {
    wipe();
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    return absl::PermissionDeniedError("the secret key file " + path + " may be read by others "
                                       "(mode " + mode + "); chmod 600 it");
  }
  if (w.size() != 2 || w[0] != kSecretTag)
    return bad(std::string("expected '") + kSecretTag + "' and 128 hex digits");
  auto key = std::make_unique<BundleSecretKey>();
  if (!unhex(w[1], key->bytes.data(), key->bytes.size()))
    return bad("expected 128 hex digits after '" + std::string(kSecretTag) + "', found " +
               std::to_string(w[1].size()) + " characters that are not (a truncated or "
                                             "corrupted key?)");
  // The public half must be the one the seed gives.
  uint8_t seed[crypto_sign_SEEDBYTES], pk[crypto_sign_PUBLICKEYBYTES],
      sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_ed25519_sk_to_seed(seed, key->bytes.data());
  crypto_sign_seed_keypair(pk, sk, seed);
  bool consistent = sodium_memcmp(sk, key->bytes.data(), sizeof sk) == 0;
  sodium_memzero(seed, sizeof seed);
  sodium_memzero(sk, sizeof sk);
  if (!consistent)
    return bad("not an Ed25519 secret key: its public half does not match its seed (a "
               "corrupted key?)");
  wipe();
  return key;
}

absl::StatusOr<BundlePublicKey> WriteNewKeyPair(const std::string &prefix) {
  if (absl::Status s = sodiumReady(); !s.ok())
    return s;
  BundleSecretKey secret;
  BundlePublicKey pub;
  crypto_sign_keypair(pub.bytes.data(), secret.bytes.data());
  auto create = [](const std::string &path, mode_t mode, const std::string &contents) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
      return absl::FailedPreconditionError(
          "cannot create " + path + ": " + std::strerror(errno) +
          (errno == EEXIST ? " (a key is never overwritten; choose another --out)" : ""));
    int err = fchmod(fd, mode) != 0 ? errno : WriteAll(fd, contents);
    if (close(fd) != 0 && err == 0)
      err = errno;
    if (err != 0) {
      unlink(path.c_str());
      return absl::InternalError("cannot write " + path + ": " + std::strerror(err));
    }
    return absl::OkStatus();
  };
  std::string secretText =
      std::string(kSecretTag) + " " + hex(secret.bytes.data(), secret.bytes.size()) + "\n";
  absl::Status s = create(prefix + ".key", 0600, secretText);
  sodium_memzero(secretText.data(), secretText.size());
  if (!s.ok())
    return s;
  if (s = create(prefix + ".pub", 0644, pub.text() + "\n"); !s.ok()) {
    unlink((prefix + ".key").c_str());
    return s;
  }
  return pub;
}

std::string SignManifest(const std::string &manifest, const BundleSecretKey &key) {
  uint8_t sig[crypto_sign_BYTES];
  crypto_sign_detached(sig, nullptr, reinterpret_cast<const uint8_t *>(manifest.data()),
                       manifest.size(), key.bytes.data());
  json j = {{"format", kSignatureFormat},
            {"version", 1},
            {"algorithm", "ed25519"},
            {"key_id", key.publicKey().id()},
            {"signature", hex(sig, sizeof sig)}};
  return j.dump(2) + "\n";
}

absl::StatusOr<BundleTrust> TrustFromEnvironment(BundleTrust trust) {
  if (const char *path = std::getenv(kTrustedKeysEnv); path && *path) {
    absl::StatusOr<std::vector<BundlePublicKey>> keys = ReadPublicKeyFile(path);
    if (!keys.ok())
      return absl::Status(keys.status().code(), std::string(kTrustedKeysEnv) + ": " +
                                                    std::string(keys.status().message()));
    trust.trustedKeys.insert(trust.trustedKeys.end(), keys->begin(), keys->end());
  }
  if (const char *require = std::getenv(kRequireSignedBundlesEnv); require && *require) {
    std::string value = require;
    if (value != "0" && value != "1")
      return absl::InvalidArgumentError(std::string(kRequireSignedBundlesEnv) +
                                        " must be 0 or 1, found '" + value.substr(0, 40) + "'");
    trust.requireSignature = trust.requireSignature || value == "1";
  }
  return trust;
}

absl::Status VerifyBundleSignature(const std::string &dir, const std::string &manifest,
                                   const BundleTrust &trust) {
  std::string sigPath = dir + "/" + kBundleSignatureFile;
  absl::StatusOr<std::string> read =
      ReadRegularFileBeneath(dir, kBundleSignatureFile, kMaxSignatureFileBytes);
  if (absl::IsNotFound(read.status())) {
    if (trust.requireSignature)
      return absl::PermissionDeniedError(
          dir + ": the bundle is unsigned (no " + kBundleSignatureFile +
          ") and signed bundles are required; sign it with tessel-bundle sign");
    return absl::OkStatus();
  }
  if (!read.ok())
    return absl::Status(read.status().code(), "cannot read the bundle's signature " + sigPath +
                                                  ": " + std::string(read.status().message()));
  if (trust.trustedKeys.empty()) {
    if (trust.requireSignature)
      return absl::FailedPreconditionError(
          dir + ": signed bundles are required but no trusted public key was given (" +
          kTrustedKeysEnv + " or the open options)");
    return absl::OkStatus(); // nothing to check it against
  }
  auto bad = [&](const std::string &what) {
    return absl::InvalidArgumentError(sigPath + ": " + what);
  };
  if (std::string why = JsonNestingProblem(*read); !why.empty())
    return bad(why);
  json sig = json::parse(*read, nullptr, /*allow_exceptions=*/false);
  if (sig.is_discarded() || !sig.is_object())
    return bad("not a bundle signature (expected a JSON object; truncated or corrupted?)");
  auto text = [&](const char *key) -> std::string {
    auto it = sig.find(key);
    return it != sig.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (text("format") != kSignatureFormat || !sig.contains("version") || sig["version"] != 1)
    return bad(std::string("expected \"format\": \"") + kSignatureFormat +
               "\" and \"version\": 1");
  if (text("algorithm") != "ed25519")
    return bad("the algorithm is '" + text("algorithm").substr(0, 40) +
               "'; this runtime verifies ed25519");
  std::string keyId = text("key_id"), hexSig = text("signature");
  std::transform(keyId.begin(), keyId.end(), keyId.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  uint8_t id[8];
  if (!unhex(keyId, id, sizeof id))
    return bad("\"key_id\" must be 16 hex digits, found " + std::to_string(keyId.size()) +
               " characters that are not");
  uint8_t signature[crypto_sign_BYTES];
  if (!unhex(hexSig, signature, sizeof signature))
    return bad("\"signature\" must be 128 hex digits, found " + std::to_string(hexSig.size()) +
               " characters that are not (truncated or corrupted?)");
  if (absl::Status s = sodiumReady(); !s.ok())
    return s;
  std::string trusted;
  for (const BundlePublicKey &key : trust.trustedKeys) {
    if (key.id() != keyId) {
      trusted += (trusted.empty() ? "" : ", ") + key.id();
      continue;
    }
    if (crypto_sign_verify_detached(signature, reinterpret_cast<const uint8_t *>(manifest.data()),
                                    manifest.size(), key.bytes.data()) == 0)
      return absl::OkStatus();
    return absl::PermissionDeniedError(
        sigPath + ": the signature by key " + keyId + " does not verify over " + dir +
        "/manifest.json: the manifest (or an artifact with its sha256) was changed after it was "
        "signed; the bundle is refused");
  }
  return absl::PermissionDeniedError(sigPath + ": the bundle is signed by key '" +
                                     keyId + "', which is not a trusted key (trusted: " + trusted +
                                     "); the bundle is refused");
}

} // namespace tessel::runtime
