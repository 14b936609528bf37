//===- SpecFuzzer.cpp - fuzz entry: bytes as a kernel spec (TOML) for the examples' kernels -===//
//
// The input is a spec for examples/rms_norm/rms_norm.py (copied beside it into a scratch
// folder once): read for a cpu and a cuda target, refused with a message or accepted; an
// accepted spec's kernel evaluates its signature, constexprs and a problem's grid for its
// first shape and point without crashing. Driven by kernels/spec:spec_fuzz_test under gcc,
// built as a libFuzzer binary by tools/build_fuzzers.sh.
//
//===----------------------------------------------------------------------===//

#include "kernels/spec/fuzz/Fuzzers.h"
#include "kernels/spec/Spec.h"
#include "runtime/Files.h"
#include "runtime/target/Knobs.h"
#include "tools/fuzz/Fuzz.h"

#include <filesystem>
#include <unistd.h>

namespace tessel::fuzz {

namespace {
std::string SpecScratchDir() {
  static const std::string dir = [] {
    const char *tmp = std::getenv("TEST_TMPDIR");
    std::string d = std::string(tmp ? tmp : "/tmp") + "/spec-fuzz-" + std::to_string(getpid());
    std::filesystem::create_directories(d);
    std::string kernel;
    if (runtime::ReadWholeFile("examples/rms_norm/rms_norm.py", kernel))
      WriteFileBytes(d + "/rms_norm.py", kernel);
    return d;
  }();
  return dir;
}
} // namespace

bool FuzzSpec(const std::string &bytes) {
  std::string path = SpecScratchDir() + "/fuzz.toml";
  WriteFileBytes(path, bytes);
  bool accepted = false;
  for (const char *t : {"cpu", "cuda:sm_90a"}) {
    absl::StatusOr<Target> target = ParseTarget(t);
    absl::StatusOr<zoo::Kernel> k = spec::LoadSpec(path, *target, KnobNames(target->kind));
    if (!k.ok()) {
      Check(!k.status().message().empty(), "a refused spec has a message");
      continue;
    }
    accepted = true;
    const zoo::TargetSpec ts = k->For(target->kind);
    std::vector<autotune::Point> points = ts.space.Enumerate();
    for (const std::string &dtype : ts.dtypes) {
      (void)k->signature(dtype);
      if (points.empty() || ts.defaultShapes.empty())
        continue;
      const zoo::Shape &s = ts.defaultShapes.front();
      (void)k->constexprs(points.front(), s);
      (void)k->flops(s);
      if (k->bytes(s, dtype) > 1e8) // keep the problems small
        continue;
      auto problem = k->makeProblem(s, dtype, 1);
      if (problem.ok())
        (void)(*problem)->GridFor(points.front());
    }
  }
  return accepted;
}

std::vector<std::string> SpecSeeds() {
  std::string seed;
  if (!runtime::ReadWholeFile("examples/rms_norm/rms_norm.toml", seed))
    return {};
  // Small shapes: the fuzzer builds problems.
  for (const char *big : {"32768", "8192", "4096"})
    for (size_t at; (at = seed.find(big)) != std::string::npos;)
      seed.replace(at, std::string(big).size(), "64");
  return {seed};
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzSpec, tessel::fuzz::SpecSeeds)
