//===- HalfFloats.h - reference conversions between f32 and f16 / bf16 for the CPU tests -*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_TEST_HALFFLOATS_H
#define TESSEL_COMPILER_BACKEND_CPU_TEST_HALFFLOATS_H

#include <cstdint>
#include <cstring>

namespace tessel::test {

/// IEEE half <-> float (round to nearest even), for f16 kernels.
inline uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, mant = x & 0x7fffff;
  if (exp == 0xff)
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  int e = int(exp) - 127 + 15;
  if (e >= 31)
    return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10)
      return sign;
    mant |= 0x800000;
    uint32_t shift = 14 - e;
    uint32_t half = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (e << 10) | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half;
  return half;
}

inline float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        mant <<= 1;
        ++e;
      } while (!(mant & 0x400));
      x = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000 | mant << 13;
  } else {
    x = sign | (exp - 15 + 127) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// bfloat16 <-> float (round to nearest even).
inline uint16_t toBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t(x >> 16) | 0x40;
  x += 0x7fff + ((x >> 16) & 1);
  return uint16_t(x >> 16);
}

inline float fromBf16(uint16_t h) {
  uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

} // namespace tessel::test

#endif
