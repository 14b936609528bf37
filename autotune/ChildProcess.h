//===- ChildProcess.h - runs a tool in a child process with a timeout -*- C++ -*-===//
//
// The sweep runs what may crash, hang or abort the process away from itself: tessel-bench
// measuring a candidate (an illegal address poisons a CUDA context; a hung kernel dies only
// with its process), and tessel-compile building a GPU candidate (LLVM aborts the process on
// some errors). The child dies with the sweep; its stdout and stderr are collected.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_CHILDPROCESS_H
#define TESSEL_AUTOTUNE_CHILDPROCESS_H

#include "absl/status/statusor.h"

#include <string>
#include <vector>

namespace tessel::autotune {

struct ChildResult {
  bool timedOut = false;
  int signal = 0;   ///< the signal that ended it, or 0
  int exitCode = 0; ///< its exit status when it exited
  std::string output; ///< stdout and stderr, interleaved
};

/// Runs `args` (args[0] the executable's path) and waits at most `timeoutSeconds` (then kills
/// it). An error only when it could not be started.
absl::StatusOr<ChildResult> RunChild(std::vector<std::string> args, double timeoutSeconds);

/// The last `maxBytes` of `output`, with "..." where it was cut.
std::string OutputTail(const std::string &output, size_t maxBytes = 2000);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_CHILDPROCESS_H
