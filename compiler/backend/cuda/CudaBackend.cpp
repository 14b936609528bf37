//===- CudaBackend.cpp - the cuda backend: knobs, pipeline, artifacts -*- C++ -*-===//

#include "compiler/backend/cuda/CudaBackend.h"
#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/cuda/Passes.h"

#include "runtime/target/GpuArtifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessel {
namespace {

/// The tensor maps each kernel's entry (llvm.func) asks for (cuda::kTensorMapsAttr), into its
/// artifact entry; the attribute removed.
absl::Status describeTensorMaps(ModuleOp module, GpuArtifact &artifact) {
  absl::Status status;
  module.walk([&](LLVM::LLVMFuncOp f) {
    auto maps = f->getAttrOfType<ArrayAttr>(cuda::kTensorMapsAttr);
    if (!maps)
      return;
    f->removeAttr(cuda::kTensorMapsAttr);
    auto k = llvm::find_if(artifact.kernels,
                           [&](const GpuKernelInfo &i) { return i.name == f.getName(); });
    if (k == artifact.kernels.end()) {
      status = absl::InternalError("tensor maps for an unknown kernel " + f.getName().str());
      return;
    }
    for (Attribute a : maps) {
      auto d = cast<DictionaryAttr>(a);
      auto get = [&](StringRef key) {
        auto v = d.getAs<IntegerAttr>(key);
        return v ? v.getInt() : int64_t(-1);
      };
      GpuTensorMap m;
      m.pointer = int32_t(get("pointer"));
      m.pitchArgument = int32_t(get("pitch_argument"));
      m.pitch = std::max<int64_t>(get("pitch"), 0);
      m.elementBytes = int32_t(get("element_bytes"));
      m.swizzle = int32_t(get("swizzle"));
      auto box = d.getAs<ArrayAttr>("box");
      if (!box || box.size() != 2) {
        status = absl::InternalError("a tensor map of " + k->name + " has no box");
        return;
      }
      m.box = {int32_t(cast<IntegerAttr>(box[0]).getInt()),
               int32_t(cast<IntegerAttr>(box[1]).getInt())};
      k->tensorMaps.push_back(m);
    }
  });
  return status;
}

class CudaBackendImpl : public Backend {
public:
  TargetKind kind() const override { return TargetKind::Cuda; }

  const std::vector<KnobInfo> &knobs() const override {
    static const std::vector<KnobInfo> knobs = {
        {"num_warps", 1, 16, {1, 2, 4, 8, 16}, 4,
         "warps per block: one program runs on num_warps * 32 threads"},
        {"num_stages", 1, 4, {1, 2, 3, 4}, 2,
         "stages of a tensor-core K loop: its operand tiles are copied (cp.async) num_stages - 1 "
         "iterations ahead, each tile num_stages times in shared memory (1: each iteration "
         "waits for its own)"},
        gpuUnrollKnob(),
        gpuVectorBytesKnob(),
        {"maxnreg", 0, 255, {0, 128, 168, 232}, 0,
         "the most registers a thread of the kernel may use (ptxas's .maxnreg; Triton's "
         "maxnreg): fewer lets more blocks share an SM (128 with 8 warps: two), at the cost of "
         "spills; 0: no limit"},
        {"wgmma", 0, 1, {0, 1}, 1,
         "sm_90a: 1 runs a matmul whose operand tiles are loaded in its K loop on warpgroups "
         "(wgmma.mma_async from swizzled shared memory), 0 on mma.sync as on sm_80; other "
         "chips: mma.sync"},
        {"warp_m", 0, 16, {0, 1, 2, 4, 8, 16}, 0,
         "rows of the warps' grid over a tensor-core matmul's block tile (num_warps / warp_m "
         "columns of warps, each warp's tile whole 16 x 8 pieces; on warpgroups warp_m / 4 "
         "rows of them, and a warp_m not a multiple of 4 keeps mma.sync); a matmul whose tile "
         "does not split so is a compile error. 0: chosen per matmul, the grid with the "
         "fewest operand loads"},
        {"persistent", 0, 2, {0, 1, 2}, 0,
         "persistent blocks: N > 0 launches at most N blocks an SM, each running the grid's "
         "programs in turn (b, b + blocks, ...; a barrier between programs); 0: one block a "
         "program"},
        {"tma", 0, 1, {0, 1}, 0,
         "sm_90a: 1 loads a tensor-core matmul's operand tiles by TMA (the runtime makes a "
         "tensor map a source; lane 0 of the warps in turn issues the box loads, an mbarrier "
         "a slot waits for them) where a tile is whole in bounds and its source 16-byte "
         "aligned, by cp.async otherwise; 0: cp.async only. Not with persistent > 0"},
        {"warp_specialize", 0, 1, {0, 1}, 0,
         "sm_90a with tma=1: 1 adds a producer warpgroup to the block (num_warps + 4 warps) "
         "whose first warp issues the TMA loads once the computing warps have released a "
         "slot, so those only wait for the data (no block barrier an iteration of the K loop) "
         "and take most of the producer's registers (setmaxnreg); 0: the computing warps "
         "issue them. Needs wgmma=1 and a kernel with TMA-loaded tiles; not with maxnreg"},
        {"pingpong", 0, 1, {0, 1}, 1,
         "sm_90a with wgmma and 8 or more warps: 1 lets the warpgroups issue the first "
         "tensor-core product of a loop that chains products (attention) in turns, so one "
         "warpgroup's softmax overlaps the others' products; 0 issues them all at once"},
    };
    return knobs;
  }

