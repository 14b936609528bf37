//===- Knobs.h - the names of each backend's knobs, without the compiler -*- C++ -*-===//
//
// Kernel specs map a triton.Config's launch options (num_warps, num_stages, ...) to the
// target's knobs, and tessel-bench reads specs without linking the compiler: the names live
// here, in the leaf, and //compiler/backend/test:knob_names_test checks them against each
// backend's declared knobs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_TARGET_KNOBS_H
#define TESSEL_RUNTIME_TARGET_KNOBS_H

#include "runtime/target/Target.h"

#include <string>
#include <vector>

namespace tessel {

/// The knob names of the backend of `kind`, in the order it declares them (the order spaces
/// list knobs in).
inline std::vector<std::string> KnobNames(TargetKind kind) {
  switch (kind) {
  case TargetKind::Cpu:
    return {"tile_m", "tile_n", "tile_k", "vector_width", "unroll", "prefetch"};
  case TargetKind::Cuda:
    return {"num_warps", "num_stages", "unroll",     "vector_bytes", "maxnreg", "wgmma",
            "warp_m",    "persistent", "tma",        "warp_specialize", "pingpong"};
  case TargetKind::Rocm:
    return {"num_warps", "unroll", "vector_bytes"};
  }
  return {};
}

} // namespace tessel

#endif // TESSEL_RUNTIME_TARGET_KNOBS_H
