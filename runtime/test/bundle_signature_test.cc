//===- bundle_signature_test.cc - signed bundles: verified, or refused -*- C++ -*-===//
//
// Fresh Ed25519 keys each run. A signed bundle opens against its key; a tampered manifest, an
// artifact replaced together with its sha256, a signature by an untrusted key and (when
// signatures are required) an unsigned bundle are refused; bad key and signature files are
// clear errors, never a crash; $TESSEL_TRUSTED_KEYS sets the keys.
//
//===----------------------------------------------------------------------===//

#include "runtime/Bundle.h"
#include "runtime/BundleSignature.h"
#include "runtime/Sha256.h"
#include "runtime/test/TestBundle.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <random>

#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;
using namespace tessel::runtime;
using namespace tessel::runtime::test;

std::string tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

/// A fresh key pair under $TEST_TMPDIR: its public key; the secret key is PREFIX.key.
BundlePublicKey newKey(const std::string &prefix) {
  fs::remove(tmp(prefix + ".key"));
  fs::remove(tmp(prefix + ".pub"));
  absl::StatusOr<BundlePublicKey> key = WriteNewKeyPair(tmp(prefix));
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : BundlePublicKey();
}

/// Signs the bundle in `dir` with the secret key PREFIX.key.
void sign(const std::string &dir, const std::string &prefix) {
  absl::StatusOr<std::unique_ptr<BundleSecretKey>> key = ReadSecretKeyFile(tmp(prefix + ".key"));
  ASSERT_TRUE(key.ok()) << key.status();
  write(dir + "/manifest.json.sig", SignManifest(read(dir + "/manifest.json"), **key));
}

/// The 128 hex digits of a manifest.json.sig's signature.
std::string signatureHex(const std::string &sigFile) {
  return sigFile.substr(sigFile.find("\"signature\": \"") + 14, 128);
}

BundleOpenOptions trusting(const std::vector<BundlePublicKey> &keys, bool require = true) {
  BundleOpenOptions options;
  options.trust.trustedKeys = keys;
  options.trust.requireSignature = require;
  options.useEnvironment = false;
  return options;
}

