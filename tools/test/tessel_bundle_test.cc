//===- tessel_bundle_test.cc - tessel-bundle keygen, sign, verify -*- C++ -*-===//
//
// Fresh keys each run: a bundle signed with one key verifies against it and is refused after
// an artifact is replaced together with its sha256; an unsigned bundle, another key, bad key
// and signature files and bad command lines are clear errors (exit 1 or 2), never a crash.
// The tool links libsodium statically.
//
//===----------------------------------------------------------------------===//

#include "runtime/Sha256.h"
#include "runtime/test/TestBundle.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <sys/wait.h>

namespace {

namespace fs = std::filesystem;
using namespace tessel::runtime::test;

std::string tmp(const std::string &name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

/// Runs `command` through the shell; its exit code (-1 when it did not exit: a crash), and its
/// stdout and stderr in `output`.
int runCommand(const std::string &command, std::string &output) {
  std::string log = tmp("command.log");
  int rc = std::system((command + " > " + log + " 2>&1").c_str());
  output = read(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int bundleTool(const std::string &args, std::string &output) {
  return runCommand("tools/tessel-bundle " + args, output);
}

/// A fresh key pair PREFIX.key / PREFIX.pub under $TEST_TMPDIR.
std::string newKey(const std::string &name) {
  fs::remove(tmp(name + ".key"));
  fs::remove(tmp(name + ".pub"));
  std::string out;
  EXPECT_EQ(bundleTool("keygen --out " + tmp(name), out), 0) << out;
  return tmp(name);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(TesselBundle, SignedBundleVerifiesAndAReplacedArtifactIsRefused) {
  std::string key = newKey("release"), out;
  struct stat st;
  ASSERT_EQ(stat((key + ".key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::string dir = makeBundle("signed");
  ASSERT_EQ(bundleTool("sign --key " + key + ".key " + dir, out), 0) << out;
  EXPECT_TRUE(contains(out, "signed " + dir + " (2 entries) with key ")) << out;
  EXPECT_EQ(bundleTool("verify --trusted " + key + ".pub " + dir, out), 0) << out;
  EXPECT_TRUE(contains(out, "signature verified")) << out;

  // The artifact replaced and its sha256 rewritten in the manifest: checksums agree, the
  // signature does not.
  std::string original = tessel::runtime::Sha256Hex(read(dir + "/artifacts/vadd.so"));
  evilArtifact(dir + "/artifacts/vadd.so");
  std::string manifest = read(dir + "/manifest.json");
  for (size_t at; (at = manifest.find(original)) != std::string::npos;)
    manifest.replace(at, original.size(),
                     tessel::runtime::Sha256Hex(read(dir + "/artifacts/vadd.so")));
  write(dir + "/manifest.json", manifest);
  EXPECT_EQ(bundleTool("verify --trusted " + key + ".pub " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "manifest.json.sig: the signature by key")) << out;
  EXPECT_TRUE(contains(out, "does not verify")) << out;
}

TEST(TesselBundle, UnsignedBundlesAndOtherKeysAreRefused) {
  std::string signer = newKey("signer"), other = newKey("other"), out;
  std::string dir = makeBundle("unsigned");
  EXPECT_EQ(bundleTool("verify --trusted " + signer + ".pub " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "the bundle is unsigned")) << out;
  ASSERT_EQ(bundleTool("sign --key " + signer + ".key " + dir, out), 0) << out;
  EXPECT_EQ(bundleTool("verify --trusted " + other + ".pub " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "which is not a trusted key")) << out;
  // Either of two trusted key files.
  EXPECT_EQ(bundleTool("verify --trusted " + other + ".pub --trusted " + signer + ".pub " + dir,
                       out),
            0)
      << out;
}

TEST(TesselBundle, OnlyABundleThatOpensIsSigned) {
  std::string key = newKey("signer"), out;
  std::string dir = makeBundle("corrupt");
  std::string bytes = read(dir + "/artifacts/vadd.so");
  bytes[bytes.size() / 2] ^= 0x5a;
  write(dir + "/artifacts/vadd.so", bytes);
  EXPECT_EQ(bundleTool("sign --key " + key + ".key " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "not signing " + dir + ": ")) << out;
  EXPECT_TRUE(contains(out, "does not match its checksum")) << out;
  EXPECT_FALSE(fs::exists(dir + "/manifest.json.sig"));
}

TEST(TesselBundle, BadKeysSignaturesAndCommandLinesAreClearErrors) {
  std::string key = newKey("signer"), out;
  std::string dir = makeBundle("bad-inputs");
  std::string secret = read(key + ".key");
  // keygen never overwrites a key.
  EXPECT_EQ(bundleTool("keygen --out " + key, out), 1) << out;
  EXPECT_TRUE(contains(out, "never overwritten")) << out;
  // Secret keys: readable by others, truncated, a public key instead.
  write(tmp("loose.key"), secret);
  chmod(tmp("loose.key").c_str(), 0644);
  EXPECT_EQ(bundleTool("sign --key " + tmp("loose.key") + " " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "chmod 600")) << out;
  write(tmp("short.key"), secret.substr(0, secret.size() / 2));
  chmod(tmp("short.key").c_str(), 0600);
  EXPECT_EQ(bundleTool("sign --key " + tmp("short.key") + " " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "expected 128 hex digits")) << out;
  EXPECT_EQ(bundleTool("sign --key " + key + ".pub " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "this is a public key")) << out;
  EXPECT_EQ(bundleTool("sign --key " + tmp("none.key") + " " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "cannot read the secret key file")) << out;
  // Public keys: a secret key instead (never printed), garbage.
  ASSERT_EQ(bundleTool("sign --key " + key + ".key " + dir, out), 0) << out;
  EXPECT_EQ(bundleTool("verify --trusted " + key + ".key " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "this is a secret key")) << out;
  EXPECT_FALSE(contains(out, secret.substr(26, 32))) << "the secret key was printed";
  write(tmp("garbage.pub"), std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10));
  EXPECT_EQ(bundleTool("verify --trusted " + tmp("garbage.pub") + " " + dir, out), 1) << out;
  EXPECT_TRUE(contains(out, "expected 'tessel-ed25519-public-key'")) << out;
  // Signature files: truncated, garbage.
  std::string sig = read(dir + "/manifest.json.sig");
  for (const std::string &bad : {sig.substr(0, sig.size() / 3), std::string("\x01\x02\xff", 3)}) {
    write(dir + "/manifest.json.sig", bad);
    EXPECT_EQ(bundleTool("verify --trusted " + key + ".pub " + dir, out), 1) << out;
    EXPECT_TRUE(contains(out, "manifest.json.sig: not a bundle signature")) << out;
  }
  // Command lines.
  for (const std::string &args :
       {std::string(""), std::string("frobnicate"), std::string("keygen"),
        std::string("sign " + dir), std::string("sign --key"), std::string("verify " + dir),
        std::string("verify --trusted " + key + ".pub"), std::string("keygen --out a --out b"),
        std::string("sign --key " + key + ".key --bogus x " + dir)}) {
    EXPECT_EQ(bundleTool(args, out), 2) << args << ": " << out;
    EXPECT_TRUE(contains(out, "usage: tessel-bundle")) << args << ": " << out;
  }
}

TEST(TesselBundle, LibsodiumIsLinkedStatically) {
  // An application needs no libsodium.so: the tool (runtime only) imports none.
  std::string out;
  ASSERT_EQ(runCommand("ldd tools/tessel-bundle", out), 0) << out;
  EXPECT_TRUE(contains(out, "libc.so")) << out;
  EXPECT_FALSE(contains(out, "sodium")) << out;
}

} // namespace
