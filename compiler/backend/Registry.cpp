//===- Registry.cpp - the backends, by target kind -----------------*- C++ -*-===//
//
// A new backend adds its factory to the list below.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/Registry.h"

#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/backend/cuda/CudaBackend.h"
#include "compiler/backend/rocm/RocmBackend.h"

namespace tessel {

const std::vector<const Backend *> &registeredBackends() {
  static const std::vector<const Backend *> backends = {&cpuBackend(), &cudaBackend(),
                                                        &rocmBackend()};
  return backends;
}

absl::StatusOr<const Backend *> lookupBackend(TargetKind kind) {
  for (const Backend *b : registeredBackends())
    if (b->kind() == kind)
      return b;
  return absl::UnimplementedError(std::string("tessel has no ") + TargetKindName(kind) +
                                  " backend yet (targets it builds for: cpu, cuda, rocm)");
}

} // namespace tessel
