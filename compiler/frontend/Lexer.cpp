//===- Lexer.cpp - tokens of the Triton language (a Python subset) ---*- C++ -*-===//

#include "compiler/frontend/Lexer.h"

#include <cctype>
#include <cstring>

namespace tessel::frontend {

namespace {

const char *const kKeywords[] = {
    "False", "None",   "True",  "and",    "as",       "assert", "async", "await",
    "break", "class",  "continue", "def", "del",      "elif",   "else",  "except",
    "finally", "for",  "from",  "global", "if",       "import", "in",    "is",
    "lambda", "nonlocal", "not", "or",    "pass",     "raise",  "return", "try",
    "while", "with",   "yield"};

// Longest first: the lexer takes the first that matches.
const char *const kOperators[] = {
    "**=", "//=", ">>=", "<<=", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=",
    "-=",  "*=",  "/=",  "%=",  "&=", "|=", "^=", ":=", "@=", "+",  "-",  "*",  "/",  "%",
    "&",   "|",   "^",   "~",   "<",  ">",  "=",  ".",  ",",  ":",  ";",  "@",  "(",  ")",
    "[",   "]",   "{",   "}"};

/// f-strings inside f-strings' replacement fields, at most (Python allows any depth; deeper
/// than this is refused rather than recursed into).
constexpr int kMaxFStringNesting = 64;

class Lexer {
public:
  explicit Lexer(const SourceFile &file) : file(file), src(file.text()) {}

  absl::StatusOr<std::vector<Token>> run() {
    while (true) {
      if (atLineStart && brackets.empty()) {
        absl::Status s = handleIndentation();
        if (!s.ok())
          return s;
        if (pos >= src.size())
          break;
        if (atLineStart)
          continue; // a blank or comment-only line
      }
      if (pos >= src.size())
        break;
      char c = src[pos];
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        advance();
        continue;
      }
      if (c == '#') {
        while (pos < src.size() && src[pos] != '\n')
          advance();
        continue;
      }
      if (c == '\\') {
        size_t next = pos + 1;
        if (next < src.size() && src[next] == '\r')
          ++next;
        if (next < src.size() && src[next] == '\n') {
          while (pos <= next)
            advance();
          continue;
        }
        return error(here(), "unexpected character after line continuation '\\'");
      }
      if (c == '\n') {
        if (brackets.empty()) {
          push(TokenKind::Newline, "", here());
          atLineStart = true;
        }
        advance();
        continue;
      }
      absl::Status s = lexToken();
      if (!s.ok())
        return s;
    }
    if (!brackets.empty())
      return error(brackets.back().second,
                   std::string("'") + brackets.back().first + "' was never closed");
    if (!tokens.empty() && tokens.back().kind != TokenKind::Newline)
      push(TokenKind::Newline, "", here());
    while (indents.size() > 1) {
      indents.pop_back();
      push(TokenKind::Dedent, "", here());
    }
    push(TokenKind::EndOfFile, "", here());
    return tokens;
  }

private:
  SourceLocation here() const { return {line, column}; }

