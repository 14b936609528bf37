//===- CpuBackend.cpp - the cpu backend: knobs, pipeline, artifacts -*- C++ -*-===//

#include "compiler/backend/cpu/CpuBackend.h"
#include "compiler/backend/cpu/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tessel {
namespace {

class CpuBackendImpl : public Backend {
public:
  TargetKind kind() const override { return TargetKind::Cpu; }

  const std::vector<KnobInfo> &knobs() const override {
    static const std::vector<KnobInfo> knobs = {
        {"tile_m", 0, 16, {}, 4,
         "matmul register tile rows (0: plain loops that LLVM vectorizes)"},
        {"tile_n", 1, 128, {}, 64,
         "matmul register tile columns, in vector elements (default: 64 on CPUs with AVX-512, "
         "16 on the others, whose 16 vector registers hold 4 rows of 16 f32)"},
        {"tile_k", 1, 4, {}, 1, "matmul register tile reduction depth"},
        {"vector_width", 0, 64, {}, 0,
         "elementwise ops: vector width in elements (0: LLVM's loop vectorizer)"},
        {"unroll", 1, 8, {}, 1, "elementwise ops: rows per vector step"},
        {"prefetch", 0, 8, {}, 0,
         "prefetch the blocks of the program this many ids ahead (0: none)"},
    };
    return knobs;
  }

  const std::vector<ArtifactKind> &artifactKinds() const override {
    static const std::vector<ArtifactKind> kinds = {
        {"llvm", "optimized LLVM IR", false},
        {"asm", "assembly", false},
        {"obj", "an object file", false},
        {"so", "the shared object (written to -o)", true},
        {"artifact", "what the runtime loads: the shared object", true},
    };
    return kinds;
  }

  absl::Status validateTarget(const Target &target) const override {
    if (target.kind != TargetKind::Cpu)
      return absl::InvalidArgumentError("the cpu backend cannot build for " + target.str());
    if (!cpuTargetIsKnown(toCpuTarget(target)))
      return absl::InvalidArgumentError("'" + target.cpu +
                                        "' is not a CPU LLVM knows (znver4, sapphirerapids, "
                                        "x86-64-v3, ...)");
    return absl::OkStatus();
  }

  Target describeTarget(const Target &target) const override {
    Target described = Target::Host();
    if (!target.cpu.empty()) {
      described.cpu = target.cpu;
      described.features = cpuinfoFeatures(toCpuTarget(target));
    }
    return described;
  }

  absl::StatusOr<std::string> emit(ModuleOp module, const EmitRequest &request) const override {
    const Target &target = request.target;
    const KnobMap &knobMap = request.knobs;
    const std::string &artifact = request.artifact, &outputPath = request.outputPath;
    absl::StatusOr<ArtifactKind> kind = findArtifactKind(artifact);
    if (!kind.ok())
      return kind.status();
    KnobMap all = withDefaults(knobMap);
    CpuKnobs knobs;
    knobs.matmulTileM = all.at("tile_m");
    knobs.matmulTileN = all.at("tile_n");
    CpuTarget cpu = toCpuTarget(target);
    const bool avx512 = cpuTargetHasFeature(cpu, "avx512f");
    // Measured (matmul f32 1024^3, blocks 64x64x32, one core of a Xeon): on x86-64-v3 code a
    // 4 x 16 tile runs in 15.2 ms against 24.2 ms for 4 x 64, whose 32 accumulators spill 16
    // ymm registers; with AVX-512, 4 x 64 is the fastest (11.2 ms, 4 x 16: 13.7 ms).
    if (!knobMap.count("tile_n") && !avx512)
      knobs.matmulTileN = 16;
    knobs.matmulTileK = all.at("tile_k");
    knobs.vectorWidth = all.at("vector_width");
    knobs.unroll = all.at("unroll");
    knobs.prefetch = all.at("prefetch");

    PassManager pm(module.getContext(), ModuleOp::getOperationName());
    std::string error;
    llvm::raw_string_ostream os(error);
    // What the target CPU converts in hardware stays a conversion; the rest is expanded (no
    // x86 instruction narrows an f64 to a 16-bit float short of AVX512-FP16).
    SixteenBitExpansion sixteenBit;
    sixteenBit.f16 = !cpuTargetHasFeature(cpu, "f16c");
    sixteenBit.bf16 = !cpuTargetHasFeature(cpu, "avx512bf16");
    sixteenBit.fromF64 = true;
    if (failed(parsePassPipeline(
            cpuPipeline(knobs, /*fastExp=*/avx512, sixteenBit), pm, os)))
      return absl::InternalError("bad CPU pipeline: " + error);
    if (failed(pm.run(module)))
      return absl::InvalidArgumentError("the CPU backend failed");

    CpuEmitKind emitKind = artifact == "llvm"  ? CpuEmitKind::LLVMIR
                           : artifact == "asm" ? CpuEmitKind::Assembly
                                               : CpuEmitKind::Object;
    absl::StatusOr<std::string> code = emitCpuCode(module, cpu, emitKind);
    if (!code.ok() || !kind->writesFile)
      return code;
    if (outputPath.empty())
      return absl::InvalidArgumentError("a shared object needs an output path");
    if (absl::Status s = linkSharedObject(*code, outputPath); !s.ok())
      return s;
    return outputPath;
  }
};

} // namespace

const Backend &cpuBackend() {
  static const CpuBackendImpl backend;
  return backend;
}

} // namespace tessel
