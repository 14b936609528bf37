//===- Files.cpp - whole-file reads shared by the runtime and the autotuner -*- C++ -*-===//

#include "runtime/Files.h"

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
