//===- NpyFuzzer.cpp - fuzz entry: bytes as a .npy file -*- C++ -*-===//

#include "runtime/Npy.h"
#include "runtime/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

namespace tessel::fuzz {

bool FuzzNpy(const std::string &bytes) {
  std::string path = ScratchDir() + "/fuzz.npy";
  WriteFileBytes(path, bytes);
  absl::StatusOr<runtime::NpyArray> a = runtime::ReadNpy(path);
  if (!a.ok())
    return false;
  // What was accepted is consistent: the data is exactly the shape's bytes.
  int64_t size = runtime::ElementBytes(a->dtype);
  for (int64_t d : a->shape)
    size *= d;
  Check(int64_t(a->data.size()) == size, "an accepted .npy file's data is not its shape's size");
  return true;
}

std::vector<std::string> NpySeeds() {
  std::vector<std::string> seeds;
  std::string path = ScratchDir() + "/seed.npy";
  for (const char *dtype : {"f32", "i32", "f16", "i8", "i1", "f64", "i64"}) {
    runtime::NpyArray a;
    a.dtype = dtype;
    a.shape = {3, 5};
    a.data.assign(size_t(15 * runtime::ElementBytes(dtype)), 7);
    Check(runtime::WriteNpy(path, a).ok(), "writing a seed .npy file");
    seeds.push_back(ReadFileBytes(path));
  }
  return seeds;
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzNpy, tessel::fuzz::NpySeeds)
