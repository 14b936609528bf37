//===- Eval.h - evaluating tessel's small Python: grids, scalars, host config code -*- C++ -*-===//
//
// Evaluates the syntax of Syntax.h in a chain of scopes: a grid or scalar argument over the
// dims and a configuration's meta-parameters, a constraint of a configuration space, a
// `@triton.heuristics` lambda over the kernel's arguments, the host function that returns a
// kernel's autotune configs. Python's semantics where it has them (floor division and modulo
// toward negative infinity, `/` a float, chained comparisons, short-circuit and/or); integer
// overflow, division by zero and unknown names are errors with the expression's file:line:col.
// Runs without the compiler: the runtime and tessel-bench evaluate grids with it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_EXPR_EVAL_H
#define TESSEL_RUNTIME_EXPR_EVAL_H

#include "runtime/expr/Syntax.h"
#include "runtime/expr/Value.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace tessel::expr {

struct Scope;
using ScopePtr = std::shared_ptr<Scope>;

/// Names and their values; lookups go to the parent, then to `lazy` (a module's names
/// evaluated when first used).
struct Scope {
  std::map<std::string, Value> vars;
  ScopePtr parent;
  std::function<absl::StatusOr<std::optional<Value>>(const std::string &name, const Loc &loc)>
      lazy;
  /// A child scope of `parent`.
  static ScopePtr Child(const ScopePtr &parent);
  absl::StatusOr<Value> Lookup(const std::string &name, const Loc &loc) const;
};

/// Python's built-ins a spec or host code uses: min, max, abs, int, float, bool, str, len,
/// range, sum, any, all, list, tuple, isinstance-free; and Triton's cdiv and next_power_of_2
/// (also as triton.cdiv, triton.next_power_of_2 where the caller binds a `triton`).
ScopePtr Builtins();
/// The built-ins themselves, built once and never changed: Builtins() is a fresh scope over
/// them, so that a caller's names never reach another's.
const ScopePtr &SharedBuiltins();

absl::StatusOr<Value> Eval(const Node &node, const ScopePtr &scope);
/// Calls a function value (a built-in, a lambda or a host `def`).
absl::StatusOr<Value> Call(const Value &fn, const std::vector<Value> &args,
                           const std::vector<std::pair<std::string, Value>> &kwargs,
                           const Loc &loc);
/// Runs a host function's statements in `scope`; the value of its `return` (None without).
absl::StatusOr<Value> Run(const std::vector<NodePtr> &body, const ScopePtr &scope);

/// Parses and evaluates `text` in `scope` (errors at file:line:col of the text).
absl::StatusOr<Value> EvalText(const std::string &text, const ScopePtr &scope,
                               const std::string &file = "<expression>", int line = 1,
                               int col = 1);

/// Evaluates a parsed expression in `scope` (a fresh step budget, as EvalText).
absl::StatusOr<Value> EvalParsed(const Node &node, const ScopePtr &scope);

/// An int result: the value, or an error "<where>: expected an integer, found ...".
absl::StatusOr<int64_t> AsInt(const Value &v, const Loc &loc, const std::string &what);

/// A launch grid as Triton's launcher reads it: an int, or a tuple or list of one to three
/// (a lambda of META is called with `meta` first); each in [`least`, 2^31). Missing ones are 1.
absl::StatusOr<std::array<int32_t, 3>> GridOf(const Value &grid, const Value &meta,
                                              const Loc &loc, int64_t least);

/// A tensor as kernel specs' and contracts' expressions see it: .shape, .stride(i) (and
/// .stride() for all), .numel(), .dtype, .element_size() (0 / "" where unknown).
Value TensorValue(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                  const std::string &dtype = "", int64_t elementSize = 0);

} // namespace tessel::expr

#endif // TESSEL_RUNTIME_EXPR_EVAL_H
