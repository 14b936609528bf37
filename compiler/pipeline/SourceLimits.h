//===- SourceLimits.h - refuse IR nested deeper than the parser can recurse -*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, type or attribute: a few thousand nested
// regions overflow the stack (TTIR with ~4,000 crashed tessel-opt). Text is scanned for its
// bracket nesting first and refused, with the line and column, beyond a bound real kernels
// never approach.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_PIPELINE_SOURCELIMITS_H
#define TESSEL_COMPILER_PIPELINE_SOURCELIMITS_H

#include <string>

namespace tessel {

/// Deeper than any kernel nests its regions, types and attributes together.
inline constexpr int kMaxIrNesting = 512;

/// "" when `text` nests { ( [ < at most `maxDepth` deep (string literals and // comments
/// skipped; the ">" of "->" is not a bracket), else "LINE:COL: ..." at the first bracket
/// beyond it.
inline std::string IrNestingProblem(const std::string &text, int maxDepth = kMaxIrNesting) {
  int depth = 0, line = 1, column = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    } else if (c == '"') { // a string literal, escapes included
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line, column = 0;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > maxDepth)
        return std::to_string(line) + ":" + std::to_string(column) +
               ": nested more than " + std::to_string(maxDepth) +
               " levels deep (regions, types and attributes together); tessel refuses it "
               "rather than overflow the parser's stack";
    } else if (c == '}' || c == ')' || c == ']' ||
               (c == '>' && !(i > 0 && text[i - 1] == '-'))) {
      depth = depth > 0 ? depth - 1 : 0;
    }
  }
  return "";
}

} // namespace tessel

#endif // TESSEL_COMPILER_PIPELINE_SOURCELIMITS_H
