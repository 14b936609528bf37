//===- Files.h - whole-file reads shared by the runtime and the autotuner -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_FILES_H
#define TESSEL_RUNTIME_FILES_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <string>

namespace tessel::runtime {

/// The largest file read whole unless the caller gives another bound (1 GiB).
inline constexpr int64_t kMaxReadBytes = int64_t(1) << 30;

/// Reads all of `path` (binary) into `out` as ReadRegularFile does; false if it cannot be
/// opened or read, is not a regular file or is larger than kMaxReadBytes.
bool ReadWholeFile(const std::string &path, std::string &out);

/// Reads all of `path` if it is a regular file (symlinks to one are followed) of at most
/// `maxBytes`; a FIFO, device or directory is an error, and opening never blocks.
absl::StatusOr<std::string> ReadRegularFile(const std::string &path,
                                            int64_t maxBytes = kMaxReadBytes);

/// Reads all of `dir`/`relative` if every component of `relative` is a real directory or,
/// last, a regular file of at most `maxBytes` under `dir` — no symlink anywhere, no "..",
/// nothing that blocks — else an error saying it is not a regular file inside `dir` (or is
/// too large).
absl::StatusOr<std::string> ReadRegularFileBeneath(const std::string &dir,
                                                   const std::string &relative,
                                                   int64_t maxBytes = kMaxReadBytes);

/// Writes all of `bytes` to the open file `fd` (retrying short writes and interrupts); on
/// failure the errno value, else 0.
int WriteAll(int fd, const std::string &bytes);

/// Writes `contents` to `path` through a temporary file in the same directory, unique to this
/// process and call, renamed over `path`: readers see the old file or the new one, never a
/// part, and concurrent writers (threads or processes) do not share a temporary.
absl::Status WriteFileAtomically(const std::string &path, const std::string &contents);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_FILES_H
