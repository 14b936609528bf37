//===- SourceLocation.cpp - positions in a kernel source and their errors -*- C++ -*-===//

#include "compiler/frontend/SourceLocation.h"

namespace tessel::frontend {

std::string SourceFile::lineText(int line) const {
  size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = text_.find('\n', start);
    if (start == std::string::npos)
      return "";
    ++start;
  }
  size_t end = text_.find('\n', start);
  std::string out = text_.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!out.empty() && out.back() == '\r')
    out.pop_back();
  return out;
}

std::string SourceFile::formatError(SourceLocation loc, const std::string &message) const {
  std::string line = lineText(loc.line);
  std::string caret;
  for (int c = 1; c < loc.column && c <= static_cast<int>(line.size()); ++c)
    caret += line[c - 1] == '\t' ? '\t' : ' ';
  return name_ + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) +
         ": error: " + message + "\n" + line + "\n" + caret + "^";
}

} // namespace tessel::frontend