/// Open's error ("" when it opened).
std::string openError(const std::string &dir, const BundleOpenOptions &options) {
  auto bundle = Bundle::Open(dir, options);
  return bundle.ok() ? "" : std::string(bundle.status().message());
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(BundleSignature, SignedBundleOpensAgainstItsKeyAndRuns) {
  BundlePublicKey key = newKey("signer");
  std::string dir = makeBundle("signed");
  sign(dir, "signer");
  auto bundle = Bundle::Open(dir, trusting({newKey("other"), key}));
  ASSERT_TRUE(bundle.ok()) << bundle.status();
  absl::StatusOr<bool> verified = loadsTheVerifiedKernel(**bundle);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_TRUE(*verified);
  // The key files: the secret one readable by its owner only.
  struct stat st;
  ASSERT_EQ(stat(tmp("signer.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read(tmp("signer.pub")), key.text() + "\n");
  // A key is never overwritten.
  absl::StatusOr<BundlePublicKey> again = WriteNewKeyPair(tmp("signer"));
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(contains(std::string(again.status().message()), "never overwritten"))
      << again.status();
}

TEST(BundleSignature, AnArtifactReplacedWithItsChecksumIsRefused) {
  // The attack checksums cannot stop: the artifact replaced, its sha256 in the manifest
  // rewritten. Without keys the bundle opens and runs the replacement; with them it is refused.
  BundlePublicKey key = newKey("signer");
  std::string dir = makeBundle("replaced");
  sign(dir, "signer");
  std::string original = Sha256Hex(read(dir + "/artifacts/vadd.so"));
  evilArtifact(dir + "/artifacts/vadd.so");
  std::string manifest = read(dir + "/manifest.json");
  for (size_t at; (at = manifest.find(original)) != std::string::npos;)
    manifest.replace(at, original.size(), Sha256Hex(read(dir + "/artifacts/vadd.so")));
  write(dir + "/manifest.json", manifest);

  auto unchecked = Bundle::Open(dir, BundleOpenOptions{{}, /*useEnvironment=*/false});
  ASSERT_TRUE(unchecked.ok()) << unchecked.status();
  absl::StatusOr<bool> verified = loadsTheVerifiedKernel(**unchecked);
  ASSERT_TRUE(verified.ok()) << verified.status();
  EXPECT_FALSE(*verified) << "the replacement should be what checksums alone let through";

  for (bool require : {true, false}) {
    auto bundle = Bundle::Open(dir, trusting({key}, require));
    ASSERT_FALSE(bundle.ok());
    EXPECT_EQ(bundle.status().code(), absl::StatusCode::kPermissionDenied);
    std::string error(bundle.status().message());
    EXPECT_TRUE(contains(error, "manifest.json.sig")) << error;
    EXPECT_TRUE(contains(error, "does not verify")) << error;
    EXPECT_TRUE(contains(error, key.id())) << error;
  }
}

TEST(BundleSignature, TamperedManifestIsRefusedNamingTheSignature) {
  BundlePublicKey key = newKey("signer");
  std::string dir = makeBundle("tampered-manifest");
  sign(dir, "signer");
  std::string manifest = read(dir + "/manifest.json");
  // One byte: the n=1000 entry's measured time, nothing Open checks otherwise.
  replace(manifest, "\"time_ms\": 0.01", "\"time_ms\": 0.02");
  write(dir + "/manifest.json", manifest);
  EXPECT_TRUE(Bundle::Open(dir, BundleOpenOptions{{}, false}).ok());
  std::string error = openError(dir, trusting({key}));
  EXPECT_TRUE(contains(error, "manifest.json.sig: the signature by key " + key.id() +
                                  " does not verify"))
      << error;
  // Trailing bytes are a change too.
  write(dir + "/manifest.json", read(dir + "/manifest.json") + "\n");
  EXPECT_TRUE(contains(openError(dir, trusting({key})), "does not verify"));
}

TEST(BundleSignature, UnsignedBundleIsRefusedOnlyWhenSignaturesAreRequired) {
  BundlePublicKey key = newKey("signer");
  std::string dir = makeBundle("unsigned");
  std::string error = openError(dir, trusting({key}, /*require=*/true));
  EXPECT_TRUE(contains(error, "the bundle is unsigned (no manifest.json.sig) and signed bundles "
                              "are required"))
      << error;
  EXPECT_EQ(openError(dir, trusting({key}, /*require=*/false)), "");
  EXPECT_EQ(openError(dir, BundleOpenOptions{{}, false}), "");
  // Required with no key to check against: refused even when signed.
  sign(dir, "signer");
  EXPECT_TRUE(contains(openError(dir, trusting({}, true)), "no trusted public key was given"));
  EXPECT_EQ(openError(dir, trusting({key}, true)), "");
}

TEST(BundleSignature, SignatureByAnotherKeyIsRefused) {
  newKey("signer");
  BundlePublicKey trusted = newKey("trusted");
  std::string dir = makeBundle("wrong-key");
  sign(dir, "signer");
  std::string error = openError(dir, trusting({trusted}));
  EXPECT_TRUE(contains(error, "which is not a trusted key (trusted: " + trusted.id() + ")"))
      << error;
  // A signature naming the trusted key's id but made with another key fails its check.
  std::string sig = read(dir + "/manifest.json.sig");
  absl::StatusOr<std::unique_ptr<BundleSecretKey>> signer = ReadSecretKeyFile(tmp("signer.key"));
  ASSERT_TRUE(signer.ok());
  replace(sig, (*signer)->publicKey().id(), trusted.id());
  write(dir + "/manifest.json.sig", sig);
  EXPECT_TRUE(contains(openError(dir, trusting({trusted})), "does not verify"));
}

TEST(BundleSignature, BadSignatureFilesAreClearErrors) {
  BundlePublicKey key = newKey("signer");
  std::string dir = makeBundle("bad-sig");
  sign(dir, "signer");
  std::string good = read(dir + "/manifest.json.sig");
  std::string sigHex = signatureHex(good);
  std::mt19937 gen(std::random_device{}());
  std::string garbage(200, '\0');
  for (char &c : garbage)
    c = char(gen());
  for (auto [contents, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "not a bundle signature"},
           {good.substr(0, good.size() / 2), "not a bundle signature"},
           {garbage, "not a bundle signature"},
           {std::string(5000, 'x'), "larger than"},
           {std::string(100, '[') + std::string(100, ']'), "nested"},
           {"[1, 2]", "not a bundle signature"},
           {R"({"format": "gpg"})", "expected \"format\": \"tessel-bundle-signature\""},
           {[&] { std::string s = good; replace(s, "ed25519", "rsa"); return s; }(),
            "this runtime verifies ed25519"},
           {[&] { std::string s = good; replace(s, sigHex, sigHex.substr(0, 100)); return s; }(),
            "\"signature\" must be 128 hex digits, found 100"},
           {[&] { std::string s = good; replace(s, sigHex, std::string(128, 'g')); return s; }(),
            "\"signature\" must be 128 hex digits"},
           {[&] { std::string s = good; replace(s, key.id(), "xyz"); return s; }(),
            "\"key_id\" must be 16 hex digits"},
           {[&] {
              std::string s = good, flipped = sigHex;
              flipped[10] = flipped[10] == '0' ? '1' : '0';
              replace(s, sigHex, flipped);
              return s;
            }(),
            "does not verify"}}) {
    write(dir + "/manifest.json.sig", contents);
    std::string error = openError(dir, trusting({key}));
    EXPECT_TRUE(contains(error, "manifest.json.sig")) << error;
    EXPECT_TRUE(contains(error, expected)) << expected << " / " << error;
  }
  // Not a regular file inside the bundle: a link (even to the good signature), a directory.
  write(tmp("good.sig"), good);
  fs::remove(dir + "/manifest.json.sig");
  fs::create_symlink(tmp("good.sig"), dir + "/manifest.json.sig");
  EXPECT_TRUE(contains(openError(dir, trusting({key})), "manifest.json.sig"));
  fs::remove(dir + "/manifest.json.sig");
  fs::create_directory(dir + "/manifest.json.sig");
  EXPECT_TRUE(contains(openError(dir, trusting({key})), "manifest.json.sig"));
}

TEST(BundleSignature, BadKeyFilesAreClearErrors) {
  BundlePublicKey key = newKey("signer");
  std::string secretText = read(tmp("signer.key"));
  std::string secretHex = secretText.substr(secretText.find(' ') + 1, 128);
  auto publicError = [](const std::string &text) {
    auto keys = ParsePublicKeys(text, "keys.pub");
    return keys.ok() ? "" : std::string(keys.status().message());
  };
  EXPECT_EQ(publicError("# none\n\n"), "");
  auto two = ParsePublicKeys("# two keys\n" + key.text() + "  # mine\n\n" + key.text() + "\n",
                             "keys.pub");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->size(), 2u);
  EXPECT_TRUE(contains(publicError(key.text().substr(0, 40)), "keys.pub:1: expected 64 hex digits"));
  EXPECT_TRUE(contains(publicError("\n" + key.text() + "00"), "keys.pub:2: expected 64 hex"));
  EXPECT_TRUE(contains(publicError("ssh-ed25519 AAAA"), "expected 'tessel-ed25519-public-key'"));
  EXPECT_TRUE(contains(publicError(key.text() + " trailing"), "comments start with #"));
  std::string secretAsPublic = publicError(secretText);
  EXPECT_TRUE(contains(secretAsPublic, "this is a secret key")) << secretAsPublic;
  EXPECT_FALSE(contains(secretAsPublic, secretHex.substr(0, 16))) << "the secret was printed";

  write(tmp("empty.pub"), "\n# nothing\n");
  EXPECT_TRUE(contains(std::string(ReadPublicKeyFile(tmp("empty.pub")).status().message()),
                       "no public key in it"));
  EXPECT_TRUE(contains(std::string(ReadPublicKeyFile(tmp("missing.pub")).status().message()),
                       "cannot read the public key file"));

  auto secretError = [&](const std::string &text, mode_t mode = 0600) {
    std::string path = tmp("bad.key");
    write(path, text);
    chmod(path.c_str(), mode);
    auto secret = ReadSecretKeyFile(path);
    std::string error = secret.ok() ? "" : std::string(secret.status().message());
    EXPECT_FALSE(contains(error, secretHex.substr(0, 16))) << "the secret was printed";
    return error;
  };
  EXPECT_EQ(secretError(secretText), "");
  EXPECT_TRUE(contains(secretError(secretText, 0644), "may be read by others (mode 0644); chmod 600"));
  EXPECT_TRUE(contains(secretError(secretText.substr(0, 60)), "expected 128 hex digits"));
  EXPECT_TRUE(contains(secretError(key.text()), "this is a public key"));
  EXPECT_TRUE(contains(secretError("garbage\x01\x02"), "expected 'tessel-ed25519-secret-key'"));
  std::string corrupted = secretText;
  size_t last = corrupted.find_last_of("0123456789abcdef");
  corrupted[last] = corrupted[last] == '0' ? '1' : '0'; // in the public half
  EXPECT_TRUE(contains(secretError(corrupted), "does not match its seed"));
  EXPECT_TRUE(contains(std::string(ReadSecretKeyFile(tmp("missing.key")).status().message()),
                       "cannot read the secret key file"));
}

TEST(BundleSignature, MutatedSignaturesAndKeysNeverCrashOrVerify) {
  // Random byte edits of a good signature file and of key files: an error each time (or, for a
  // key file, a parse), never a crash; no edited signature verifies.
  BundlePublicKey key = newKey("signer");
  std::string dir = makeBundle("mutated-sig");
  sign(dir, "signer");
  std::string goodSig = read(dir + "/manifest.json.sig");
  std::string sigHex = signatureHex(goodSig);
  std::string pub = read(tmp("signer.pub")), secret = read(tmp("signer.key"));
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  std::mt19937 gen(seed);
  auto mutate = [&](std::string text) {
    for (int e = 0, edits = 1 + int(gen() % 3); e < edits && !text.empty(); ++e) {
      size_t pos = gen() % text.size();
      if (gen() % 2)
        text[pos] = char(gen());
      else
        text.erase(pos, 1 + gen() % 8);
    }
    return text;
  };
  for (int i = 0; i < 200; ++i) {
    std::string sig = mutate(goodSig);
    write(dir + "/manifest.json.sig", sig);
    auto bundle = Bundle::Open(dir, trusting({key}));
    // Edits JSON ignores (whitespace, a key's case) keep it valid; any other is refused.
    if (bundle.ok())
      EXPECT_NE(sig.find(sigHex), std::string::npos) << "an edited signature verified";
    (void)ParsePublicKeys(mutate(pub), "mutated.pub");
    write(tmp("mutated.key"), mutate(secret));
    chmod(tmp("mutated.key").c_str(), 0600);
    (void)ReadSecretKeyFile(tmp("mutated.key"));
  }
}

TEST(BundleSignature, TrustedKeysFromTheEnvironment) {
  BundlePublicKey key = newKey("signer");
  std::string unsignedDir = makeBundle("env-unsigned");
  std::string signedDir = makeBundle("env-signed");
  sign(signedDir, "signer");
  setenv(kTrustedKeysEnv, tmp("signer.pub").c_str(), 1);
  setenv(kRequireSignedBundlesEnv, "1", 1);
  auto opened = Bundle::Open(signedDir);
  EXPECT_TRUE(opened.ok()) << opened.status();
  auto refused = Bundle::Open(unsignedDir);
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(contains(std::string(refused.status().message()), "unsigned"));
  // Options that ignore the environment open it.
  EXPECT_TRUE(Bundle::Open(unsignedDir, BundleOpenOptions{{}, false}).ok());
  setenv(kRequireSignedBundlesEnv, "yes", 1);
  EXPECT_TRUE(contains(std::string(Bundle::Open(signedDir).status().message()),
                       "TESSEL_REQUIRE_SIGNED_BUNDLES must be 0 or 1"));
  unsetenv(kRequireSignedBundlesEnv);
  setenv(kTrustedKeysEnv, tmp("no-such.pub").c_str(), 1);
  EXPECT_TRUE(contains(std::string(Bundle::Open(signedDir).status().message()),
                       "TESSEL_TRUSTED_KEYS: cannot read the public key file"));
  unsetenv(kTrustedKeysEnv);
  EXPECT_TRUE(Bundle::Open(unsignedDir).ok());
}

} // namespace
