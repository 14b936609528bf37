//===- Builtins.cpp - the built-ins of tessel's small Python, grids and tensor values -===//

#include "runtime/expr/Eval.h"
#include "runtime/expr/Internal.h"

#include "absl/strings/str_cat.h"

#include <cmath>

namespace tessel::expr {

using namespace internal;

namespace {
using Args = std::vector<Value>;
using Kwargs = std::vector<std::pair<std::string, Value>>;

absl::StatusOr<Value> MinMax(const Args &a, const Loc &loc, bool isMax) {
  Args items = a;
  if (a.size() == 1) {
    auto it = Iterate(a[0], loc);
    if (!it.ok())
      return it.status();
    items = *it;
  }
  if (items.empty())
    return Error(loc, std::string(isMax ? "max" : "min") + "() of nothing");
  Value best = items[0];
  for (size_t k = 1; k < items.size(); ++k) {
    auto less = Compare("<", items[k], best, loc);
    if (!less.ok())
      return less.status();
    auto greater = Compare(">", items[k], best, loc);
    if (!greater.ok())
      return greater.status();
    if (isMax ? *greater : *less)
      best = items[k];
  }
  return best;
}

absl::StatusOr<int64_t> IntArg(const Args &a, size_t k, const Loc &loc, const char *fn) {
  if (k >= a.size())
    return Error(loc, std::string(fn) + "() is missing an argument");
  return AsInt(a[k], loc, std::string(fn) + "()'s argument " + std::to_string(k + 1));
}
} // namespace

namespace {
ScopePtr MakeBuiltins() {
  auto s = std::make_shared<Scope>();
  auto &v = s->vars;
  v["min"] = Value::Function("min", [](const Args &a, const Kwargs &, const Loc &loc) {
    return MinMax(a, loc, false);
  });
  v["max"] = Value::Function("max", [](const Args &a, const Kwargs &, const Loc &loc) {
    return MinMax(a, loc, true);
  });
  v["abs"] = Value::Function("abs", [](const Args &a, const Kwargs &,
                                       const Loc &loc) -> absl::StatusOr<Value> {
    if (a.size() != 1 || !a[0].IsNumber())
      return Error(loc, "abs() takes one number");
    if (a[0].kind == Value::Kind::Float)
      return Value::Float(std::fabs(a[0].f));
    if (a[0].i == INT64_MIN)
      return Error(loc, "integer overflow in abs()");
    return Value::Int(a[0].i < 0 ? -a[0].i : a[0].i);
  });
  v["int"] = Value::Function("int", [](const Args &a, const Kwargs &,
                                       const Loc &loc) -> absl::StatusOr<Value> {
    if (a.size() != 1 || !a[0].IsNumber())
      return Error(loc, "int() takes one number");
    if (a[0].IsInt())
      return Value::Int(a[0].i);
    if (!std::isfinite(a[0].f) || std::fabs(a[0].f) >= 9.2e18)
      return Error(loc, "int() of " + a[0].Repr());
    return Value::Int(int64_t(a[0].f));
  });
  v["float"] = Value::Function("float", [](const Args &a, const Kwargs &,
                                           const Loc &loc) -> absl::StatusOr<Value> {
    if (a.size() != 1 || !a[0].IsNumber())
      return Error(loc, "float() takes one number");
    return Value::Float(a[0].AsDouble());
  });
  v["bool"] = Value::Function("bool", [](const Args &a, const Kwargs &, const Loc &) {
    return absl::StatusOr<Value>(Value::Bool(!a.empty() && a[0].Truthy()));
  });
  v["str"] = Value::Function("str", [](const Args &a, const Kwargs &, const Loc &) {
    if (a.empty())
      return absl::StatusOr<Value>(Value::Str(""));
    return absl::StatusOr<Value>(Value::Str(a[0].kind == Value::Kind::Str ? a[0].s
                                                                          : a[0].Repr()));
  });
  v["len"] = Value::Function("len", [](const Args &a, const Kwargs &,
                                       const Loc &loc) -> absl::StatusOr<Value> {
    if (a.size() != 1)
      return Error(loc, "len() takes one argument");
    if (a[0].kind == Value::Kind::Str)
      return Value::Int(int64_t(a[0].s.size()));
    auto items = Iterate(a[0], loc);
    if (!items.ok())
      return items.status();
    return Value::Int(int64_t(items->size()));
  });
  v["range"] = Value::Function("range", [](const Args &a, const Kwargs &,
                                           const Loc &loc) -> absl::StatusOr<Value> {
    if (a.empty() || a.size() > 3)
      return Error(loc, "range() takes one to three integers");
    int64_t lo = 0, hi, step = 1;
    for (size_t k = 0; k < a.size(); ++k)
      if (!a[k].IsInt())
        return Error(loc, "range() takes integers, found " + a[k].Repr());
    if (a.size() == 1) {
      hi = a[0].i;
    } else {
      lo = a[0].i;
      hi = a[1].i;
      if (a.size() == 3)
        step = a[2].i;
    }
    if (step == 0)
      return Error(loc, "range() step must not be zero");
    std::vector<Value> out;
    for (int64_t x = lo; step > 0 ? x < hi : x > hi; x += step) {
      if (int64_t(out.size()) >= kMaxItems)
        return Error(loc, "range() too long");
      out.push_back(Value::Int(x));
      if ((step > 0 && x > INT64_MAX - step) || (step < 0 && x < INT64_MIN - step))
        break;
    }
    return Value::List(out);
  });
  v["sum"] = Value::Function("sum", [](const Args &a, const Kwargs &,
                                       const Loc &loc) -> absl::StatusOr<Value> {
    if (a.size() != 1)
      return Error(loc, "sum() takes one iterable");
    auto items = Iterate(a[0], loc);
    if (!items.ok())
      return items.status();
    Value acc = Value::Int(0);
    for (const Value &x : *items) {
      auto r = Arith("+", acc, x, loc);
      if (!r.ok())
        return r;
      acc = *r;
    }
    return acc;
  });
  for (const char *name : {"any", "all"})
    v[name] = Value::Function(name, [name](const Args &a, const Kwargs &,
                                           const Loc &loc) -> absl::StatusOr<Value> {
      if (a.size() != 1)
        return Error(loc, std::string(name) + "() takes one iterable");
      auto items = Iterate(a[0], loc);
      if (!items.ok())
        return items.status();
      bool isAny = std::string(name) == "any";
      for (const Value &x : *items)
        if (x.Truthy() == isAny)
          return Value::Bool(isAny);
      return Value::Bool(!isAny);
    });
  for (const char *name : {"list", "tuple"})
    v[name] = Value::Function(name, [name](const Args &a, const Kwargs &,
                                           const Loc &loc) -> absl::StatusOr<Value> {
      std::vector<Value> items;
      if (a.size() == 1) {
        auto it = Iterate(a[0], loc);
        if (!it.ok())
          return it.status();
        items = *it;
      }
      return std::string(name) == "list" ? Value::List(items) : Value::Tuple(items);
    });
  v["cdiv"] = Value::Function("cdiv", [](const Args &a, const Kwargs &,
                                         const Loc &loc) -> absl::StatusOr<Value> {
    auto x = IntArg(a, 0, loc, "cdiv");
    if (!x.ok())
      return x.status();
    auto y = IntArg(a, 1, loc, "cdiv");
    if (!y.ok())
      return y.status();
    if (*y <= 0)
      return Error(loc, "cdiv() by " + std::to_string(*y) + ": the divisor must be positive");
    // ceil(x / y) as Triton's (x + y - 1) // y, without the overflow of x + y - 1.
    int64_t q = *x / *y, r = *x % *y;
    if (r < 0) {
      --q;
      r += *y;
    }
    return Value::Int(r ? q + 1 : q);
  });
  v["next_power_of_2"] = Value::Function(
      "next_power_of_2", [](const Args &a, const Kwargs &, const Loc &loc) -> absl::StatusOr<Value> {
        auto x = IntArg(a, 0, loc, "next_power_of_2");
        if (!x.ok())
          return x.status();
        if (*x > (int64_t(1) << 62))
          return Error(loc, "next_power_of_2() of a value too large");
        int64_t p = 1;
        while (p < *x)
          p <<= 1;
        return Value::Int(p);
      });
  return s;
}
} // namespace

const ScopePtr &SharedBuiltins() {
  static const ScopePtr builtins = MakeBuiltins();
  return builtins;
}

ScopePtr Builtins() { return Scope::Child(SharedBuiltins()); }

absl::StatusOr<std::array<int32_t, 3>> GridOf(const Value &grid, const Value &meta,
                                              const Loc &loc, int64_t least) {
  Value g = grid;
  if (g.kind == Value::Kind::Function) { // grid = lambda META: (...)
    absl::StatusOr<Value> called = Call(g, {meta}, {}, loc);
    if (!called.ok())
      return called.status();
    g = *called;
  }
  std::vector<Value> dims = g.kind == Value::Kind::Tuple || g.kind == Value::Kind::List
                                ? *g.items
                                : std::vector<Value>{g};
  if (dims.empty() || dims.size() > 3)
    return Error(loc, "the grid is " + g.Repr() + ": one to three integers");
  std::array<int32_t, 3> xyz = {1, 1, 1};
  for (size_t k = 0; k < dims.size(); ++k) {
    absl::StatusOr<int64_t> n = AsInt(dims[k], loc, "the grid");
    if (!n.ok())
      return n.status();
    if (*n < least || *n > INT32_MAX)
      return Error(loc, "the grid is " + g.Repr() + ": each dimension in [" +
                            std::to_string(least) + ", 2^31)");
    xyz[k] = int32_t(*n);
  }
  return xyz;
}

Value TensorValue(const std::vector<int64_t> &shape, const std::vector<int64_t> &strides,
                  const std::string &dtype, int64_t elementSize) {
  std::vector<Value> dims, st;
  int64_t numel = 1;
  for (int64_t d : shape) {
    dims.push_back(Value::Int(d));
    numel *= d;
  }
  for (int64_t s : strides)
    st.push_back(Value::Int(s));
  Value stridesV = Value::Tuple(st), numelV = Value::Int(numel), sizeV = Value::Int(elementSize);
  auto constant = [](const char *name, Value v) {
    return Value::Function(name, [v](const std::vector<Value> &, const auto &, const Loc &) {
      return absl::StatusOr<Value>(v);
    });
  };
  return Value::MakeObject(
      "tensor",
      {{"shape", Value::Tuple(dims)},
       {"dtype", Value::Str(dtype)},
       {"stride", Value::Function("stride",
                                  [stridesV](const std::vector<Value> &a, const auto &,
                                             const Loc &loc) -> absl::StatusOr<Value> {
                                    if (a.empty())
                                      return stridesV;
                                    int64_t n = int64_t(stridesV.items->size());
                                    if (a.size() != 1 || !a[0].IsInt() || a[0].i < -n ||
                                        a[0].i >= n)
                                      return Error(loc, "stride(DIM) of a tensor of " +
                                                            std::to_string(n) + " dimensions");
                                    return (*stridesV.items)[size_t(a[0].i < 0 ? a[0].i + n
                                                                               : a[0].i)];
                                  })},
       {"numel", constant("numel", numelV)},
       {"element_size", constant("element_size", sizeV)}});
}

} // namespace tessel::expr
