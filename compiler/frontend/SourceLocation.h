//===- SourceLocation.h - positions in a kernel source and their errors -*- C++ -*-===//
//
// Frontend errors carry file:line:col and the source line with a caret under the column, as
// ARCHITECTURE.md asks.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_SOURCELOCATION_H
#define TESSEL_COMPILER_FRONTEND_SOURCELOCATION_H

#include <string>

namespace tessel::frontend {

/// 1-based line and column in a source file.
struct SourceLocation {
  int line = 1;
  int column = 1;
};

/// A kernel source: its name (for messages) and text.
class SourceFile {
public:
  SourceFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {}
  const std::string &name() const { return name_; }
  const std::string &text() const { return text_; }

  /// The text of line `line` (1-based) without its newline; empty past the end.
  std::string lineText(int line) const;

  /// "file:line:col: error: message\n<line>\n<caret>" for `loc`.
  std::string formatError(SourceLocation loc, const std::string &message) const;

private:
  std::string name_, text_;
};

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_SOURCELOCATION_H
