//===- MathKernelReference.h - what math_kernel (frontend_kernels.py) must compute -*- C++ -*-===//
//
// math_kernel stores 20 results per element for x in (-1, 1) and y in (1, 4); the CPU test
// (py_e2e_test) and the GPU test (gpu_e2e_test) check them against the C library in double.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_TEST_MATHKERNELREFERENCE_H
#define TESSEL_COMPILER_FRONTEND_TEST_MATHKERNELREFERENCE_H

#include <cmath>

namespace tessel::test {

inline constexpr int kMathResults = 20;

inline const char *const kMathNames[kMathResults] = {
    "asin",  "acos",  "atan", "atan2", "sinh", "cosh",     "tan",   "asinh", "acosh",       "atanh",
    "cbrt",  "trunc", "roundf", "rint", "log10", "copysign", "hypot", "asinf", "hypot(1e30)", "hypot(1e-30)"};

/// The results for inputs `a` (x) and `b` (y), in math_kernel's order.
inline void mathReference(double a, double b, double want[kMathResults]) {
  const double w[kMathResults] = {
      std::asin(a),  std::acos(a),  std::atan(b),  std::atan2(a, -b), std::sinh(b),
      std::cosh(a),  std::tan(a),   std::asinh(b), std::acosh(b),     std::atanh(a),
      std::cbrt(float(a * 5)),      std::trunc(float(b * -2.5)),      std::round(float(a * 3)),
      std::nearbyint(float(b * 2)), std::log10(b), std::copysign(b, a), std::hypot(a, b),
      std::asin(a), std::hypot(a * 1e30, b * 1e30), std::hypot(a * 1e-30, b * 1e-30)};
  for (int j = 0; j < kMathResults; ++j)
    want[j] = w[j];
}

/// How far result `j` may be from `want`: rounding is exact; the rest within a few float ulps
/// of the double result (relative near 1e-30).
inline double mathTolerance(int j, double want) {
  if (j >= 11 && j <= 13)
    return 0;
  return j == 19 ? 4e-6 * std::fabs(want) : 4e-6 * (1 + std::fabs(want));
}

} // namespace tessel::test

#endif // TESSEL_COMPILER_FRONTEND_TEST_MATHKERNELREFERENCE_H
