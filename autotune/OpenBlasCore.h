//===- OpenBlasCore.h - make OpenBLAS use its AVX-512 kernels where it misdetects the CPU -*- C++ -*-===//
//
// Debian's OpenBLAS (0.3.21, DYNAMIC_ARCH) picks its kernels by CPU model when it loads; CPUs
// newer than it knows (this VM's Xeon, model 207) fall back to a generic kernel at about a
// quarter of the speed. OPENBLAS_CORETYPE overrides the choice, but is read when the library
// loads, before main: a baseline binary that finds it unset on a CPU with AVX-512 sets it to
// SkylakeX (the AVX-512 kernels every such CPU runs) and executes itself again.
//
//===----------------------------------------------------------------------===//
#ifndef TESSEL_AUTOTUNE_OPENBLASCORE_H
#define TESSEL_AUTOTUNE_OPENBLASCORE_H

#include <cstdlib>
#include <unistd.h>

namespace tessel::autotune {

/// Call first in main; returns only when nothing had to change (or re-executing failed).
inline void UseOpenBlasAvx512Kernels(char **argv) {
#if defined(__x86_64__)
  if (std::getenv("OPENBLAS_CORETYPE") || !__builtin_cpu_supports("avx512f"))
    return;
  setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
  execv("/proc/self/exe", argv);
#else
  (void)argv;
#endif
}

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_OPENBLASCORE_H
