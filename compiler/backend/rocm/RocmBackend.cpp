//===- RocmBackend.cpp - the rocm backend: knobs, pipeline, artifacts -*- C++ -*-===//

#include "compiler/backend/rocm/RocmBackend.h"
#include "compiler/backend/GpuKernels.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessel {
namespace {

class RocmBackendImpl : public Backend {
public:
  TargetKind kind() const override { return TargetKind::Rocm; }

  const std::vector<KnobInfo> &knobs() const override {
    static const std::vector<KnobInfo> knobs = {
        {"num_warps", 1, 16, {1, 2, 4, 8, 16}, 4,
         "wavefronts per workgroup: one program runs on num_warps * 64 lanes (CDNA) or "
         "num_warps * 32 (RDNA)"},
        gpuUnrollKnob(),
        gpuVectorBytesKnob(),
    };
    return knobs;
  }

  const std::vector<ArtifactKind> &artifactKinds() const override {
    static const std::vector<ArtifactKind> kinds = {
        {"llvm", "the device code as LLVM IR (AMDGPU)", false},
        {"isa", "the chip's assembly", false},
        {"hsaco", "the code object (an AMDGPU ELF shared object, linked by ld.lld)", false},
        {"artifact", "what the runtime loads: the hsaco and launch metadata", true},
    };
    return kinds;
  }

  absl::Status validateTarget(const Target &target) const override {
    if (target.kind != TargetKind::Rocm)
      return absl::InvalidArgumentError("the rocm backend cannot build for " + target.str());
    return RocmChipFor(target.arch).status();
  }

  Target describeTarget(const Target &target) const override { return target; }

  /// The linker that makes code objects, by its path, size and modification time.
  std::string toolchainIdentity() const override {
    absl::StatusOr<std::string> lld = findLld();
    llvm::sys::fs::file_status status;
    if (!lld.ok() || llvm::sys::fs::status(*lld, status))
      return "lld=none";
    return "lld=" + *lld + "@" + std::to_string(status.getSize()) + "@" +
           std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
  }

  absl::StatusOr<std::string> emit(ModuleOp module, const EmitRequest &request) const override {
    absl::StatusOr<ArtifactKind> kind = findArtifactKind(request.artifact);
    if (!kind.ok())
      return kind.status();
    absl::StatusOr<RocmChip> chip = RocmChipFor(request.target.arch);
    if (!chip.ok())
      return chip.status();
    KnobMap knobs = withDefaults(request.knobs);
    int64_t numWarps = knobs.at("num_warps");

    GpuArtifact artifact;
    artifact.arch = chip->arch;
    std::string pipeline =
        rocmPipeline(*chip, numWarps, knobs.at("unroll"), knobs.at("vector_bytes"));
    if (absl::Status s = lowerGpuKernels(module, pipeline, int32_t(numWarps * chip->waveSize),
                                         "rocm", /*totalShared=*/true, artifact);
        !s.ok())
      return s;
    // The arena is made static (RocmCodeGen.cpp): no dynamic LDS at launch.
    int64_t arena = 0;
    for (GpuKernelInfo &info : artifact.kernels) {
      arena = std::max(arena, info.sharedBytes);
      info.sharedBytes = 0;
    }

    absl::StatusOr<RocmCode> code =
        emitRocmCode(module, *chip, /*isa=*/request.artifact == "isa", arena);
    if (!code.ok())
      return code.status();
    if (request.artifact == "llvm")
      return code->llvmIR;
    if (request.artifact == "isa")
      return code->isa;
    absl::StatusOr<std::string> lld = findLld();
    if (!lld.ok())
      return lld.status();
    absl::StatusOr<std::string> hsaco = linkHsaco(*lld, code->object);
    if (!hsaco.ok())
      return hsaco.status();
    if (request.artifact == "hsaco")
      return *hsaco;
    artifact.hsaco = std::move(*hsaco);
    return writeGpuArtifact(artifact, request.outputPath);
  }
};

} // namespace

const Backend &rocmBackend() {
  static const RocmBackendImpl backend;
  return backend;
}

} // namespace tessel
