//===- Ast.h - syntax tree of the Triton language (a Python subset) -*- C++ -*-===//
//
// What the parser produces and code generation walks. One node type for expressions and one
// for statements, each with a kind and the fields that kind uses (documented per kind), so
// that the tree is cheap to build and to walk.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_AST_H
#define TESSEL_COMPILER_FRONTEND_AST_H

#include "compiler/frontend/SourceLocation.h"

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessel::frontend {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
  Name,      ///< `name`
  Int,       ///< `intValue`
  Float,     ///< `floatValue`
  String,    ///< `name` holds the text
  Bool,      ///< `intValue` 0 or 1
  None,      ///<
  Attribute, ///< operands[0].`name`
  Call,      ///< operands[0](operands[1..], keywords)
  Subscript, ///< operands[0][operands[1..]] (one per index; Slice and None allowed)
  Slice,     ///< `lo:hi:step`: operands are lo, hi, step, each possibly null
  BinOp,     ///< operands[0] `name` operands[1]; name is the operator (+ - * / // % ** @ << >> & | ^)
  UnaryOp,   ///< `name` operands[0]; name is - + ~ not
  Compare,   ///< operands[0] ops[0] operands[1] ops[1] operands[2] ... (chained comparisons)
  BoolOp,    ///< operands joined by `name` (and / or)
  IfExp,     ///< operands[1] if operands[0] else operands[2]
  Tuple,     ///< (operands...) or a bare a, b
  List,      ///< [operands...]
  Dict,      ///< {k0: v0, ...}: operands are k0, v0, k1, v1, ... (decorator arguments only)
};

struct Expr {
  Expr() = default;
  /// Frees the subtree without recursion: a chain of 100,000 operators is destroyed like a
  /// short one (the parser refuses to evaluate such chains, but still owns them).
  ~Expr();
  Expr(const Expr &) = delete;
  Expr &operator=(const Expr &) = delete;

  ExprKind kind;
  SourceLocation loc;
  std::string name;
  int64_t intValue = 0;
  double floatValue = 0;
  std::vector<ExprPtr> operands;
  std::vector<std::string> ops;                        ///< Compare operators
  std::vector<std::pair<std::string, ExprPtr>> keywords; ///< Call keyword arguments
  bool parenthesized = false;                          ///< Tuple written with ()
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

enum class StmtKind {
  Expr,      ///< value
  Assign,    ///< targets[0] = targets[1] = ... = value
  AugAssign, ///< targets[0] op= value (`op` is + - * ...)
  AnnAssign, ///< targets[0]: annotation [= value]
  If,        ///< if value: body else: orelse (elif is an If inside orelse)
  For,       ///< for targets[0] in value: body
  While,     ///< while value: body
  Return,    ///< return [value]
  Pass,
  Assert,    ///< assert value[, message]
  Unsupported, ///< a construct the language does not have: `op` names it (break, with, ...)
};

struct Stmt {
  StmtKind kind;
  SourceLocation loc;
  /// Module-level constants only: the host function a constant is assigned in ("" at module
  /// level, "test_add" in `def test_add(): BLOCK = 128`), visible to kernels nested there.
  std::string scope;
  std::vector<ExprPtr> targets;
  ExprPtr value, annotation, message;
  std::string op;
  Block body, orelse;
};

struct Param {
  std::string name;
  SourceLocation loc;
  ExprPtr annotation, defaultValue;
};

struct FunctionDef {
  std::string name;
  /// The host functions and classes it is nested in, dotted ("" at module level): a kernel
  /// in `def test_add():` has scope "test_add" and is named "test_add.kernel".
  std::string scope;
  SourceLocation loc;
  std::string qualifiedName() const { return scope.empty() ? name : scope + "." + name; }
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  Block body;
};

/// An annotated field of an aggregate class (`name: type`).
struct Field {
  std::string name;
  SourceLocation loc;
  ExprPtr annotation;
};

struct ClassDef {
  std::string name;
  SourceLocation loc;
  std::vector<ExprPtr> decorators;
  std::vector<Field> fields;
  std::vector<FunctionDef> methods;
};

/// `import a.b as c` / `from a import b as c`: `module` is the dotted path imported from,
/// `name` the imported member (empty for a plain import), `alias` the local name.
struct Import {
  std::string module, name, alias;
  SourceLocation loc;
};

/// A name bound by host code that tessel does not evaluate (a host function or class, an
/// assignment in a loop or a branch, a value outside the kernel language): named in the error
/// when a kernel uses it.
struct HostName {
  std::string scope, name, what;
  SourceLocation loc;
  std::string qualifiedName() const { return scope.empty() ? name : scope + "." + name; }
};

/// A Python file: its kernels (@triton.jit functions, wherever they are defined), aggregate
/// classes, imports, and the constants they may use; everything else in it is host code,
/// read for its structure and skipped.
struct Module {
  std::vector<Import> imports;
  std::vector<StmtPtr> globals; ///< constants: straight-line assignments (Stmt::scope)
  std::vector<FunctionDef> functions; ///< @triton.jit functions
  std::vector<ClassDef> classes;      ///< @tl.aggregate classes
  std::vector<HostName> hostNames;
  /// Scopes that are class bodies ("TestCube"): functions defined in a class do not see its
  /// names, so name lookup skips them.
  std::set<std::string> classScopes;
};

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_AST_H
