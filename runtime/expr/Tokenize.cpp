//===- Tokenize.cpp - Python's tokens for tessel's small evaluator -===//

#include "runtime/expr/Internal.h"
#include "runtime/expr/Syntax.h"

#include "absl/strings/str_cat.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tessel::expr {

std::string Loc::Text() const { return absl::StrCat(file, ":", line, ":", col); }

namespace {

using internal::Error;

const char *const kOperators[] = {"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//",
                                  "==",  "!=",  "<=",  ">=",  "<<",  ">>", "+=", "-=", "*=",
                                  "/=",  "%=",  "&=",  "|=",  "^=",  "@=", "+",  "-",  "*",
                                  "/",   "%",   "@",   "<",   ">",   "=",  "(",  ")",  "[",
                                  "]",   "{",   "}",   ",",   ":",   ".",  ";",  "&",  "|",
                                  "^",   "~",   "!"};

} // namespace

absl::StatusOr<std::vector<Token>> Tokenize(const std::string &src, const std::string &file,
                                            int line0, int col0) {
  std::vector<Token> out;
  std::vector<int> indents = {0};
  size_t i = 0, n = src.size();
  int line = line0, col = col0;
  int brackets = 0;
  bool lineStart = true;
  auto loc = [&] { return Loc{file, line, col}; };
  auto advance = [&](size_t k) {
    for (size_t j = 0; j < k && i < n; ++j, ++i) {
      if (src[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < n) {
    if (lineStart && brackets == 0) {
      // Measure the indentation; blank and comment-only lines do not count.
      size_t j = i;
      int width = 0;
      while (j < n && (src[j] == ' ' || src[j] == '\t' || src[j] == '\f')) {
        width = src[j] == '\t' ? (width / 8 + 1) * 8 : width + 1;
        ++j;
      }
      if (j >= n)
        break;
      if (src[j] == '\n' || src[j] == '#' || (src[j] == '\r')) {
        while (i < n && src[i] != '\n')
          advance(1);
        advance(1);
        continue;
      }
      advance(j - i);
      lineStart = false;
      if (width > indents.back()) {
        indents.push_back(width);
        out.push_back({Token::Kind::Indent, "", loc()});
      } else {
        while (width < indents.back()) {
          indents.pop_back();
          out.push_back({Token::Kind::Dedent, "", loc()});
        }
        if (width != indents.back())
          return Error(loc(), "unindent does not match any outer indentation level");
      }
    }
    char c = src[i];
    if (c == '\n') {
      if (brackets == 0 && !out.empty() && out.back().kind != Token::Kind::Newline) {
        out.push_back({Token::Kind::Newline, "", loc()});
      }
      advance(1);
      lineStart = brackets == 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      advance(1);
      continue;
    }
    if (c == '#') {
      while (i < n && src[i] != '\n')
        advance(1);
      continue;
    }
    if (c == '\\' && i + 1 < n && (src[i + 1] == '\n' || src[i + 1] == '\r')) {
      advance(src[i + 1] == '\r' && i + 2 < n && src[i + 2] == '\n' ? 3 : 2);
      continue;
    }
    Loc start = loc();
    // Strings, with their prefixes (r, b, u, f and pairs of them).
    size_t p = i;
    while (p < n && p - i < 2 && std::strchr("rRbBuUfF", src[p]))
      ++p;
    if (p < n && (src[p] == '\'' || src[p] == '"') &&
        (p == i || !(i > 0 && (std::isalnum((unsigned char)src[i - 1]) || src[i - 1] == '_')))) {
      std::string prefix = src.substr(i, p - i);
      bool raw = prefix.find_first_of("rR") != std::string::npos;
      char q = src[p];
      bool triple = p + 2 < n && src[p + 1] == q && src[p + 2] == q;
      advance(p - i + (triple ? 3 : 1));
      std::string text;
      for (;;) {
        if (i >= n)
          return Error(start, "unterminated string");
        if (!triple && src[i] == '\n')
          return Error(start, "unterminated string");
        if (src[i] == q && (!triple || (i + 2 < n && src[i + 1] == q && src[i + 2] == q))) {
          advance(triple ? 3 : 1);
          break;
        }
        if (src[i] == '\\' && i + 1 < n) {
          char e = src[i + 1];
          if (raw) {
            text += src[i];
            text += e;
          } else if (e == 'n') {
            text += '\n';
          } else if (e == 't') {
            text += '\t';
          } else if (e == '\n') {
          } else {
            text += e;
          }
          advance(2);
          continue;
        }
        text += src[i];
        advance(1);
      }
      out.push_back({Token::Kind::Str, text, start});
      continue;
    }
    if (std::isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
      size_t j = i;
      while (j < n && (std::isalnum((unsigned char)src[j]) || src[j] == '_' ||
                       (unsigned char)src[j] >= 0x80))
        ++j;
      out.push_back({Token::Kind::Name, src.substr(i, j - i), start});
      advance(j - i);
      continue;
    }
    if (std::isdigit((unsigned char)c) || (c == '.' && i + 1 < n && std::isdigit((unsigned char)src[i + 1]))) {
      size_t j = i;
      bool isFloat = false;
      if (c == '0' && j + 1 < n && std::strchr("xXoObB", src[j + 1])) {
        j += 2;
        while (j < n && (std::isxdigit((unsigned char)src[j]) || src[j] == '_'))
          ++j;
      } else {
        while (j < n && (std::isdigit((unsigned char)src[j]) || src[j] == '_'))
          ++j;
        if (j < n && src[j] == '.') {
          isFloat = true;
          ++j;
          while (j < n && (std::isdigit((unsigned char)src[j]) || src[j] == '_'))
            ++j;
        }
        if (j < n && (src[j] == 'e' || src[j] == 'E')) {
          size_t k = j + 1;
          if (k < n && (src[k] == '+' || src[k] == '-'))
            ++k;
          if (k < n && std::isdigit((unsigned char)src[k])) {
            isFloat = true;
            j = k;
            while (j < n && std::isdigit((unsigned char)src[j]))
              ++j;
          }
        }
      }
      std::string text = src.substr(i, j - i);
      std::string digits;
      for (char d : text)
        if (d != '_')
          digits += d;
      Token t{isFloat ? Token::Kind::Float : Token::Kind::Int, text, start};
      errno = 0;
      char *end = nullptr;
      if (isFloat) {
        t.f = std::strtod(digits.c_str(), &end);
      } else {
        int base = 10;
        std::string body = digits;
        if (body.size() > 1 && body[0] == '0' && std::strchr("xXoObB", body[1])) {
          base = std::strchr("xX", body[1]) ? 16 : std::strchr("oO", body[1]) ? 8 : 2;
          body = body.substr(2);
        }
        t.i = std::strtoll(body.c_str(), &end, base);
        if (body.empty())
          end = nullptr;
      }
      if (!end || *end || errno == ERANGE)
        return Error(start, "bad number '" + text + "'" +
                                (errno == ERANGE ? " (out of the 64-bit range)" : ""));
      out.push_back(t);
      advance(j - i);
      continue;
    }
    const char *op = nullptr;
    for (const char *o : kOperators)
      if (src.compare(i, std::strlen(o), o) == 0) {
        op = o;
        break;
      }
    if (!op)
      return Error(start, absl::StrCat("unexpected character '", std::string(1, c), "'"));
    if (!std::strcmp(op, "(") || !std::strcmp(op, "[") || !std::strcmp(op, "{")) {
      if (++brackets > internal::kMaxNesting)
        return Error(start, "brackets nested too deeply");
    } else if (!std::strcmp(op, ")") || !std::strcmp(op, "]") || !std::strcmp(op, "}")) {
      if (brackets > 0)
        --brackets;
    }
    out.push_back({Token::Kind::Op, op, start});
    advance(std::strlen(op));
  }
  if (!out.empty() && out.back().kind != Token::Kind::Newline &&
      out.back().kind != Token::Kind::Dedent)
    out.push_back({Token::Kind::Newline, "", loc()});
  while (indents.size() > 1) {
    indents.pop_back();
    out.push_back({Token::Kind::Dedent, "", loc()});
  }
  out.push_back({Token::Kind::End, "", loc()});
  return out;
}

} // namespace tessel::expr
