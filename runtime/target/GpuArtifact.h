//===- GpuArtifact.h - the one file a GPU kernel ships as -*- C++ -*-===//
//
// What the cuda and rocm backends emit as `--emit artifact` and the cuda and hip devices load:
// a JSON object holding the code (cuda: the PTX, the cubin when one was built; rocm: the hsaco
// code object), binaries base64, the target chip, the PTX version (cuda) and per kernel its
// launch metadata (symbol, runtime signature, block size, dynamic shared memory). The bundle
// names it and its sha256 covers all of it. A leaf shared by the compiler (writer) and the
// runtime (reader), like Target.
//
//   {"format": "tessel-gpu-artifact", "version": 1, "target": "cuda:sm_90", "arch": "sm_90",
//    "ptx_version": "7.8", "ptx": "...", "cubin": "<base64>",
//    "kernels": [{"name": "k", "signature": "ptr:f32,i32", "block": [128, 1, 1],
//                 "shared_bytes": 0, "divisibility": [16, 1],
//                 "tensor_maps": [{"pointer": 0, "pitch_argument": 3, "element_bytes": 2,
//                                  "box": [128, 64], "swizzle": 128}]}]}
//   {"format": "tessel-gpu-artifact", "version": 1, "target": "rocm:gfx942", "arch": "gfx942",
//    "hsaco": "<base64>", "kernels": [{..., "block": [256, 1, 1], "lds_bytes": 4096}]}
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_TARGET_GPUARTIFACT_H
#define TESSEL_RUNTIME_TARGET_GPUARTIFACT_H

#include "absl/status/statusor.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tessel {

/// A TMA tensor map (sm_90+) the launch makes for the kernel: a 2-D view of the memory an
/// argument points at, rows `pitch` elements apart, read in boxes of `box` elements (rows,
/// columns) stored swizzled in shared memory as the tensor cores read them. Its column
/// dimension is the pitch and its rows are unbounded: the kernel reads through it only boxes
/// its masks say are in bounds (no zero fill), others the way it would without it.
struct GpuTensorMap {
  int32_t pointer = 0;        ///< the pointer argument (its index): the first element
  int32_t pitchArgument = -1; ///< the integer argument holding the pitch; -1: `pitch`
  int64_t pitch = 0;          ///< the pitch in elements, where no argument holds it
  int32_t elementBytes = 2;   ///< 1, 2, 4 or 8
  std::array<int32_t, 2> box = {1, 1}; ///< rows, columns (1..256; a row whole 16-byte chunks)
  int32_t swizzle = 0;        ///< bytes: 0, 32, 64 or 128 (a box row at most that)
};

struct GpuKernelInfo {
  std::string name;      ///< the symbol
  std::string signature; ///< "ptr:f32,ptr:f32,i32" (the runtime's form)
  std::array<int32_t, 3> block = {1, 1, 1};
  int64_t sharedBytes = 0; ///< dynamic shared memory per block
  /// What the code assumes each argument divisible by (Triton's tt.divisibility, the
  /// signature's ":16"): a pointer's address, an integer's value; one per argument, powers of
  /// two (1: nothing); empty: no assumptions. The device refuses a launch that breaks one.
  std::vector<int64_t> divisibility;
  /// rocm: the LDS the compiler planned for one workgroup (all static: the code object's
  /// group_segment_fixed_size); 0 for cuda, whose dynamic part is sharedBytes.
  int64_t ldsBytes = 0;
  /// Persistent blocks: 0, one block a program (the grid launched as it is); N > 0, at most N
  /// blocks an SM, each running programs b, b + blocks, ... of the grid, whose sizes go to the
  /// kernel as three i32 arguments after the signature's.
  int64_t persistent = 0;
  /// TMA tensor maps: each goes to the kernel as a 128-byte parameter after the signature's,
  /// then one i32 whose bit i says whether map i could be made (the address 16-byte aligned,
  /// the pitch a positive multiple of 16 bytes); then the persistent grid's sizes.
  std::vector<GpuTensorMap> tensorMaps;
};

struct GpuArtifact {
  std::string arch;       ///< sm_80 ... sm_90a (cuda), gfx90a, gfx942, gfx1100 (rocm)
  std::string ptxVersion; ///< "7.8"; empty for rocm
  std::string ptx;        ///< empty for rocm
  std::string cubin;      ///< the binary for `arch`; empty when no toolkit built one
  std::string hsaco;      ///< rocm: the code object (an AMDGPU ELF shared object)
  std::vector<GpuKernelInfo> kernels;
  std::string buildInfo; ///< what it was compiled from (JSON text); empty: not recorded
};

/// The artifact's file contents.
std::string SerializeGpuArtifact(const GpuArtifact &artifact);
/// Parses and checks an artifact file; errors say what is wrong (never a crash).
absl::StatusOr<GpuArtifact> ParseGpuArtifact(const std::string &text);

/// The PTX ISA version tessel emits for a CUDA chip ("7.0" for sm_80 ... "8.0" for sm_90a), or
/// an error for a chip it does not build for.
absl::StatusOr<std::string> PtxVersionFor(const std::string &arch);

/// The most shared memory one block of `arch` may use (static and dynamic together, with the
/// dynamic part raised by cuFuncSetAttribute), or an error for a chip tessel does not build for.
absl::StatusOr<int64_t> MaxSharedBytesPerBlock(const std::string &arch);

/// Whether `arch` names an AMD chip (gfx...): a rocm artifact.
bool IsRocmArch(const std::string &arch);

/// What tessel knows of an AMD chip it builds for (the LLVM AMDGPU processor table and AMD's
/// ISA documents).
struct RocmChip {
  const char *arch;
  int waveSize;         ///< lanes of a wavefront: 64 on CDNA, 32 on RDNA (its default)
  int64_t maxLdsBytes;  ///< LDS one workgroup may use
  bool mfma;            ///< CDNA matrix cores (v_mfma_*)
  bool wmma;            ///< RDNA3 matrix cores (v_wmma_*)
  int maxVgprs;         ///< VGPRs (with AGPRs on CDNA) one lane may use
  int maxSgprs;         ///< SGPRs one wavefront may address
};

/// The chip named `arch`, or an error naming those tessel builds for.
absl::StatusOr<RocmChip> RocmChipFor(const std::string &arch);

} // namespace tessel

#endif // TESSEL_RUNTIME_TARGET_GPUARTIFACT_H