  void advance() {
    if (src[pos] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++pos;
  }

  absl::Status error(SourceLocation loc, const std::string &message) const {
    return absl::InvalidArgumentError(file.formatError(loc, message));
  }

  void push(TokenKind kind, std::string text, SourceLocation loc) {
    tokens.push_back(Token{kind, std::move(text), loc});
  }

  /// At the start of a logical line: measures the indentation and emits INDENT/DEDENTs; leaves
  /// atLineStart set for blank and comment-only lines.
  absl::Status handleIndentation() {
    int width = 0;
    bool sawSpace = false, sawTab = false;
    while (pos < src.size() && (src[pos] == ' ' || src[pos] == '\t' || src[pos] == '\f')) {
      if (src[pos] == '\t') {
        sawTab = true;
        width = (width / 8 + 1) * 8;
      } else if (src[pos] == ' ') {
        sawSpace = true;
        ++width;
      }
      advance();
    }
    if (pos >= src.size())
      return absl::OkStatus();
    char c = src[pos];
    if (c == '\n' || c == '#' || c == '\r') {
      while (pos < src.size() && src[pos] != '\n')
        advance();
      if (pos < src.size())
        advance();
      return absl::OkStatus(); // blank line: still at a line start
    }
    atLineStart = false;
    if (sawSpace && sawTab)
      return error(here(), "inconsistent use of tabs and spaces in indentation");
    if (width > indents.back()) {
      indents.push_back(width);
      push(TokenKind::Indent, "", here());
      return absl::OkStatus();
    }
    while (width < indents.back()) {
      indents.pop_back();
      push(TokenKind::Dedent, "", here());
    }
    if (width != indents.back())
      return error(here(), "unindent does not match any outer indentation level");
    return absl::OkStatus();
  }

  absl::Status lexToken() {
    SourceLocation start = here();
    char c = src[pos];
    auto isIdentStart = [](char ch) {
      return std::isalpha(static_cast<unsigned char>(ch)) || ch == '_' ||
             static_cast<unsigned char>(ch) >= 0x80;
    };
    auto isIdent = [&](char ch) {
      return isIdentStart(ch) || std::isdigit(static_cast<unsigned char>(ch));
    };

    // String prefixes: r (raw), b and u are read; f-strings are read whole (host code uses
    // them; the parser refuses them inside kernels). Bytes of UTF-8 sequences are identifier
    // characters, as Python's non-ASCII names are.
    if (isIdentStart(c)) {
      size_t end = pos;
      while (end < src.size() && isIdent(src[end]))
        ++end;
      std::string word = src.substr(pos, end - pos);
      bool stringNext = end < src.size() && (src[end] == '\'' || src[end] == '"');
      std::string lower;
      for (char ch : word)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (stringNext && (lower == "r" || lower == "b" || lower == "rb" || lower == "br" ||
                         lower == "u")) {
        while (pos < end)
          advance();
        return lexString(start, lower.find('r') != std::string::npos);
      }
      if (stringNext && (lower == "f" || lower == "rf" || lower == "fr")) {
        while (pos < end)
          advance();
        return lexFString(start, lower.size() == 2);
      }
      while (pos < end)
        advance();
      push(TokenKind::Name, word, start);
      return absl::OkStatus();
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[pos + 1]))))
      return lexNumber(start);
    if (c == '\'' || c == '"')
      return lexString(start, /*raw=*/false);
    for (const char *op : kOperators) {
      size_t n = std::char_traits<char>::length(op);
      if (src.compare(pos, n, op) != 0)
        continue;
      if (n == 1 && (*op == '(' || *op == '[' || *op == '{')) {
        brackets.push_back({*op, start});
      } else if (n == 1 && (*op == ')' || *op == ']' || *op == '}')) {
        char open = *op == ')' ? '(' : *op == ']' ? '[' : '{';
        if (brackets.empty())
          return error(start, std::string("unmatched '") + *op + "'");
        if (brackets.back().first != open)
          return error(start, std::string("closing '") + *op + "' does not match '" +
                                  brackets.back().first + "' opened at line " +
                                  std::to_string(brackets.back().second.line));
        brackets.pop_back();
      }
      for (size_t i = 0; i < n; ++i)
        advance();
      push(TokenKind::Operator, op, start);
      return absl::OkStatus();
    }
    if (c == '!')
      return error(start, "'!' is only valid in '!='");
    if (c == '$' || c == '?' || c == '`')
      return error(start, std::string("invalid character '") + c + "' in kernel source");
    return error(start, std::string("invalid character '") + c + "'");
  }

  absl::Status lexNumber(SourceLocation start) {
    size_t begin = pos;
    auto digitsOf = [&](auto accept) {
      bool any = false;
      while (pos < src.size() && (accept(src[pos]) || src[pos] == '_')) {
        if (src[pos] == '_' && (pos + 1 >= src.size() || !accept(src[pos + 1])))
          return false; // a trailing or doubled underscore
        any = any || src[pos] != '_';
        advance();
      }
      return any;
    };
    auto dec = [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) != 0; };
    if (src[pos] == '0' && pos + 1 < src.size() && src[pos + 1] != '\0' &&
        std::strchr("xXoObB", src[pos + 1])) {
      char base = static_cast<char>(std::tolower(static_cast<unsigned char>(src[pos + 1])));
      advance();
      advance();
      auto accept = [base](char ch) {
        if (base == 'x')
          return std::isxdigit(static_cast<unsigned char>(ch)) != 0;
        if (base == 'o')
          return ch >= '0' && ch <= '7';
        return ch == '0' || ch == '1';
      };
      if (!digitsOf(accept))
        return error(start, std::string("invalid ") +
                                (base == 'x' ? "hexadecimal" : base == 'o' ? "octal" : "binary") +
                                " literal");
      if (pos < src.size() && std::isalnum(static_cast<unsigned char>(src[pos])))
        return error(here(), "invalid digit in number literal");
      push(TokenKind::Integer, src.substr(begin, pos - begin), start);
      return absl::OkStatus();
    }
    bool isFloat = false;
    if (src[pos] != '.' && !digitsOf(dec))
      return error(start, "invalid number literal");
    if (pos < src.size() && src[pos] == '.') {
      isFloat = true;
      advance();
      if (pos < src.size() && dec(src[pos]) && !digitsOf(dec))
        return error(start, "invalid number literal");
    }
    if (pos < src.size() && (src[pos] == 'e' || src[pos] == 'E')) {
      isFloat = true;
      advance();
      if (pos < src.size() && (src[pos] == '+' || src[pos] == '-'))
        advance();
      if (!digitsOf(dec))
        return error(start, "exponent has no digits");
    }
    bool imaginary = pos < src.size() && (src[pos] == 'j' || src[pos] == 'J');
    if (imaginary)
      advance();
    if (pos < src.size() && (std::isalpha(static_cast<unsigned char>(src[pos])) || src[pos] == '_'))
      return error(here(), "invalid character in number literal");
    std::string text = src.substr(begin, pos - begin);
    push(isFloat || imaginary ? TokenKind::Float : TokenKind::Integer, text, start);
    tokens.back().special = imaginary;
    return absl::OkStatus();
  }

  absl::Status lexString(SourceLocation start, bool raw) {
    char quote = src[pos];
    bool triple = src.compare(pos, 3, std::string(3, quote)) == 0;
    for (int i = 0; i < (triple ? 3 : 1); ++i)
      advance();
    std::string value;
    while (true) {
      if (pos >= src.size())
        return error(start, triple ? "unterminated triple-quoted string"
                                   : "unterminated string literal");
      char c = src[pos];
      if (!triple && c == '\n')
        return error(start, "unterminated string literal (end of line)");
      if (c == quote && (!triple || src.compare(pos, 3, std::string(3, quote)) == 0)) {
        for (int i = 0; i < (triple ? 3 : 1); ++i)
          advance();
        break;
      }
      if (c == '\\' && pos + 1 < src.size()) {
        char e = src[pos + 1];
        if (raw) {
          value += c;
          value += e;
          advance();
          advance();
          continue;
        }
        advance();
        advance();
        switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': value += '\0'; break;
        case '\\': value += '\\'; break;
        case '\'': value += '\''; break;
        case '"': value += '"'; break;
        case '\n': break; // escaped newline: line continuation inside the string
        default:
          value += '\\'; // unknown escapes keep the backslash, as in Python
          value += e;
        }
        continue;
      }
      value += c;
      advance();
    }
    push(TokenKind::String, value, start);
    return absl::OkStatus();
  }

  /// An f-string after its prefix: the source between the quotes, with replacement fields
  /// (`{expr!r:>{width}}`) skipped as a whole — brackets and strings nested in them included,
  /// any quote allowed there as in Python 3.12 — so that a quote inside a field does not end
  /// the literal. The text is not evaluated: f-strings are host code.
  absl::Status lexFString(SourceLocation start, bool raw, int nesting = 0) {
    if (nesting > kMaxFStringNesting)
      return error(start, "f-strings are nested too deeply");
    char quote = src[pos];
    bool triple = src.compare(pos, 3, std::string(3, quote)) == 0;
    size_t quoteLength = triple ? 3 : 1;
    for (size_t i = 0; i < quoteLength; ++i)
      advance();
    size_t begin = pos;
    // Open brackets inside replacement fields: '{' of a field (`spec`: past its format
    // spec's ':', where quotes are text), 'd' for a dict or set display, '(' and '['.
    struct Open {
      char bracket;
      bool spec;
    };
    std::vector<Open> open;
    while (true) {
      if (pos >= src.size())
        return error(start, "unterminated f-string");
      char c = src[pos];
      if (c == '\n' && !triple && open.empty())
        return error(start, "unterminated f-string (end of line)");
      if (open.empty() || open.back().spec) {
        // Literal text: of the f-string itself, or of a format spec.
        if (open.empty() && c == quote &&
            (!triple || src.compare(pos, 3, std::string(3, quote)) == 0))
          break;
        if (c == '\\' && !raw && pos + 1 < src.size()) {
          advance();
          advance();
          continue;
        }
        if (open.empty() && (c == '{' || c == '}') && pos + 1 < src.size() &&
            src[pos + 1] == c) {
          advance();
          advance();
          continue;
        }
        if (c == '{')
          open.push_back({'{', false});
        else if (c == '}' && !open.empty())
          open.pop_back();
        advance();
        continue;
      }
      if (c == '\'' || c == '"') {
        // A string inside a replacement field: itself possibly an f-string.
        SourceLocation at = here();
        size_t tokensBefore = tokens.size();
        absl::Status s = (pos > 0 && (src[pos - 1] == 'f' || src[pos - 1] == 'F'))
                             ? lexFString(at, false, nesting + 1)
                             : lexString(at, false);
        if (!s.ok())
          return s;
        tokens.resize(tokensBefore);
        continue;
      }
      if (c == ':' && open.back().bracket == '{' && (pos + 1 >= src.size() || src[pos + 1] != '='))
        open.back().spec = true; // the field's format spec starts
      else if (c == '{' || c == '(' || c == '[') // '{' here opens a dict or set display
        open.push_back({c == '{' ? 'd' : c, false});
      else if ((c == '}' || c == ')' || c == ']'))
        open.pop_back();
      advance();
    }
    std::string text = src.substr(begin, pos - begin);
    for (size_t i = 0; i < quoteLength; ++i)
      advance();
    push(TokenKind::String, text, start);
    tokens.back().special = true;
    return absl::OkStatus();
  }

  const SourceFile &file;
  const std::string &src;
  size_t pos = 0;
  int line = 1, column = 1;
  bool atLineStart = true;
  std::vector<int> indents{0};
  std::vector<std::pair<char, SourceLocation>> brackets;
  std::vector<Token> tokens;
};

} // namespace

bool Token::isKeyword() const {
  if (kind != TokenKind::Name)
    return false;
  for (const char *k : kKeywords)
    if (text == k)
      return true;
  return false;
}

absl::StatusOr<std::vector<Token>> Tokenize(const SourceFile &file) { return Lexer(file).run(); }

} // namespace tessel::frontend
