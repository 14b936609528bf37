//===- Value.h - values of tessel's small Python evaluator -*- C++ -*-===//
//
// What a grid, a scalar argument, a constraint, a FLOP count or a kernel file's autotune
// configs evaluate to: Python's None, bool, int, float, str, tuple, list, dict, functions
// (lambdas, host `def`s, built-ins) and objects with attributes (a `triton.Config`, the
// `triton` module, a tensor's shape and strides). Lists and dicts are shared as in Python
// (`configs.append(...)` changes the list every name of it sees).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_EXPR_VALUE_H
#define TESSEL_RUNTIME_EXPR_VALUE_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tessel::expr {

struct Value;
/// A place in a source: the file, its 1-based line and column.
struct Loc {
  std::string file;
  int line = 0, col = 0;
  /// "file:line:col".
  std::string Text() const;
};

/// A built-in or user function: called with positional and keyword arguments.
using Builtin = std::function<absl::StatusOr<Value>(
    const std::vector<Value> &args, const std::vector<std::pair<std::string, Value>> &kwargs,
    const Loc &loc)>;

struct Callable;
struct Object;

struct Value {
  enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Function, Object };
  Kind kind = Kind::None;
  int64_t i = 0; ///< Bool (0/1) and Int
  double f = 0;  ///< Float
  std::string s; ///< Str
  /// Tuple and List items (a List's vector is shared, as Python's lists are).
  std::shared_ptr<std::vector<Value>> items;
  /// Dict entries in insertion order (shared as a List's items).
  std::shared_ptr<std::vector<std::pair<Value, Value>>> entries;
  std::shared_ptr<const Callable> fn;
  std::shared_ptr<Object> obj;

  static Value None() { return Value(); }
  static Value Bool(bool b);
  static Value Int(int64_t v);
  static Value Float(double v);
  static Value Str(std::string v);
  static Value Tuple(std::vector<Value> v);
  static Value List(std::vector<Value> v);
  static Value Dict(std::vector<std::pair<Value, Value>> v = {});
  static Value Function(std::string name, Builtin b);
  /// An object of type `type` ("triton.Config", "module triton") with `attrs`.
  static Value MakeObject(std::string type, std::map<std::string, Value> attrs = {});

  bool IsNumber() const { return kind == Kind::Int || kind == Kind::Bool || kind == Kind::Float; }
  bool IsInt() const { return kind == Kind::Int || kind == Kind::Bool; }
  /// Python's truth value.
  bool Truthy() const;
  double AsDouble() const { return kind == Kind::Float ? f : double(i); }
  /// The value of `key` in a Dict (null where absent or not a Dict).
  const Value *Get(const std::string &key) const;
  /// Python's repr: 3, 2.5, 'x', (1, 2), [..], {..}, <function f>, <triton.Config>.
  std::string Repr() const;
  /// "int", "float", "str", "tuple", ..., or the object's type.
  std::string TypeName() const;
};

/// A function value: a name for messages and how to call it.
struct Callable {
  std::string name;
  Builtin call;
};

/// An object: its type's name and its attributes.
struct Object {
  std::string type;
  std::map<std::string, Value> attrs;
};

bool Equal(const Value &a, const Value &b);

} // namespace tessel::expr

#endif // TESSEL_RUNTIME_EXPR_VALUE_H
