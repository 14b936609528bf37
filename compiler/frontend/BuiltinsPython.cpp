//===- BuiltinsPython.cpp - builtins: Python builtins inside kernels -*- C++
//-*-===//
//
// Python builtins inside kernels: min, max, float, int, bool, len, abs,
// isinstance, print, constexpr.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>

using namespace mlir;

namespace tessel::frontend {

absl::StatusOr<V> Generator::builtinPyMinMax(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  if (args.positional.size() == 1 && args.positional[0]->kind == Val::Tuple)
    args.positional = args.positional[0]->items;
  if (args.positional.empty() || !args.keywords.empty())
    return error(at, name.substr(3) + "() takes two or more values");
  V acc = args.positional[0];
  for (size_t k = 1; k < args.positional.size(); ++k) {
    V x = args.positional[k];
    if (acc->isNumber() && x->isNumber()) {
      ASSIGN_OR_RETURN(V lessThan, binary("<", x, acc, at));
      bool less = lessThan->i;
      if ((name == "py.min") == less)
        acc = x;
      continue;
    }
    CallArgs pair{{acc, x}, {}, at};
    ASSIGN_OR_RETURN(acc, callBuiltin(name == "py.min" ? "minimum" : "maximum", pair));
  }
  return acc;
}

absl::StatusOr<V> Generator::builtinPyConversion(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  if (args.positional.size() != 1)
    return error(at, name.substr(3) + "() takes one argument");
  V x = args.positional[0];
  if (x->kind == Val::Str && name == "py.float") {
    std::string s = x->s;
    for (char &c : s)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    if (s == "inf" || s == "+inf" || s == "infinity")
      return makeFloat(std::numeric_limits<double>::infinity());
    if (s == "-inf" || s == "-infinity")
      return makeFloat(-std::numeric_limits<double>::infinity());
    if (s == "nan")
      return makeFloat(std::numeric_limits<double>::quiet_NaN());
    char *end = nullptr;
    double v = std::strtod(x->s.c_str(), &end);
    if (*end)
      return error(at, "could not convert '" + x->s + "' to float");
    return makeFloat(v);
  }
  if (!x->isNumber())
    return error(at, name.substr(3) + "() of " + describe(x) + " is not a compile-time value");
  double v = x->kind == Val::Float ? x->f : double(x->i);
  if (name == "py.float")
    return makeFloat(v);
  if (name == "py.int")
    return makeInt(int64_t(v));
  return makeBool(v != 0);
}

absl::StatusOr<V> Generator::builtinPyLen(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  if (args.positional.size() != 1 || args.positional[0]->kind != Val::Tuple)
    return error(at, "len() takes a tuple");
  return makeInt(int64_t(args.positional[0]->items.size()));
}

absl::StatusOr<V> Generator::builtinPyAbs(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  CallArgs one{args.positional, {}, at};
  if (one.positional.size() == 1 && one.positional[0]->isNumber()) {
    V x = one.positional[0];
    return x->kind == Val::Float ? makeFloat(std::fabs(x->f)) : makeInt(std::llabs(x->i));
  }
  return callBuiltin("abs", one);
}

absl::StatusOr<V> Generator::builtinStaticPrint(const std::string &name, CallArgs &args) {
  return makeNone(); // compile-time printing has no output channel here
}

absl::StatusOr<V> Generator::builtinPyIsinstance(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  // Decided at compile time, as in Triton (constexprs are compared unwrapped):
  // tensors, tensor descriptors, dtypes, tuples, Python numbers and
  // @tl.aggregate classes.
  if (args.positional.size() != 2 || !args.keywords.empty())
    return error(at, "isinstance() takes a value and a class or a tuple of classes");
  V x = args.positional[0];
  std::function<absl::StatusOr<bool>(const V &)> is =
      [&](const V &cls) -> absl::StatusOr<bool> {
    if (cls->kind == Val::Tuple) {
      for (const V &item : cls->items) {
        ASSIGN_OR_RETURN(bool matches, is(item));
        if (matches)
          return true;
      }
      return false;
    }
    if (cls->kind == Val::Class)
      return x->kind == Val::Aggregate && x->obj->cls == cls->cls;
    if (cls->kind == Val::Builtin) {
      const std::string &c = cls->s;
      if (c == "tensor_descriptor" || c == "tensor_descriptor_base")
        return x->kind == Val::Descriptor;
      if (c == "tensor")
        return x->kind == Val::Tensor;
      if (c == "dtype")
        return x->kind == Val::Dtype;
      if (c == "tuple")
        return x->kind == Val::Tuple;
      if (c == "py.int") // bool is an int in Python
        return x->kind == Val::Int || x->kind == Val::Bool;
      if (c == "py.float")
        return x->kind == Val::Float;
      if (c == "py.bool")
        return x->kind == Val::Bool;
    }
    return error(at, "isinstance() against " + describe(cls) +
                         " is not supported (tl.tensor, tl.tensor_descriptor, "
                         "tl.dtype, tl.tuple, "
                         "int, float, bool or a @tl.aggregate class)");
  };
  ASSIGN_OR_RETURN(bool result, is(args.positional[1]));
  return makeBool(result);
}

absl::StatusOr<V> Generator::builtinPyRange(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  return error(at, "range objects can only be iterated by a for loop");
}

absl::StatusOr<V> Generator::builtinConstexpr(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  if (args.positional.size() != 1)
    return error(at, "tl.constexpr() takes one value");
  return args.positional[0];
}

} // namespace tessel::frontend
