//===- Fp8Lowering.h - the passes that take 8-bit floats to integers -*- C++ -*-===//

#ifndef TESSEL_COMPILER_CONVERSION_FP8_FP8LOWERING_H
#define TESSEL_COMPILER_CONVERSION_FP8_FP8LOWERING_H

namespace tessel {

/// Arithmetic on 8-bit floats as f32 arithmetic between conversions, then the conversions as
/// integer arithmetic (tessel-expand-fp8): a pass-pipeline fragment for a backend, before its
/// conversion to LLVM (which stores the 8-bit floats as i8).
inline const char *fp8Lowering() {
  return "arith-emulate-unsupported-floats{source-types=f8E5M2,f8E4M3FN,f8E5M2FNUZ,f8E4M3FNUZ "
         "target-type=f32},tessel-expand-fp8";
}

} // namespace tessel

#endif // TESSEL_COMPILER_CONVERSION_FP8_FP8LOWERING_H
