//===- GpuArtifactFuzzer.cpp - fuzz entry: bytes as a GPU artifact -*- C++ -*-===//

#include "runtime/fuzz/Fuzzers.h"
#include "runtime/target/GpuArtifact.h"
#include "tools/fuzz/Fuzz.h"

namespace tessel::fuzz {

bool FuzzGpuArtifact(const std::string &bytes) {
  absl::StatusOr<GpuArtifact> a = ParseGpuArtifact(bytes);
  if (!a.ok())
    return false;
  // What was accepted reads back the same.
  absl::StatusOr<GpuArtifact> again = ParseGpuArtifact(SerializeGpuArtifact(*a));
  Check(again.ok(), "an accepted GPU artifact does not parse once written again");
  Check(SerializeGpuArtifact(*again) == SerializeGpuArtifact(*a),
        "an accepted GPU artifact changes when written again");
  return true;
}

std::vector<std::string> GpuArtifactSeeds() {
  GpuArtifact a;
  a.arch = "sm_90";
  a.ptxVersion = "8.0";
  a.ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
  a.cubin = std::string("\x7f" "ELF\x02\x01", 6) + std::string(40, '\0');
  GpuKernelInfo k;
  k.name = "vadd";
  k.signature = "ptr:f32,ptr:f32,ptr:f32,i32";
  k.block = {128, 1, 1};
  a.kernels = {k};
  GpuKernelInfo d = k;
  d.name = "vadd_aligned";
  d.divisibility = {16, 16, 16, 16};
  GpuArtifact b = a;
  b.kernels.push_back(d);
  return {SerializeGpuArtifact(a), SerializeGpuArtifact(b)};
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzGpuArtifact, tessel::fuzz::GpuArtifactSeeds)
