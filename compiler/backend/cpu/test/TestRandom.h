//===- TestRandom.h - fresh, replayable randomness for the CPU tests -*- C++ -*-===//

#ifndef TESSEL_COMPILER_BACKEND_CPU_TEST_TESTRANDOM_H
#define TESSEL_COMPILER_BACKEND_CPU_TEST_TESTRANDOM_H

#include <cstdio>
#include <random>

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

} // namespace tessel::test

#endif
