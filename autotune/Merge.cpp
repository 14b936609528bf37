//===- Merge.cpp - bazel run //autotune:merge -- OUT IN... : combine record files -*- C++ -*-===//
//
// Writes OUT (atomically) with every record of the inputs, one per candidate key (the first
// seen): the records of N shards (--shard=I/N) become one file, as if one machine had swept.
//
//===----------------------------------------------------------------------===//

#include "autotune/Records.h"

#include <cstdio>
#include <optional>

#include "tools/cli/Cli.h"

int main(int argc, char **argv) {
  std::string out;
  std::vector<std::string> inputs;
  tessel::cli::Command c("merge", "Combines record files (a sweep's shards) into one, one record "
                                  "per candidate (the first seen).");
  c.Positional("OUT.jsonl", &out, "The file to write");
  c.Positionals("IN.jsonl", &inputs, "The record files to read");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  if (inputs.empty())
    return c.UsageError("no input record files");
  absl::Status s = tessel::autotune::MergeRecords(inputs, out);
  if (!s.ok()) {
    std::fprintf(stderr, "merge: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  auto merged = tessel::autotune::ReadRecords(out);
  std::printf("merge: %zu records from %zu files into %s\n", merged.ok() ? merged->size() : 0,
              inputs.size(), out.c_str());
  return 0;
}