  const std::vector<ArtifactKind> &artifactKinds() const override {
    static const std::vector<ArtifactKind> kinds = {
        {"llvm", "the device code as LLVM IR (NVVM)", false},
        {"ptx", "PTX (no toolkit needed)", false},
        {"cubin", "the binary for the chip (ptxas of a CUDA toolkit)", false},
        {"artifact", "what the runtime loads: PTX, the cubin when a toolkit built one, launch "
                     "metadata",
         true},
    };
    return kinds;
  }

  absl::Status validateTarget(const Target &target) const override {
    if (target.kind != TargetKind::Cuda)
      return absl::InvalidArgumentError("the cuda backend cannot build for " + target.str());
    return PtxVersionFor(target.arch).status();
  }

  Target describeTarget(const Target &target) const override { return target; }

  /// The ptxas that builds cubins and the libdevice math is linked from (the toolkit found as
  /// emit finds it): ptxas by its version line, libdevice by its size and modification time;
  /// "ptxas=none" without a toolkit.
  std::string toolchainIdentity() const override {
    absl::StatusOr<std::string> toolkit = findCudaToolkit("");
    if (!toolkit.ok() || toolkit->empty())
      return "ptxas=none";
    std::string identity = "ptxas=" + ptxasVersion(*toolkit);
    std::string libdevice = libdevicePath(*toolkit);
    llvm::sys::fs::file_status status;
    if (libdevice.empty() || llvm::sys::fs::status(libdevice, status))
      return identity + ";libdevice=none";
    return identity + ";libdevice=" + std::to_string(status.getSize()) + "@" +
           std::to_string(llvm::sys::toTimeT(status.getLastModificationTime()));
  }

