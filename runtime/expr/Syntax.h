//===- Syntax.h - tokens and syntax tree of tessel's small Python evaluator -*- C++ -*-===//
//
// The part of Python that kernel specs and the host code above a kernel are written in:
// expressions (arithmetic, comparisons, calls with keywords, subscripts, attributes, tuples,
// lists, dicts, lambdas, list comprehensions, conditional expressions) and the statements of
// a host function that builds autotune configs (assignments, if/elif/else, for, return, def).
// Every node carries its file:line:col, so an error in a spec names the place in the spec.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_EXPR_SYNTAX_H
#define TESSEL_RUNTIME_EXPR_SYNTAX_H

#include "runtime/expr/Value.h"

#include "absl/status/statusor.h"

#include <memory>
#include <string>
#include <vector>

namespace tessel::expr {

struct Token {
  enum class Kind { Name, Int, Float, Str, Op, Newline, Indent, Dedent, End };
  Kind kind;
  std::string text; ///< a Str's decoded contents; a name, operator or number as written
  Loc loc;
  int64_t i = 0;
  double f = 0;
  bool Is(Kind k, const char *t) const { return kind == k && text == t; }
};

/// Python's tokens of `source` (comments dropped; newlines inside brackets and after a
/// backslash joined; INDENT/DEDENT from the indentation). `line`/`col` place the first
/// character (an expression inside a TOML string starts where the string does).
absl::StatusOr<std::vector<Token>> Tokenize(const std::string &source, const std::string &file,
                                            int line = 1, int col = 1);

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  enum class Kind {
    // expressions
    Name,      ///< text
    Int,       ///< i
    Float,     ///< f
    Str,       ///< text
    Const,     ///< True / False / None: text
    Attribute, ///< kids[0].text
    Call,      ///< kids[0](kids[1..], keywords); a `*x` argument is a Starred kid
    Starred,   ///< *kids[0] (in a call's arguments)
    Subscript, ///< kids[0][kids[1]] (several indices: a Tuple)
    BinOp,     ///< kids[0] text kids[1]
    UnaryOp,   ///< text kids[0] (- + ~ not)
    Compare,   ///< kids[0] ops[0] kids[1] ops[1] kids[2] ...
    BoolOp,    ///< kids joined by text (and / or)
    IfExp,     ///< kids[1] if kids[0] else kids[2]
    Tuple,     ///< (kids...)
    List,      ///< [kids...]
    Dict,      ///< {k0: v0, ...}: kids k0, v0, k1, v1, ...
    Lambda,    ///< lambda params: kids[0] (defaults: keywords, by parameter name)
    ListComp,  ///< [kids[0] for ...]: `comps`
    // statements
    ExprStmt,  ///< kids[0]
    Assign,    ///< kids[0..n-2] = kids[n-1]
    AugAssign, ///< kids[0] text= kids[1]
    If,        ///< if kids[0]: body else: orelse
    For,       ///< for kids[0] in kids[1]: body
    Return,    ///< return [kids[0]]
    Pass,
    Def,       ///< def text(params): body (defaults: keywords)
    Unsupported, ///< a statement outside the subset: text names it; an error where it runs
  };
  Kind kind;
  Loc loc;
  std::string text;
  int64_t i = 0;
  double f = 0;
  std::vector<NodePtr> kids;
  std::vector<std::string> ops;
  std::vector<std::pair<std::string, NodePtr>> keywords;
  std::vector<std::string> params;
  /// A comprehension's clauses: `for target in iter` (target, iter) and `if cond` (cond,
  /// null), in order.
  std::vector<std::pair<NodePtr, NodePtr>> comps;
  std::vector<NodePtr> body, orelse;
};

/// Parses one expression (the whole of `source`): a grid, a constraint, a scalar argument.
absl::StatusOr<NodePtr> ParseExpression(const std::string &source, const std::string &file,
                                        int line = 1, int col = 1);

/// Reads tokens as Python; used by the module reader for decorators, assignments and the
/// bodies of host functions.
class Parser {
public:
  explicit Parser(const std::vector<Token> &tokens, size_t pos = 0) : t_(tokens), pos_(pos) {}
  absl::StatusOr<NodePtr> Expression();
  /// One statement (with the block under a compound one).
  absl::StatusOr<NodePtr> Statement();
  /// An indented block after `:` NEWLINE (or a simple statement on the same line).
  absl::Status Block(std::vector<NodePtr> &out);
  /// `(a, b=1, *args, **kw)` after a `def` or before a lambda's `:` (without parentheses
  /// there): names and defaults.
  absl::Status Parameters(std::vector<std::string> &names,
                          std::vector<std::pair<std::string, NodePtr>> &defaults,
                          const char *close);
  size_t Pos() const { return pos_; }
  const Token &Peek(size_t ahead = 0) const;
  absl::Status Fail(const Loc &loc, const std::string &message) const;

private:
  bool AtOp(const char *op) const;
  bool AcceptOp(const char *op);
  absl::Status ExpectOp(const char *op, const char *what);
  bool AtKeyword(const char *word) const;
  absl::StatusOr<NodePtr> TestList(); // a, b, c (a tuple when there is a comma)
  absl::StatusOr<NodePtr> Test();
  /// operand (word operand)*: `a or b or c` as one BoolOp.
  absl::StatusOr<NodePtr> BoolChain(const char *word, absl::StatusOr<NodePtr> (Parser::*operand)());
  absl::StatusOr<NodePtr> OrTest();
  absl::StatusOr<NodePtr> AndTest();
  absl::StatusOr<NodePtr> NotTest();
  absl::StatusOr<NodePtr> Comparison();
  absl::StatusOr<NodePtr> Binary(int level);
  absl::StatusOr<NodePtr> Unary();
  absl::StatusOr<NodePtr> Power();
  absl::StatusOr<NodePtr> Primary();
  absl::StatusOr<NodePtr> Atom();
  absl::Status Comprehension(Node &comp);
  /// (`,` item)* `close` after a sequence's first item (a trailing comma allowed).
  absl::Status RestOfItems(Node &n, const char *close, const char *what);
  absl::Status CallArgs(Node &call);
  const std::vector<Token> &t_;
  size_t pos_;
  int depth_ = 0;
};

} // namespace tessel::expr

#endif // TESSEL_RUNTIME_EXPR_SYNTAX_H
