//===- Merge.cpp - bazel run //autotune:merge -- OUT IN... : combine record files -*- C++ -*-===//
//
// Writes OUT (atomically) with every record of the inputs, one per candidate key (the first
// seen): the records of N shards (--shard=I/N) become one file, as if one machine had swept.
//
//===----------------------------------------------------------------------===//

#include "autotune/Records.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: merge OUT.jsonl IN.jsonl...\n");
    return 2;
  }
  std::vector<std::string> inputs(argv + 2, argv + argc);
  absl::Status s = tessel::autotune::MergeRecords(inputs, argv[1]);
  if (!s.ok()) {
    std::fprintf(stderr, "merge: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  auto merged = tessel::autotune::ReadRecords(argv[1]);
  std::printf("merge: %zu records from %zu files into %s\n", merged.ok() ? merged->size() : 0,
              inputs.size(), argv[1]);
  return 0;
}
