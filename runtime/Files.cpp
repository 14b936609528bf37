//===- Files.cpp - whole-file reads shared by the runtime and the autotuner -*- C++ -*-===//

#include "runtime/Files.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

bool tessel::runtime::ReadWholeFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream s;
  s << in.rdbuf();
  if (in.bad())
    return false;
  out = s.str();
  return true;
}

absl::Status tessel::runtime::WriteFileAtomically(const std::string &path,
                                                  const std::string &contents) {
  static std::atomic<unsigned long> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << contents;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::PermissionDeniedError("cannot write " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError("cannot rename " + tmp + " to " + path + ": " + why);
  }
  return absl::OkStatus();
}
