//===- Files.h - whole-file reads shared by the runtime and the autotuner -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_FILES_H
#define TESSEL_RUNTIME_FILES_H

#include <string>

namespace tessel::runtime {

/// Reads all of `path` (binary) into `out`; false if it cannot be opened or read.
bool ReadWholeFile(const std::string &path, std::string &out);

} // namespace tessel::runtime

#endif // TESSEL_RUNTIME_FILES_H