  absl::StatusOr<std::string> emit(ModuleOp module, const EmitRequest &request) const override {
    absl::StatusOr<ArtifactKind> kind = findArtifactKind(request.artifact);
    if (!kind.ok())
      return kind.status();
    KnobMap knobs = withDefaults(request.knobs);
    int64_t numWarps = knobs.at("num_warps");
    const std::string &arch = request.target.arch;
    // A persistent block runs programs in turn, each initializing the TMA tiles' mbarriers
    // anew (their phases follow the program's K loop) over the previous program's: not built.
    if (arch == "sm_90a" && knobs.at("tma") == 1 && knobs.at("persistent") > 0)
      return absl::InvalidArgumentError(
          "knob tma=1 does not combine with persistent > 0 yet (each program would initialize "
          "the TMA tiles' mbarriers again over the last one's)");

    bool warpSpecialize = knobs.at("warp_specialize") == 1;
    if (warpSpecialize && (arch != "sm_90a" || knobs.at("tma") != 1 || knobs.at("wgmma") != 1))
      return absl::InvalidArgumentError(
          "knob warp_specialize=1 needs target sm_90a with tma=1 and wgmma=1 (the producer "
          "warp issues TMA loads of warpgroup matmuls' tiles)");
    if (warpSpecialize && knobs.at("maxnreg") != 0)
      return absl::InvalidArgumentError(
          "knob warp_specialize=1 sets the registers itself (the producer's go to the "
          "computing warps): leave maxnreg at 0");

    // Math from the toolkit's libdevice where there is one, else tessel's own lowering.
    absl::StatusOr<std::string> toolkit = findCudaToolkit(request.toolkit);
    if (!toolkit.ok())
      return toolkit.status();
    std::string libdevice = libdevicePath(*toolkit);
    absl::StatusOr<int64_t> maxShared = MaxSharedBytesPerBlock(arch);
    if (!maxShared.ok())
      return maxShared.status();
    std::string pipeline =
        cudaPipeline(numWarps, knobs.at("num_stages"), knobs.at("unroll"),
                     knobs.at("vector_bytes"), *maxShared, !libdevice.empty(),
                     /*wgmma=*/arch == "sm_90a" && knobs.at("wgmma") == 1,
                     /*warpgroupTurns=*/knobs.at("pingpong") == 1, knobs.at("warp_m"),
                     /*persistent=*/knobs.at("persistent") > 0,
                     /*tma=*/arch == "sm_90a" && knobs.at("tma") == 1, warpSpecialize);
    GpuArtifact artifact;
    artifact.arch = arch;
    artifact.ptxVersion = *PtxVersionFor(arch);
    int32_t blockThreads = int32_t((numWarps + (warpSpecialize ? 4 : 0)) * 32);
    if (absl::Status s = lowerGpuKernels(module, pipeline, blockThreads, "cuda",
                                         /*totalShared=*/false, artifact);
        !s.ok())
      return s;
    // Launched persistent by the runtime (tessel-cuda-map-programs made every kernel so).
    for (GpuKernelInfo &k : artifact.kernels)
      k.persistent = knobs.at("persistent");
    // The TMA tensor maps the runtime makes for a kernel (tessel-cuda-tensor-core-dots).
    if (absl::Status s = describeTensorMaps(module, artifact); !s.ok())
      return s;

    if (int64_t maxnreg = knobs.at("maxnreg"))
      module.walk([&](LLVM::LLVMFuncOp func) {
        if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
          func->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                        IntegerAttr::get(IntegerType::get(func.getContext(), 32), maxnreg));
      });
    std::string llvmIR;
    if (absl::Status s = emitPtx(module, arch, libdevice, &llvmIR, &artifact.ptx); !s.ok())
      return s;
    if (request.artifact == "llvm")
      return llvmIR;
    if (request.artifact == "ptx")
      return artifact.ptx;
    if (!toolkit->empty()) {
      absl::StatusOr<std::string> cubin = assembleCubin(*toolkit, artifact.ptx, arch);
      if (!cubin.ok())
        return cubin.status();
      artifact.cubin = *cubin;
    } else if (request.artifact == "cubin") {
      return absl::FailedPreconditionError(
          "a cubin needs a CUDA toolkit's ptxas (none found; --cuda-toolkit=PATH)");
    }
    if (request.artifact == "cubin")
      return artifact.cubin;
    return writeGpuArtifact(artifact, request.outputPath);
  }
};

} // namespace

const Backend &cudaBackend() {
  static const CudaBackendImpl backend;
  return backend;
}

} // namespace tessel
