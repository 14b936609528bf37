//===- ManifestFuzzer.cpp - fuzz entry: bytes as a bundle's manifest -*- C++ -*-===//

#include "runtime/Bundle.h"
#include "runtime/Sha256.h"
#include "runtime/fuzz/Fuzzers.h"
#include "runtime/target/Target.h"
#include "tools/fuzz/Fuzz.h"

#include <filesystem>

namespace tessel::fuzz {
namespace {

const std::string kArtifact = "not really a shared object";

/// A bundle directory with the one artifact the seeds name (made once).
const std::string &bundleDir() {
  static const std::string dir = [] {
    std::string d = ScratchDir() + "/bundle";
    std::filesystem::create_directories(d + "/artifacts");
    WriteFileBytes(d + "/artifacts/k.so", kArtifact);
    return d;
  }();
  return dir;
}

} // namespace

bool FuzzBundleManifest(const std::string &bytes) {
  WriteFileBytes(bundleDir() + "/manifest.json", bytes);
  auto bundle = runtime::Bundle::Open(bundleDir());
  if (!bundle.ok())
    return false;
  for (const auto &e : (*bundle)->entries()) {
    absl::StatusOr<runtime::BundleChoice> found = (*bundle)->Find(e.kernel, e.shape, e.dtype);
    Check(!found.ok() || found->entry, "a bundle lookup succeeded without an entry");
  }
  return true;
}

std::vector<std::string> BundleManifestSeeds() {
  (void)bundleDir();
  Target host = Target::Host();
  std::string one = R"({"schema_version": 1, "compiler_version": "tessel fuzz",
  "target": {"kind": "cpu", "arch": ")" + host.arch + R"(", "features": ["sse2"]},
  "kernels": [{"name": "k", "signature": "ptr:f32,i32", "entries": [
    {"shape": {"n": 1000}, "dtype": "f32", "entry": "k", "artifact": "artifacts/k.so",
     "sha256": ")" + runtime::Sha256Hex(kArtifact) + R"(", "config": {"BLOCK": 128},
     "metrics": {"time_ms": 0.01}, "serves": {"n": [513, 1024]}}]}]})";
  return {one};
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzBundleManifest, tessel::fuzz::BundleManifestSeeds)
