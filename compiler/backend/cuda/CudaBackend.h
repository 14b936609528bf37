//===- CudaBackend.h - the cuda backend: structured output to PTX and cubin -*- C++ -*-===//
//
// The `cuda` backend (registered in compiler/backend/Registry.cpp). One program is one CUDA
// block of num_warps * 32 threads: the structured lowering's six trailing program-id / grid
// arguments become block ids and grid sizes (tessel-cuda-map-programs). Kernels take the
// Triton signature as bare pointers and scalars. It emits LLVM IR (NVVM), PTX (LLVM's NVPTX
// backend: no toolkit needed), a cubin (ptxas, where a CUDA toolkit is found), and the
// artifact the runtime loads (runtime/target/GpuArtifact.h: PTX, cubin, launch metadata).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_CUDA_CUDABACKEND_H
#define TESSEL_COMPILER_BACKEND_CUDA_CUDABACKEND_H

#include "compiler/backend/Backend.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace llvm {
class Module;
}

namespace tessel {

/// The registered cuda backend.
const Backend &cudaBackend();

/// The CUDA toolkit root to use: `requested` ("none": none; a path: that one, which must
/// hold bin/ptxas), else $CUDA_PATH, else /usr/local/cuda where bin/ptxas exists; empty when
/// none.
absl::StatusOr<std::string> findCudaToolkit(const std::string &requested);

/// The last line of `ptxas --version` of the toolkit at `toolkit` (its build, e.g. "Build
/// cuda_13.0.r13.0/compiler.36424714_0"), or "unknown" where it cannot be run.
std::string ptxasVersion(const std::string &toolkit);

/// Calls of libdevice functions NVPTX has instructions for (__nv_floorf, __nv_fmaxf,
/// __nv_sqrtf, ...) as LLVM intrinsics; an error naming any other libdevice function left
/// (NvvmMath.cpp).
absl::Status replaceLibdeviceCalls(llvm::Module &module, bool haveLibdevice);

/// The libdevice functions `module` calls, linked from the bitcode at `path` and internalized
/// (NvvmMath.cpp); nothing where it calls none.
absl::Status linkLibdevice(llvm::Module &module, const std::string &path);

/// The toolkit's libdevice (nvvm/libdevice/libdevice.10.bc under `toolkit`), or empty.
std::string libdevicePath(const std::string &toolkit);

/// The gpu.module of the lowered `module` as LLVM IR text and as PTX for `arch`, the math it
/// calls from the libdevice at `libdevice` (empty: none) (CudaCodeGen.cpp).
absl::Status emitPtx(mlir::ModuleOp module, const std::string &arch,
                     const std::string &libdevice, std::string *llvmIR, std::string *ptx);

/// `ptx` assembled by the toolkit's ptxas for `arch`; its version line in `ptxasVersion`.
absl::StatusOr<std::string> assembleCubin(const std::string &toolkit, const std::string &ptx,
                                          const std::string &arch);

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_CUDA_CUDABACKEND_H
