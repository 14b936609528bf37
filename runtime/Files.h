//===- Files.h - whole-file reads shared by the runtime and the autotuner -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_FILES_H
#define TESSEL_RUNTIME_FILES_H

#include "absl/status/status.h"

#include <string>

namespace tessel::runtime {

/// Reads all of `path` (binary) into `out`; false if it cannot be opened or read.
bool ReadWholeFile(const std::string &path, std::string &out);

/// Writes `contents` to `path` through a temporary file in the same directory, unique to this
/// process and call, renamed over `path`: readers see the old file or the new one, never a
/// part, and concurrent writers (threads or processes) do not share a temporary.
absl::Status WriteFileAtomically(const std::string &path, const std::string &contents);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_FILES_H
