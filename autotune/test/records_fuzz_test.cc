//===- records_fuzz_test.cc - the autotuner's parsers on mutated input -*- C++ -*-===//
//
// Record lines, configurations (against every zoo kernel's spaces) and Google Benchmark JSON,
// each entry of autotune/fuzz/ from its seeds and their mutations (tools/fuzz/Fuzz.h): read or
// refused, never a crash or an escaping exception; what is accepted reads back the same.
//
//===----------------------------------------------------------------------===//

#include "autotune/fuzz/Fuzzers.h"
#include "tools/fuzz/Fuzz.h"

#include "gtest/gtest.h"

namespace {

using namespace tessel::fuzz;

TEST(Fuzz, Records) { RunEntry("records", RecordLineSeeds(), FuzzRecordLine); }

TEST(Fuzz, Configurations) {
  RunEntry("configurations", ConfigurationSeeds(), FuzzConfiguration);
}

TEST(Fuzz, GoogleBenchmarkJson) {
  RunEntry("google-benchmark-json", BenchmarkJsonSeeds(), FuzzBenchmarkJson);
}

} // namespace
