//===- Lexer.h - tokens of the Triton language (a Python subset) -----*- C++ -*-===//
//
// Turns kernel source into tokens with Python's layout rules: NEWLINE at the end of a logical
// line, INDENT/DEDENT for block structure, no NEWLINE inside brackets or after a backslash
// continuation, comments and blank lines skipped. Errors (bad characters, unterminated
// strings, inconsistent dedents, tabs mixed with spaces) carry file:line:col.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_LEXER_H
#define TESSEL_COMPILER_FRONTEND_LEXER_H

#include "compiler/frontend/SourceLocation.h"

#include "absl/status/statusor.h"

#include <string>
#include <vector>

namespace tessel::frontend {

enum class TokenKind {
  Name,     ///< identifiers and keywords (`def`, `if`, ... are Names with isKeyword())
  Integer,  ///< 42, 0x1F, 0o17, 0b101, 1_000
  Float,    ///< 1.5, 1e-3, .5, 2.
  String,   ///< '...', "...", '''...''', """...""" (text holds the decoded value)
  Operator, ///< + - * / // % ** << >> & | ^ ~ < > <= >= == != = += -= ... -> . , : ; @ ( ) [ ] { }
  Newline,
  Indent,
  Dedent,
  EndOfFile,
};

struct Token {
  TokenKind kind;
  std::string text;
  SourceLocation loc;
  /// A String that is an f-string (text: its source between the quotes, unevaluated), or a
  /// Float that is an imaginary literal (`2j`): host code only, refused inside kernels.
  bool special = false;

  bool is(TokenKind k, const std::string &t) const { return kind == k && text == t; }
  bool isOperator(const std::string &t) const { return is(TokenKind::Operator, t); }
  bool isKeyword() const;
};

/// All tokens of `file`, ending with EndOfFile (preceded by the Newline and Dedents that
/// close the last line and blocks).
absl::StatusOr<std::vector<Token>> Tokenize(const SourceFile &file);

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_LEXER_H
