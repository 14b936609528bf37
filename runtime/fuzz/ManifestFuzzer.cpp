//===- ManifestFuzzer.cpp - fuzz entry: bytes as a bundle's manifest -*- C++ -*-===//

#include "runtime/Bundle.h"
#include "runtime/Sha256.h"
#include "runtime/fuzz/Fuzzers.h"
#include "runtime/target/GpuArtifact.h"
#include "runtime/target/Target.h"
#include "tools/fuzz/Fuzz.h"

#include <filesystem>

namespace tessel::fuzz {
namespace {

/// The artifact the seeds name: a GPU artifact (the runtime reads its kernels' signatures and
/// build without a GPU or a compiler), built with BLOCK = 128 as the seeds' config says.
const std::string &artifact() {
  static const std::string text = [] {
    GpuArtifact a;
    a.arch = "sm_90";
    a.ptxVersion = "8.0";
    a.ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
    GpuKernelInfo k;
    k.name = "k";
    k.signature = "ptr:f32,i32";
    k.block = {128, 1, 1};
    a.kernels = {k};
    a.buildInfo = R"({"entry": "k", "constexprs": {"BLOCK": "128"}, "knobs": {}})";
    return SerializeGpuArtifact(a);
  }();
  return text;
}

} // namespace

/// A bundle directory with the one artifact the seeds name (made once).
const std::string &FuzzBundleDir() {
  static const std::string dir = [] {
    std::string d = ScratchDir() + "/bundle";
    std::filesystem::create_directories(d + "/artifacts");
    WriteFileBytes(d + "/artifacts/k.so", artifact());
    return d;
  }();
  return dir;
}

bool FuzzBundleManifest(const std::string &bytes) {
  WriteFileBytes(FuzzBundleDir() + "/manifest.json", bytes);
  auto bundle = runtime::Bundle::Open(FuzzBundleDir());
  if (!bundle.ok())
    return false;
  for (const auto &e : (*bundle)->entries()) {
    absl::StatusOr<runtime::BundleChoice> found = (*bundle)->Find(e.kernel, e.shape, e.dtype);
    Check(!found.ok() || found->entry, "a bundle lookup succeeded without an entry");
  }
  return true;
}

std::vector<std::string> BundleManifestSeeds() {
  (void)FuzzBundleDir();
  std::string one = R"({"schema_version": 1, "compiler_version": "tessel fuzz",
  "target": {"kind": "cuda", "arch": "sm_90", "features": []},
  "kernels": [{"name": "k", "signature": "ptr:f32,i32", "entries": [
    {"shape": {"n": 1000}, "dtype": "f32", "entry": "k", "artifact": "artifacts/k.so",
     "sha256": ")" + runtime::Sha256Hex(artifact()) + R"(", "config": {"BLOCK": 128},
     "metrics": {"time_ms": 0.01}, "serves": {"n": [513, 1024]}}]}]})";
  // Schema 2: the kernel's launch contract, which the runtime parses and launches from.
  std::string two = R"j({"schema_version": 2, "compiler_version": "tessel fuzz",
  "target": {"kind": "cuda", "arch": "sm_90", "features": []},
  "kernels": [{"name": "k", "signature": "ptr:f32,i32",
    "launch": {"dims": ["n"], "dispatch": ["n"], "grid": "(cdiv(n, BLOCK),)",
      "args": [{"kind": "tensor", "name": "x", "dtype": "f32", "shape": ["n"], "role": "inout"},
               {"kind": "scalar", "name": "n", "type": "i32", "value": "n"},
               {"kind": "meta", "name": "BLOCK"}]},
    "entries": [
    {"shape": {"n": 1000}, "dtype": "f32", "entry": "k", "artifact": "artifacts/k.so",
     "sha256": ")j" + runtime::Sha256Hex(artifact()) + R"j(", "config": {"BLOCK": 128},
     "metrics": {"time_ms": 0.01}, "serves": {"n": [513, 1024]}}]}]})j";
  return {one, two};
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzBundleManifest, tessel::fuzz::BundleManifestSeeds)
