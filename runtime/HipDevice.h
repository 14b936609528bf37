//===- HipDevice.h - the hip device: AMD's HIP runtime through dlopen -*- C++ -*-===//
//
// Opens libamdhip64 at run time (libamdhip64.so, then .so.7, .so.6, .so.5: the unversioned
// name comes only with development packages), so a machine without ROCm gets a clear error
// when it asks for "hip", never a load failure. Uses device 0 (or $TESSEL_HIP_DEVICE), loads
// rocm artifacts (runtime/target/GpuArtifact.h) whose chip is this GPU's (checked before the
// code object is handed to the runtime), launches with hipModuleLaunchKernel; buffers are
// device memory; FlushCaches overwrites 512 MiB (more than any AMD GPU's caches, MI300's 256
// MiB Infinity Cache included); timing uses HIP events.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_HIPDEVICE_H
#define TESSEL_RUNTIME_HIPDEVICE_H

#include "runtime/Device.h"

#include <string>

namespace tessel::runtime {

/// The hip device, or why there is none (no HIP runtime, no GPU, a runtime error).
absl::StatusOr<std::unique_ptr<Device>> CreateHipDevice(const DeviceOptions &options);

/// The chip named in a hipDeviceProp_t's bytes: its gcnArchName ("gfx942:sramecc+:xnack-"
/// gives "gfx942"), found as the first NUL-terminated string starting with "gfx" and a digit
/// after the 256-byte name field (the structure's layout differs between ROCm versions; the
/// name field comes first in all); "" when there is none.
std::string GcnArchFromProperties(const std::string &properties);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_HIPDEVICE_H
