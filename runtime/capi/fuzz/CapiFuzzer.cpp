//===- CapiFuzzer.cpp - fuzz entry: the C API on the manifest fuzzer's corpus -===//
//
// Bytes as a bundle's manifest (runtime/fuzz's corpus and mutations), opened and used through
// tessel_runtime.h alone: every call returns TESSEL_OK or a code with a message, never a crash;
// a kernel the bundle lists launches with its tensor on the cpu device or is refused.
//
//===----------------------------------------------------------------------===//

#include <tessel/tessel_runtime.h>

#include "runtime/capi/fuzz/CapiFuzzer.h"
#include "runtime/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include <cstring>
#include <vector>

namespace tessel::fuzz {

bool FuzzCapiManifest(const std::string &bytes) {
  WriteFileBytes(FuzzBundleDir() + "/manifest.json", bytes);
  auto failed = [](int code) {
    Check(code != TESSEL_OK && std::strlen(tessel_last_error()) > 0,
          "a failed C API call said nothing");
  };
  tessel_bundle *bundle = nullptr;
  if (int code = tessel_bundle_open(FuzzBundleDir().c_str(), &bundle)) {
    failed(code);
    Check(bundle == nullptr, "a refused bundle was handed out");
    return false;
  }
  static tessel_device *device = [] {
    tessel_device *d = nullptr;
    return tessel_device_open("cpu", &d) == TESSEL_OK ? d : nullptr;
  }();
  Check(device != nullptr, "the cpu device does not open");
  Check(tessel_bundle_device_kind(bundle) != nullptr, "a bundle without a device kind");
  alignas(64) static float data[4096];
  const int64_t shape[1] = {1000};
  const tessel_tensor x = {"x", data, "f32", 1, shape, nullptr};
  const tessel_dim n = {"n", 1000};
  size_t kernels = tessel_bundle_num_kernels(bundle);
  for (size_t i = 0; i < kernels; ++i) {
    const char *name = tessel_bundle_kernel(bundle, i);
    Check(name != nullptr, "a listed kernel without a name");
    for (int variant = 0; variant < 3; ++variant) {
      int code = tessel_launch(bundle, device, name, variant ? &x : nullptr, variant ? 1 : 0,
                               variant == 2 ? &n : nullptr, variant == 2 ? 1 : 0);
      if (code != TESSEL_OK)
        failed(code);
    }
  }
  Check(tessel_bundle_kernel(bundle, kernels) == nullptr, "a kernel past the end");
  tessel_bundle_close(bundle);
  return true;
}

} // namespace tessel::fuzz

TESSEL_FUZZ_ENTRY(tessel::fuzz::FuzzCapiManifest, tessel::fuzz::BundleManifestSeeds)
