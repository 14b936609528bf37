//===- Registry.h - the backends, by target kind -------------------*- C++ -*-===//
//
// Every backend tessel has, looked up by the kind of a Target. The table is constant (built on
// first use, never changed): compiles in parallel share it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_REGISTRY_H
#define TESSEL_COMPILER_BACKEND_REGISTRY_H

#include "compiler/backend/Backend.h"

#include "absl/status/statusor.h"

#include <vector>

namespace tessel {

/// The backend for `kind`, or an error saying that tessel has none yet.
absl::StatusOr<const Backend *> lookupBackend(TargetKind kind);

/// Every registered backend.
const std::vector<const Backend *> &registeredBackends();

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_REGISTRY_H
