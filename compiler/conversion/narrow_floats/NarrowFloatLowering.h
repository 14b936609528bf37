//===- NarrowFloatLowering.h - the passes that take narrow floats to integers -*- C++ -*-===//

#ifndef TESSEL_COMPILER_CONVERSION_NARROW_FLOATS_NARROWFLOATLOWERING_H
#define TESSEL_COMPILER_CONVERSION_NARROW_FLOATS_NARROWFLOATLOWERING_H

#include <string>

namespace tessel {

/// The 16-bit float conversions a backend's target has no instructions for (LLVM would call
/// compiler-rt for them), to be expanded into integer arithmetic like the 8-bit ones.
struct SixteenBitExpansion {
  bool f16 = false;     ///< f32 <-> f16, and f16 arithmetic done in f32
  bool bf16 = false;    ///< f32 <-> bf16, and bf16 arithmetic done in f32
  bool fromF64 = false; ///< f64 -> f16 and f64 -> bf16
};

/// Arithmetic on 8-bit floats (and on the 16-bit ones `expand` selects) as f32 arithmetic
/// between conversions, then those conversions as integer arithmetic
/// (tessel-expand-narrow-floats): a pass-pipeline fragment for a backend, before its
/// conversion to LLVM (which stores the 8-bit floats as i8).
inline std::string narrowFloatLowering(const SixteenBitExpansion &expand = {}) {
  std::string types = "f8E5M2,f8E4M3FN,f8E5M2FNUZ,f8E4M3FNUZ";
  if (expand.f16)
    types += ",f16";
  if (expand.bf16)
    types += ",bf16";
  auto flag = [](bool b) { return b ? "true" : "false"; };
  return "arith-emulate-unsupported-floats{source-types=" + types +
         " target-type=f32},tessel-expand-narrow-floats{f16=" + flag(expand.f16) +
         " bf16=" + flag(expand.bf16) + " from-f64=" + flag(expand.fromF64) + "}";
}

} // namespace tessel

#endif // TESSEL_COMPILER_CONVERSION_NARROW_FLOATS_NARROWFLOATLOWERING_H
