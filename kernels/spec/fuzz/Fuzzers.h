//===- Fuzzers.h - fuzz entries of kernel specs -*- C++ -*-===//

#ifndef TESSEL_KERNELS_SPEC_FUZZ_FUZZERS_H
#define TESSEL_KERNELS_SPEC_FUZZ_FUZZERS_H

#include <string>
#include <vector>

namespace tessel::fuzz {

/// The input is a kernel spec (TOML) for examples/rms_norm/rms_norm.py.
bool FuzzSpec(const std::string &bytes);
std::vector<std::string> SpecSeeds();

} // namespace tessel::fuzz

#endif // TESSEL_KERNELS_SPEC_FUZZ_FUZZERS_H
