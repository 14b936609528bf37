//===- TestRandom.h - fresh, replayable randomness for the CPU tests -*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_TEST_TESTRANDOM_H
#define TESSEL_COMPILER_BACKEND_CPU_TEST_TESTRANDOM_H

#include <cstdio>
#include <random>
#include <vector>

namespace tessel::test {

/// Fresh randomness every run; the seed is printed so a failure can be replayed.
inline std::mt19937 &rng() {
  static std::mt19937 gen([] {
    unsigned seed = std::random_device{}();
    std::printf("random seed %u\n", seed);
    return seed;
  }());
  return gen;
}

/// `n` floats drawn uniformly from [lo, hi).
inline std::vector<float> randomFloats(size_t n, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng());
  return v;
}

} // namespace tessel::test

#endif
