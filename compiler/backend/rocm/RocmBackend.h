//===- RocmBackend.h - the rocm backend: structured output to hsaco -*- C++ -*-===//
//
// The `rocm` backend (registered in compiler/backend/Registry.cpp) builds for AMD GPUs: gfx90a
// and gfx942 (CDNA, 64-lane wavefronts, mfma matrix cores) and gfx1100 (RDNA3, 32-lane
// wavefronts, wmma). One program is one workgroup of num_warps wavefronts, mapped by the same
// passes as the cuda backend's blocks (compiler/backend/cuda: tessel-cuda-map-programs with
// the chip's wave size; LDS is their shared memory, placed by the same analyses); tile
// matmuls of f16/bf16 run on the matrix cores (tessel-rocm-matrix-core-dots). Math is lowered
// by tessel's own patterns (polynomials, LLVM intrinsics the AMDGPU backend selects), so no
// ROCm device library is needed. It emits LLVM IR, the ISA (assembly), the hsaco code object
// (LLVM's AMDGPU backend, linked by ld.lld) and the artifact the runtime's hip device loads
// (runtime/target/GpuArtifact.h: the hsaco and launch metadata).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_ROCM_ROCMBACKEND_H
#define TESSEL_COMPILER_BACKEND_ROCM_ROCMBACKEND_H

#include "compiler/backend/Backend.h"
#include "runtime/target/GpuArtifact.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tessel {

/// The registered rocm backend.
const Backend &rocmBackend();

/// The rocm pipeline from the structured lowering's output to a gpu.module of ROCDL/LLVM
/// dialect kernels with bare-pointer entries (textual, as tessel-opt runs it).
std::string rocmPipeline(const RocmChip &chip, int64_t numWarps, int64_t unroll,
                         int64_t vectorBytes);

/// The device code of a module the rocm pipeline lowered, for `chip` (RocmCodeGen.cpp).
struct RocmCode {
  std::string llvmIR; ///< optimized LLVM IR text
  std::string isa;    ///< AMDGPU assembly (when asked for)
  std::string object; ///< the relocatable ELF object
};
/// `arenaBytes`: the largest LDS arena of its kernels (tessel-cuda-map-programs), made static.
absl::StatusOr<RocmCode> emitRocmCode(mlir::ModuleOp module, const RocmChip &chip, bool isa,
                                      int64_t arenaBytes);

/// The linker that makes a code object of `object` (LLVM 22's ld.lld), or an error saying
/// none was found.
absl::StatusOr<std::string> findLld();

/// The hsaco code object: `object` linked as a shared object by `lld`.
absl::StatusOr<std::string> linkHsaco(const std::string &lld, const std::string &object);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_ROCM_ROCMBACKEND_H
