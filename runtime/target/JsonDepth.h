//===- JsonDepth.h - refuse JSON nested deeper than tessel ever writes -*- C++ -*-===//
//
// nlohmann::json parses any depth, but copying, comparing and printing a value recurse once per
// level: 100,000 nested brackets in a record, a manifest or a config crash the reader. Every
// file or argument a user gives is checked with this before it is parsed.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_TARGET_JSONDEPTH_H
#define TESSEL_RUNTIME_TARGET_JSONDEPTH_H

#include <string>

namespace tessel {

/// Deeper than anything tessel writes (records and manifests nest 4 levels).
inline constexpr int kMaxJsonDepth = 64;

/// "" when `text`'s arrays and objects nest at most `maxDepth` levels (strings skipped), else a
/// message saying how deep it is nested.
inline std::string JsonNestingProblem(const std::string &text, int maxDepth = kMaxJsonDepth) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return "JSON nested more than " + std::to_string(maxDepth) + " levels deep";
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return "";
}

} // namespace tessel

#endif // TESSEL_RUNTIME_TARGET_JSONDEPTH_H
