//===- ConfigurationFuzzer.cpp - fuzz entry: bytes as a configuration -*- C++ -*-===//

#include "autotune/fuzz/Fuzzers.h"
#include "autotune/space/Space.h"
#include "kernels/Zoo.h"
#include "tools/fuzz/Fuzz.h"

namespace tessel::fuzz {

bool FuzzConfiguration(const std::string &bytes) {
  absl::StatusOr<autotune::Point> p = autotune::ParsePoint(bytes);
  if (!p.ok())
    return false;
  absl::StatusOr<autotune::Point> again = autotune::ParsePoint(autotune::PointJson(*p));
  Check(again.ok() && autotune::PointJson(*again) == autotune::PointJson(*p),
        "an accepted configuration does not read back the same");
  for (const zoo::Kernel &k : zoo::Kernels()) {
    (void)k.cpu.space.Validate(*p);
    (void)k.gpu.space.Validate(*p);
  }
  return true;
}

std::vector<std::string> ConfigurationSeeds() {
  std::vector<std::string> seeds;
  for (const zoo::Kernel &k : zoo::Kernels())
    for (const zoo::TargetSpec *spec : {&k.cpu, &k.gpu}) {
      std::vector<autotune::Point> points = spec->space.Enumerate();
      if (!points.empty())
        seeds.push_back(autotune::PointJson(points.front()));
    }
  return seeds;
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzConfiguration, tessel::fuzz::ConfigurationSeeds)
