//===- CudaDevice.h - the cuda device: the NVIDIA driver through dlopen -*- C++ -*-===//
//
// Opens libcuda.so.1 at run time (a machine without the driver gets a clear error when it asks
// for "cuda", never a load failure), uses the primary context of device 0 (or
// $TESSEL_CUDA_DEVICE), loads GPU artifacts (runtime/target/GpuArtifact.h): the cubin when it
// was built for this GPU's chip, else the PTX JIT-compiled by the driver where the GPU
// supports the PTX's chip (said on stderr), else a clear error. Launches take the kernel's
// Triton signature; buffers are device memory; FlushCaches writes a buffer twice the L2;
// timing uses CUDA events.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_CUDADEVICE_H
#define TESSEL_RUNTIME_CUDADEVICE_H

#include "runtime/Device.h"

namespace tessel::runtime {

/// The cuda device, or why there is none (no driver, no GPU, a driver error).
absl::StatusOr<std::unique_ptr<Device>> CreateCudaDevice(const DeviceOptions &options);

/// Whether GPU code for `artifactArch` (sm_80, sm_90a, ...) can run on a GPU of compute
/// capability major.minor: a cubin only on its own chip, PTX where the GPU is at least as new
/// (an "a" chip's PTX only on that chip). `jit` selects the PTX rule.
bool CudaArchRunsOn(const std::string &artifactArch, int major, int minor, bool jit);

/// The kernel module's version in the first line of /proc/driver/nvidia/version ("NVRM
/// version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the first
/// dotted number), or "" when there is none.
std::string NvidiaDriverVersion(const std::string &procVersion);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_CUDADEVICE_H
