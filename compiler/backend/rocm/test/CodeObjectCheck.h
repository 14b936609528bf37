//===- CodeObjectCheck.h - what a rocm artifact's code object says of itself -*- C++ -*-===//
//
// The hsaco's AMDGPU metadata note, read by LLVM 22's llvm-readelf --notes (what a user would
// run), checked against the artifact's launch metadata and the chip's limits; and its
// disassembly (llvm-objdump). For the tests: no AMD GPU is needed to read them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_ROCM_TEST_CODEOBJECTCHECK_H
#define TESSEL_COMPILER_BACKEND_ROCM_TEST_CODEOBJECTCHECK_H

#include "runtime/target/GpuArtifact.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::rocm_test {

/// One kernel of the metadata note (amdhsa.kernels).
struct KernelNotes {
  std::string name, symbol;
  int64_t kernargSegmentSize = -1, groupSegmentFixedSize = -1, privateSegmentFixedSize = -1;
  int64_t vgprCount = -1, agprCount = 0, sgprCount = -1, wavefrontSize = -1;
};

struct CodeObjectNotes {
  std::string target; ///< amdhsa.target: "amdgcn-amd-amdhsa--gfx942"
  std::vector<KernelNotes> kernels;
};

/// The notes of the code object `hsaco` (its bytes).
absl::StatusOr<CodeObjectNotes> ReadNotes(const std::string &hsaco);

/// The disassembly of `hsaco` (llvm-objdump -d).
absl::StatusOr<std::string> Disassemble(const std::string &hsaco);

/// The bytes of the explicit kernel arguments of a runtime signature ("ptr:f32,i32,..."):
/// each argument at its natural alignment (pointers 8 bytes).
int64_t KernargBytes(const std::string &signature);

/// What is wrong with `artifact`'s code object (empty: nothing): for each kernel of the launch
/// metadata, a note of that name with symbol NAME.kd, the kernarg segment of its signature,
/// the LDS the compiler planned (lds_bytes) as group_segment_fixed_size, no dynamic LDS at
/// launch, VGPRs and SGPRs within the chip's limits, the chip's wavefront size; the target the
/// chip.
std::vector<std::string> CheckCodeObject(const GpuArtifact &artifact);

} // namespace tessel::rocm_test

#endif // TESSEL_COMPILER_BACKEND_ROCM_TEST_CODEOBJECTCHECK_H
