//===- tessel-bundle.cpp - sign tuned bundles and verify their signatures -*- C++ -*-===//
//
// tessel-bundle keygen --out PREFIX                    PREFIX.key (secret, 0600), PREFIX.pub
// tessel-bundle sign --key PREFIX.key BUNDLE_DIR       writes BUNDLE_DIR/manifest.json.sig
// tessel-bundle verify --trusted KEYS.pub... BUNDLE_DIR
//
// sign signs only a bundle that opens (every artifact matches its sha256), over the very
// manifest bytes it checked. verify opens the bundle as an application requiring signatures
// does. Links the runtime only (libsodium statically): it runs where bundles are deployed.
//
//===----------------------------------------------------------------------===//

#include "runtime/Bundle.h"
#include "runtime/BundleSignature.h"
#include "runtime/Files.h"

#include <iostream>
#include <string>
#include <vector>

using namespace tessel::runtime;

namespace {

const char *kUsage =
    "usage: tessel-bundle keygen --out PREFIX\n"
    "       tessel-bundle sign --key PREFIX.key BUNDLE_DIR\n"
    "       tessel-bundle verify --trusted KEYS.pub [--trusted KEYS.pub...] BUNDLE_DIR\n"
    "  keygen writes an Ed25519 key pair: PREFIX.key (secret, mode 0600) and PREFIX.pub.\n"
    "  sign writes BUNDLE_DIR/manifest.json.sig; the manifest names every artifact's sha256,\n"
    "  so the signature covers them all. verify checks it against the trusted public keys\n"
    "  (files of 'tessel-ed25519-public-key' lines) and every artifact against the manifest.\n"
    "  Applications: Bundle::Open with BundleOpenOptions, or TESSEL_TRUSTED_KEYS=KEYS.pub and\n"
    "  TESSEL_REQUIRE_SIGNED_BUNDLES=1.\n";

int fail(const std::string &message) {
  std::cerr << "tessel-bundle: " << message << "\n";
  return 1;
}

int usage(const std::string &message) {
  std::cerr << "tessel-bundle: " << message << "\n" << kUsage;
  return 2;
}

/// A subcommand's arguments: `--flag VALUE` (or `--flag=VALUE`) pairs and operands.
struct Arguments {
  std::vector<std::pair<std::string, std::string>> flags;
  std::vector<std::string> operands;
};

bool parse(int argc, char **argv, Arguments &out, std::string &error) {
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0) {
      std::string value;
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        error = arg + " needs a value";
        return false;
      }
      if (value.empty()) {
        error = arg + " needs a value";
        return false;
      }
      out.flags.emplace_back(arg, value);
    } else {
      out.operands.push_back(arg);
    }
  }
  return true;
}

/// The values of `flag` (every other flag is an error), and `operands` operands: BUNDLE_DIR.
bool expect(const Arguments &args, const std::string &flag, bool repeatable, size_t operands,
            std::vector<std::string> &values, std::string &error) {
  for (const auto &[name, value] : args.flags) {
    if (name != flag) {
      error = "unknown flag " + name;
      return false;
    }
    values.push_back(value);
  }
  if (values.empty())
    error = flag + " is required";
  else if (!repeatable && values.size() > 1)
    error = flag + " given more than once";
  else if (args.operands.size() != operands)
    error = operands ? "expected one BUNDLE_DIR"
                     : "unexpected argument '" + args.operands[0] + "'";
  return error.empty();
}

int keygen(const Arguments &args) {
  std::vector<std::string> out;
  std::string error;
  if (!expect(args, "--out", false, 0, out, error))
    return usage("keygen: " + error);
  absl::StatusOr<BundlePublicKey> key = WriteNewKeyPair(out[0]);
  if (!key.ok())
    return fail(std::string(key.status().message()));
  std::cout << "tessel-bundle: key " << key->id() << ": secret " << out[0]
            << ".key (keep it private), public " << out[0] << ".pub\n";
  return 0;
}

int sign(const Arguments &args) {
  std::vector<std::string> keyPath;
  std::string error;
  if (!expect(args, "--key", false, 1, keyPath, error))
    return usage("sign: " + error);
  const std::string &dir = args.operands[0];
  absl::StatusOr<std::unique_ptr<BundleSecretKey>> key = ReadSecretKeyFile(keyPath[0]);
  if (!key.ok())
    return fail(std::string(key.status().message()));
  absl::StatusOr<std::string> before = ReadRegularFileBeneath(dir, "manifest.json", kMaxManifestBytes);
  if (!before.ok())
    return fail("cannot read " + dir + "/manifest.json: " + std::string(before.status().message()));
  // Only a bundle that opens is signed: each artifact is the one its sha256 names.
  absl::StatusOr<std::unique_ptr<Bundle>> bundle =
      Bundle::Open(dir, BundleOpenOptions{BundleTrust{}, /*useEnvironment=*/false});
  if (!bundle.ok())
    return fail("not signing " + dir + ": " + std::string(bundle.status().message()));
  absl::StatusOr<std::string> after = ReadRegularFileBeneath(dir, "manifest.json", kMaxManifestBytes);
  if (!after.ok() || *after != *before)
    return fail("not signing " + dir + ": manifest.json changed while it was checked");
  if (absl::Status s = WriteFileAtomically(dir + "/" + kBundleSignatureFile,
                                           SignManifest(*before, **key));
      !s.ok())
    return fail(std::string(s.message()));
  std::cout << "tessel-bundle: signed " << dir << " (" << (*bundle)->entries().size()
            << " entries) with key " << (*key)->publicKey().id() << "\n";
  return 0;
}

int verify(const Arguments &args) {
  std::vector<std::string> keyFiles;
  std::string error;
  if (!expect(args, "--trusted", true, 1, keyFiles, error))
    return usage("verify: " + error);
  BundleOpenOptions options;
  options.useEnvironment = false;
  options.trust.requireSignature = true;
  for (const std::string &file : keyFiles) {
    absl::StatusOr<std::vector<BundlePublicKey>> keys = ReadPublicKeyFile(file);
    if (!keys.ok())
      return fail(std::string(keys.status().message()));
    options.trust.trustedKeys.insert(options.trust.trustedKeys.end(), keys->begin(), keys->end());
  }
  absl::StatusOr<std::unique_ptr<Bundle>> bundle = Bundle::Open(args.operands[0], options);
  if (!bundle.ok())
    return fail(std::string(bundle.status().message()));
  std::cout << "tessel-bundle: " << args.operands[0] << ": signature verified against a trusted "
            << "key; " << (*bundle)->entries().size() << " entries match their sha256\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage("expected a command: keygen, sign or verify");
  std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  Arguments args;
  std::string error;
  if (!parse(argc, argv, args, error))
    return usage(command + ": " + error);
  if (command == "keygen")
    return keygen(args);
  if (command == "sign")
    return sign(args);
  if (command == "verify")
    return verify(args);
  return usage("unknown command '" + command + "' (expected keygen, sign or verify)");
}
