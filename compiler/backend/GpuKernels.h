//===- GpuKernels.h - what the GPU backends share: kernels' launch metadata -*- C++ -*-===//
//
// The cuda and rocm backends map one program to one block (workgroup) with the same passes
// (compiler/backend/cuda: tessel-cuda-map-programs and the passes before it); both describe
// their kernels to the runtime the same way (runtime/target/GpuArtifact.h). This is that part.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_GPUKERNELS_H
#define TESSEL_COMPILER_BACKEND_GPUKERNELS_H

#include "compiler/backend/Backend.h"
#include "runtime/target/GpuArtifact.h"

#include "mlir/IR/BuiltinOps.h"

#include "absl/status/statusor.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace tessel {

/// The module attribute in which tessel-cuda-map-programs records each kernel's dynamic
/// shared-memory bytes ({kernel = bytes}): the launch metadata's shared_bytes.
inline constexpr llvm::StringLiteral kDynamicSharedBytesAttr = "tessel.dynamic_shared_bytes";

/// The module attribute in which tessel-cuda-map-programs records each kernel's shared memory
/// in all ({kernel = bytes}: the dynamic arena and the static buffers, each 16-byte aligned).
inline constexpr llvm::StringLiteral kTotalSharedBytesAttr = "tessel.total_shared_bytes";

/// The kernel attribute (array<i64>, one per runtime argument) with what the kernel may assume
/// its arguments divisible by: Triton's tt.divisibility (a pointer's alignment in bytes, an
/// integer's value; 1: nothing). Set from the arguments' tt.divisibility before the pipeline
/// drops those; tessel-cuda-map-programs carries it to the gpu.func and
/// tessel-cuda-bare-pointer-kernels makes it LLVM's (pointer alignment, assumptions). The
/// runtime refuses a launch whose arguments break it (the artifact's "divisibility").
inline constexpr llvm::StringLiteral kArgDivisibilityAttr = "tessel.arg_divisibility";

/// The launch metadata of `module`'s kernels (public functions with the structured lowering's
/// six trailing arguments), read before a GPU backend lowers them: symbol, runtime signature,
/// `blockThreads` threads, the arguments' divisibility (also set as kArgDivisibilityAttr on
/// the kernel for the lowering). An error for a divisibility that is not a power of two or a
/// construct no GPU backend supports yet (tl.device_print), naming `backend`.
absl::StatusOr<std::vector<GpuKernelInfo>> describeGpuKernels(mlir::ModuleOp module,
                                                              int32_t blockThreads,
                                                              const std::string &backend);

/// Each kernel's dynamic and total shared memory, as tessel-cuda-map-programs recorded it,
/// into `kernels` (sharedBytes; ldsBytes when `total` is set); the attributes are dropped.
void takeSharedBytes(mlir::ModuleOp module, std::vector<GpuKernelInfo> &kernels, bool total);

/// The steps every GPU backend's emit opens with: `module`'s build info and its kernels' launch
/// metadata (describeGpuKernels: blocks of `blockThreads`) into `artifact`, then the backend's
/// `pipeline` (a pass pipeline string) run on `module`, then the kernels' shared-memory sizes
/// (takeSharedBytes with `totalShared`). Errors name `backend`.
absl::Status lowerGpuKernels(mlir::ModuleOp module, const std::string &pipeline,
                             int32_t blockThreads, const std::string &backend, bool totalShared,
                             GpuArtifact &artifact);

/// The device code a GPU pipeline left in `module`'s gpu.module, translated to LLVM IR in
/// `context` (the NVVM and ROCDL dialects' translations registered).
absl::StatusOr<std::unique_ptr<llvm::Module>> translateDeviceCode(mlir::ModuleOp module,
                                                                  llvm::LLVMContext &context);

/// The start of both GPU pipelines (textual): bufferization as on the CPU, the copies as
/// linalg, ready for the matrix-instruction passes.
std::string gpuBufferizationPipeline();

/// Runs the external tool `tool` (ptxas, ld.lld) on `input`: `args` follow the tool's path,
/// "{in}" and "{out}" in them replaced by temporary files holding `input` and receiving the
/// tool's output; it may run `seconds` (0: no limit). Returns what it wrote to {out}, or an
/// error naming `what` with its exit status and output.
absl::StatusOr<std::string> runTool(const std::string &tool, const std::vector<std::string> &args,
                                    const std::string &input, const std::string &what,
                                    unsigned seconds = 0);

/// `artifact` written to `path` (a unique temporary file renamed: readers never see a partial
/// artifact); returns the path. One the runtime's parser would refuse is an internal error,
/// and nothing is written.
absl::StatusOr<std::string> writeGpuArtifact(const GpuArtifact &artifact,
                                             const std::string &path);

/// The knobs both GPU backends have: `unroll` (iterations of a distributed loop a thread runs
/// at once) and `vector_bytes` (the widest group of consecutive elements a thread owns).
const KnobInfo &gpuUnrollKnob();
const KnobInfo &gpuVectorBytesKnob();

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_GPUKERNELS_H
