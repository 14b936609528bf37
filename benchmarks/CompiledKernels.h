//===- CompiledKernels.h - kernels compiled once per benchmark process -*- C++ -*-===//

#ifndef TESSEL_BENCHMARKS_COMPILEDKERNELS_H
#define TESSEL_BENCHMARKS_COMPILEDKERNELS_H

#include "compiler/backend/Backend.h"
#include "runtime/Device.h"

#include <string>

namespace tessel::bench {

/// The process-wide cpu device the benchmarks load and launch kernels on.
runtime::Device &CpuDevice();

/// The kernel `entry` of the TTIR file at `path` compiled with `knobs`, loaded once per
/// process and configuration. Exits with the compiler's message if it does not compile.
const runtime::Kernel &CompiledKernel(const std::string &path, const std::string &entry,
                                      const KnobMap &knobs = {});

} // namespace tessel::bench

#endif // TESSEL_BENCHMARKS_COMPILEDKERNELS_H
