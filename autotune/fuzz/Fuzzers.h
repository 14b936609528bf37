//===- Fuzzers.h - fuzz entries of the autotuner's parsers -*- C++ -*-===//
//
// Record lines, configurations (validated against every zoo kernel's spaces) and Google
// Benchmark JSON: each entry reads its input or refuses it and returns whether it was accepted;
// what is accepted reads back the same (tools/fuzz/Fuzz.h's Check). Driven by
// autotune/test/records_fuzz_test under gcc and built as libFuzzer binaries by
// tools/build_fuzzers.sh.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_FUZZ_FUZZERS_H
#define TESSEL_AUTOTUNE_FUZZ_FUZZERS_H

#include <string>
#include <vector>

namespace tessel::fuzz {

bool FuzzRecordLine(const std::string &bytes);
std::vector<std::string> RecordLineSeeds();

bool FuzzConfiguration(const std::string &bytes);
std::vector<std::string> ConfigurationSeeds();

/// The input is a Google Benchmark JSON file, compared with itself.
bool FuzzBenchmarkJson(const std::string &bytes);
std::vector<std::string> BenchmarkJsonSeeds();

} // namespace tessel::fuzz

#endif // TESSEL_AUTOTUNE_FUZZ_FUZZERS_H
