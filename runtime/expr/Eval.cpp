//===- Eval.cpp - evaluating tessel's small Python -===//

#include "runtime/expr/Eval.h"
#include "runtime/expr/Internal.h"

#include "absl/strings/str_cat.h"

#include <cmath>

namespace tessel::expr {
namespace internal {

absl::Status Error(const Loc &loc, const std::string &message) {
  return absl::InvalidArgumentError(absl::StrCat(loc.Text(), ": error: ", message));
}

} // namespace internal

using namespace internal;

namespace {

constexpr int kMaxCalls = 100;        // nesting of calls (recursion in host code)
constexpr int64_t kMaxSteps = 1 << 24; // loop iterations and comprehension items, per Run

thread_local int callDepth = 0;
thread_local int64_t steps = 0;

struct CallGuard {
  CallGuard() { ++callDepth; }
  ~CallGuard() { --callDepth; }
};

absl::Status Step(const Loc &loc) {
  if (++steps > kMaxSteps)
    return Error(loc, "evaluation takes too many steps (a loop too long)");
  return absl::OkStatus();
}

} // namespace

namespace internal {

absl::StatusOr<std::vector<Value>> Iterate(const Value &v, const Loc &loc) {
  switch (v.kind) {
  case Value::Kind::Tuple:
  case Value::Kind::List:
    return *v.items;
  case Value::Kind::Dict: {
    std::vector<Value> keys;
    for (const auto &[k, x] : *v.entries)
      keys.push_back(k);
    return keys;
  }
  case Value::Kind::Str: {
    std::vector<Value> chars;
    for (char c : v.s)
      chars.push_back(Value::Str(std::string(1, c)));
    return chars;
  }
  default:
    return Error(loc, "cannot iterate over " + v.TypeName() + " " + v.Repr());
  }
}

absl::StatusOr<Value> Arith(const std::string &op, const Value &a, const Value &b,
                            const Loc &loc) {
  if (op == "+" && a.kind == b.kind &&
      (a.kind == Value::Kind::Str || a.kind == Value::Kind::List ||
       a.kind == Value::Kind::Tuple)) {
    if (a.kind == Value::Kind::Str)
      return Value::Str(a.s + b.s);
    std::vector<Value> all = *a.items;
    all.insert(all.end(), b.items->begin(), b.items->end());
    if (int64_t(all.size()) > kMaxItems)
      return Error(loc, "list too long");
    return a.kind == Value::Kind::List ? Value::List(all) : Value::Tuple(all);
  }
  if (op == "*" && (a.kind == Value::Kind::List || a.kind == Value::Kind::Tuple) && b.IsInt()) {
    if (b.i < 0 || (b.i > 0 && int64_t(a.items->size()) > kMaxItems / b.i))
      return Error(loc, "list too long");
    std::vector<Value> all;
    for (int64_t k = 0; k < b.i; ++k)
      all.insert(all.end(), a.items->begin(), a.items->end());
    return a.kind == Value::Kind::List ? Value::List(all) : Value::Tuple(all);
  }
  if (!a.IsNumber() || !b.IsNumber())
    return Error(loc, "unsupported operand types for " + op + ": " + a.TypeName() + " and " +
                          b.TypeName());
  if (a.IsInt() && b.IsInt() && op != "/") {
    int64_t x = a.i, y = b.i, r = 0;
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &r))
        return Error(loc, "integer overflow in " + a.Repr() + " + " + b.Repr());
      return Value::Int(r);
    }
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r))
        return Error(loc, "integer overflow in " + a.Repr() + " - " + b.Repr());
      return Value::Int(r);
    }
    if (op == "*") {
      if (__builtin_mul_overflow(x, y, &r))
        return Error(loc, "integer overflow in " + a.Repr() + " * " + b.Repr());
      return Value::Int(r);
    }
    if (op == "//" || op == "%") {
      if (y == 0)
        return Error(loc, "integer division or modulo by zero");
      if (x == INT64_MIN && y == -1)
        return Error(loc, "integer overflow in " + a.Repr() + " " + op + " -1");
      int64_t q = x / y, m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) {
        --q;
        m += y;
      }
      return Value::Int(op == "//" ? q : m);
    }
    if (op == "**") {
      if (y < 0)
        return Value::Float(std::pow(double(x), double(y)));
      int64_t acc = 1;
      for (int64_t k = 0; k < y; ++k) {
        if (__builtin_mul_overflow(acc, x, &acc))
          return Error(loc, "integer overflow in " + a.Repr() + " ** " + b.Repr());
        if (acc == 0 || acc == 1)
          break;
      }
      return Value::Int(acc);
    }
    if (op == "<<" || op == ">>") {
      if (y < 0)
        return Error(loc, "negative shift count");
      if (op == ">>")
        return Value::Int(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
      if (y >= 63 || (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y))))
        return Error(loc, "integer overflow in " + a.Repr() + " << " + b.Repr());
      return Value::Int(int64_t(uint64_t(x) << y));
    }
    if (op == "&")
      return a.kind == Value::Kind::Bool && b.kind == Value::Kind::Bool ? Value::Bool(x & y)
                                                                         : Value::Int(x & y);
    if (op == "|")
      return a.kind == Value::Kind::Bool && b.kind == Value::Kind::Bool ? Value::Bool(x | y)
                                                                         : Value::Int(x | y);
    if (op == "^")
      return a.kind == Value::Kind::Bool && b.kind == Value::Kind::Bool ? Value::Bool(x ^ y)
                                                                         : Value::Int(x ^ y);
  }
  double x = a.AsDouble(), y = b.AsDouble();
  if (op == "+")
    return Value::Float(x + y);
  if (op == "-")
    return Value::Float(x - y);
  if (op == "*")
    return Value::Float(x * y);
  if (op == "/" || op == "//" || op == "%") {
    if (y == 0)
      return Error(loc, "division by zero");
    if (op == "/")
      return Value::Float(x / y);
    double q = std::floor(x / y);
    return Value::Float(op == "//" ? q : x - q * y);
  }
  if (op == "**")
    return Value::Float(std::pow(x, y));
  return Error(loc, "unsupported operand types for " + op + ": " + a.TypeName() + " and " +
                        b.TypeName());
}

absl::StatusOr<bool> Compare(const std::string &op, const Value &a, const Value &b,
                             const Loc &loc) {
  if (op == "==")
    return Equal(a, b);
  if (op == "!=")
    return !Equal(a, b);
  if (op == "is")
    return (a.kind == Value::Kind::None && b.kind == Value::Kind::None) ||
           (a.kind == b.kind && Equal(a, b) && a.kind != Value::Kind::Float);
  if (op == "is not") {
    auto r = Compare("is", a, b, loc);
    return !*r;
  }
  if (op == "in" || op == "not in") {
    bool found = false;
    if (b.kind == Value::Kind::Str && a.kind == Value::Kind::Str) {
      found = b.s.find(a.s) != std::string::npos;
    } else {
      auto items = Iterate(b, loc);
      if (!items.ok())
        return items.status();
      for (const Value &x : *items)
        found = found || Equal(a, x);
    }
    return op == "in" ? found : !found;
  }
  int c;
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt() && b.IsInt())
      c = a.i < b.i ? -1 : a.i > b.i;
    else
      c = a.AsDouble() < b.AsDouble() ? -1 : a.AsDouble() > b.AsDouble();
    if (std::isnan(a.AsDouble()) || std::isnan(b.AsDouble()))
      return false;
  } else if (a.kind == Value::Kind::Str && b.kind == Value::Kind::Str) {
    c = a.s.compare(b.s);
    c = c < 0 ? -1 : c > 0;
  } else {
    return Error(loc, "'" + op + "' is not supported between " + a.TypeName() + " and " +
                          b.TypeName());
  }
  if (op == "<")
    return c < 0;
  if (op == "<=")
    return c <= 0;
  if (op == ">")
    return c > 0;
  return c >= 0;
}

} // namespace internal

namespace {

absl::Status Assign(const Node &target, const Value &v, const ScopePtr &scope) {
  if (target.kind == Node::Kind::Name) {
    scope->vars[target.text] = v;
    return absl::OkStatus();
  }
  if (target.kind == Node::Kind::Tuple || target.kind == Node::Kind::List) {
    auto items = Iterate(v, target.loc);
    if (!items.ok())
      return items.status();
    if (items->size() != target.kids.size())
      return Error(target.loc, absl::StrCat("cannot unpack ", items->size(), " values into ",
                                            target.kids.size(), " names"));
    for (size_t k = 0; k < items->size(); ++k)
      if (absl::Status s = Assign(*target.kids[k], (*items)[k], scope); !s.ok())
        return s;
    return absl::OkStatus();
  }
  if (target.kind == Node::Kind::Subscript) {
    auto container = Eval(*target.kids[0], scope);
    if (!container.ok())
      return container.status();
    auto key = Eval(*target.kids[1], scope);
    if (!key.ok())
      return key.status();
    if (container->kind == Value::Kind::Dict) {
      for (auto &[k, x] : *container->entries)
        if (Equal(k, *key)) {
          x = v;
          return absl::OkStatus();
        }
      container->entries->push_back({*key, v});
      return absl::OkStatus();
    }
    if (container->kind == Value::Kind::List && key->IsInt()) {
      int64_t n = int64_t(container->items->size()), k = key->i < 0 ? key->i + n : key->i;
      if (k < 0 || k >= n)
        return Error(target.loc, "list index out of range");
      (*container->items)[size_t(k)] = v;
      return absl::OkStatus();
    }
    return Error(target.loc, "cannot assign to an item of " + container->TypeName());
  }
  return Error(target.loc, "cannot assign to this expression");
}

/// A user function (lambda or def) as a callable value.
Value MakeUserFunction(const std::string &name, const NodePtr &node, const ScopePtr &closure,
                       bool isLambda) {
  // Defaults are evaluated when the function is defined, as Python does; errors there are
  // reported when it is called.
  std::map<std::string, absl::StatusOr<Value>> defaults;
  for (const auto &[p, d] : node->keywords)
    defaults.emplace(p, Eval(*d, closure));
  return Value::Function(
      name, [node, closure, isLambda, name,
             defaults](const std::vector<Value> &args,
                       const std::vector<std::pair<std::string, Value>> &kwargs,
                       const Loc &loc) -> absl::StatusOr<Value> {
        // Call() counts the depth: user functions are only called through it.
        ScopePtr local = Scope::Child(closure);
        size_t next = 0;
        for (const std::string &p : node->params) {
          if (p.rfind("**", 0) == 0 || p[0] == '*') {
            std::vector<Value> rest;
            for (; next < args.size(); ++next)
              rest.push_back(args[next]);
            local->vars[p.substr(p.find_first_not_of('*'))] =
                p.rfind("**", 0) == 0 ? Value::Dict() : Value::Tuple(rest);
            continue;
          }
          if (next < args.size()) {
            local->vars[p] = args[next++];
            continue;
          }
          bool found = false;
          for (const auto &[k, v] : kwargs)
            if (k == p) {
              local->vars[p] = v;
              found = true;
            }
          if (found)
            continue;
          auto d = defaults.find(p);
          if (d == defaults.end())
            return Error(loc, name + "() missing argument '" + p + "'");
          if (!d->second.ok())
            return d->second.status();
          local->vars[p] = *d->second;
        }
        if (next < args.size())
          return Error(loc, absl::StrCat(name, "() takes ", node->params.size(),
                                         " arguments, ", args.size(), " given"));
        for (const auto &[k, v] : kwargs) {
          bool known = false;
          for (const std::string &p : node->params)
            known = known || p == k;
          if (!known)
            return Error(loc, name + "() got an unexpected keyword argument '" + k + "'");
        }
        if (isLambda)
          return Eval(*node->kids[0], local);
        return Run(node->body, local);
      });
}

struct Flow {
  bool returned = false;
  Value value;
};

absl::StatusOr<Flow> Exec(const std::vector<NodePtr> &body, const ScopePtr &scope) {
  for (const NodePtr &stmt : body) {
    const Node &s = *stmt;
    switch (s.kind) {
    case Node::Kind::ExprStmt: {
      auto v = Eval(*s.kids[0], scope);
      if (!v.ok())
        return v.status();
      break;
    }
    case Node::Kind::Assign: {
      auto v = Eval(*s.kids.back(), scope);
      if (!v.ok())
        return v.status();
      for (size_t k = 0; k + 1 < s.kids.size(); ++k)
        if (absl::Status st = Assign(*s.kids[k], *v, scope); !st.ok())
          return st;
      break;
    }
    case Node::Kind::AugAssign: {
      auto old = Eval(*s.kids[0], scope);
      if (!old.ok())
        return old.status();
      auto v = Eval(*s.kids[1], scope);
      if (!v.ok())
        return v.status();
      if (s.text == "+" && old->kind == Value::Kind::List) { // += extends the list in place
        auto items = Iterate(*v, s.loc);
        if (!items.ok())
          return items.status();
        old->items->insert(old->items->end(), items->begin(), items->end());
        break;
      }
      auto r = Arith(s.text, *old, *v, s.loc);
      if (!r.ok())
        return r.status();
      if (absl::Status st = Assign(*s.kids[0], *r, scope); !st.ok())
        return st;
      break;
    }
    case Node::Kind::If: {
      auto c = Eval(*s.kids[0], scope);
      if (!c.ok())
        return c.status();
      auto f = Exec(c->Truthy() ? s.body : s.orelse, scope);
      if (!f.ok() || f->returned)
        return f;
      break;
    }
    case Node::Kind::For: {
      auto iter = Eval(*s.kids[1], scope);
      if (!iter.ok())
        return iter.status();
      auto items = Iterate(*iter, s.kids[1]->loc);
      if (!items.ok())
        return items.status();
      for (const Value &x : *items) {
        if (absl::Status st = Step(s.loc); !st.ok())
          return st;
        if (absl::Status st = Assign(*s.kids[0], x, scope); !st.ok())
          return st;
        auto f = Exec(s.body, scope);
        if (!f.ok() || f->returned)
          return f;
      }
      break;
    }
    case Node::Kind::Return: {
      Flow f;
      f.returned = true;
      if (!s.kids.empty()) {
        auto v = Eval(*s.kids[0], scope);
        if (!v.ok())
          return v.status();
        f.value = *v;
      }
      return f;
    }
    case Node::Kind::Pass:
      break;
    case Node::Kind::Def:
      scope->vars[s.text] = MakeUserFunction(s.text, stmt, scope, false);
      break;
    case Node::Kind::Unsupported:
      return Error(s.loc, "'" + s.text + "' statements are not evaluated by tessel's reader "
                                         "of host code");
    default:
      return Error(s.loc, "not a statement");
    }
  }
  return Flow{};
}

absl::StatusOr<Value> Subscript(const Value &c, const Value &key, const Loc &loc) {
  if (c.kind == Value::Kind::Dict) {
    for (const auto &[k, v] : *c.entries)
      if (Equal(k, key))
        return v;
    return Error(loc, "key " + key.Repr() + " not found");
  }
  if ((c.kind == Value::Kind::List || c.kind == Value::Kind::Tuple ||
       c.kind == Value::Kind::Str) &&
      key.IsInt()) {
    int64_t n = c.kind == Value::Kind::Str ? int64_t(c.s.size()) : int64_t(c.items->size());
    int64_t k = key.i < 0 ? key.i + n : key.i;
    if (k < 0 || k >= n)
      return Error(loc, "index " + key.Repr() + " out of range (length " + std::to_string(n) +
                            ")");
    if (c.kind == Value::Kind::Str)
      return Value::Str(std::string(1, c.s[size_t(k)]));
    return (*c.items)[size_t(k)];
  }
  if (c.kind == Value::Kind::Object) {
    auto get = c.obj->attrs.find("__getitem__");
    if (get != c.obj->attrs.end())
      return Call(get->second, {key}, {}, loc);
  }
  return Error(loc, c.TypeName() + " cannot be indexed with " + key.Repr());
}

/// Methods of lists and dicts host code calls.
absl::StatusOr<std::optional<Value>> Method(const Value &self, const std::string &name) {
  Value s = self;
  if (self.kind == Value::Kind::List) {
    if (name == "append")
      return Value::Function("list.append", [s](const std::vector<Value> &a, const auto &,
                                                const Loc &loc) -> absl::StatusOr<Value> {
        if (a.size() != 1)
          return Error(loc, "append() takes one argument");
        if (int64_t(s.items->size()) >= kMaxItems)
          return Error(loc, "list too long");
        s.items->push_back(a[0]);
        return Value::None();
      });
    if (name == "extend")
      return Value::Function("list.extend", [s](const std::vector<Value> &a, const auto &,
                                                const Loc &loc) -> absl::StatusOr<Value> {
        if (a.size() != 1)
          return Error(loc, "extend() takes one argument");
        auto items = Iterate(a[0], loc);
        if (!items.ok())
          return items.status();
        if (int64_t(s.items->size() + items->size()) > kMaxItems)
          return Error(loc, "list too long");
        s.items->insert(s.items->end(), items->begin(), items->end());
        return Value::None();
      });
  }
  if (self.kind == Value::Kind::Dict) {
    if (name == "get")
      return Value::Function("dict.get", [s](const std::vector<Value> &a, const auto &,
                                             const Loc &loc) -> absl::StatusOr<Value> {
        if (a.empty() || a.size() > 2)
          return Error(loc, "get() takes one or two arguments");
        for (const auto &[k, v] : *s.entries)
          if (Equal(k, a[0]))
            return v;
        return a.size() == 2 ? a[1] : Value::None();
      });
    if (name == "keys" || name == "values" || name == "items")
      return Value::Function("dict." + name, [s, name](const std::vector<Value> &,
                                                       const auto &, const Loc &) {
        std::vector<Value> out;
        for (const auto &[k, v] : *s.entries)
          out.push_back(name == "keys" ? k : name == "values" ? v : Value::Tuple({k, v}));
        return absl::StatusOr<Value>(Value::List(out));
      });
  }
  return std::nullopt;
}

} // namespace

ScopePtr Scope::Child(const ScopePtr &parent) {
  auto s = std::make_shared<Scope>();
  s->parent = parent;
  return s;
}

absl::StatusOr<Value> Scope::Lookup(const std::string &name, const Loc &loc) const {
  for (const Scope *s = this; s; s = s->parent.get()) {
    auto it = s->vars.find(name);
    if (it != s->vars.end())
      return it->second;
    if (s->lazy) {
      auto v = s->lazy(name, loc);
      if (!v.ok())
        return v.status();
      if (*v)
        return **v;
    }
  }
  return Error(loc, "name '" + name + "' is not defined");
}

absl::StatusOr<Value> Eval(const Node &n, const ScopePtr &scope) {
  switch (n.kind) {
  case Node::Kind::Name:
    return scope->Lookup(n.text, n.loc);
  case Node::Kind::Int:
    return Value::Int(n.i);
  case Node::Kind::Float:
    return Value::Float(n.f);
  case Node::Kind::Str:
    return Value::Str(n.text);
  case Node::Kind::Const:
    return n.text == "None" ? Value::None() : Value::Bool(n.text == "True");
  case Node::Kind::Attribute: {
    auto base = Eval(*n.kids[0], scope);
    if (!base.ok())
      return base;
    if (base->kind == Value::Kind::Object) {
      auto it = base->obj->attrs.find(n.text);
      if (it != base->obj->attrs.end())
        return it->second;
      return Error(n.loc, base->obj->type + " has no attribute '" + n.text + "'" +
                              (base->obj->type.rfind("module ", 0) == 0
                                   ? " known to tessel's reader of host code"
                                   : ""));
    }
    auto m = Method(*base, n.text);
    if (!m.ok())
      return m.status();
    if (*m)
      return **m;
    return Error(n.loc, base->TypeName() + " has no attribute '" + n.text + "'");
  }
  case Node::Kind::Call: {
    auto fn = Eval(*n.kids[0], scope);
    if (!fn.ok())
      return fn;
    std::vector<Value> args;
    for (size_t k = 1; k < n.kids.size(); ++k) {
      if (n.kids[k]->kind == Node::Kind::Starred) {
        auto v = Eval(*n.kids[k]->kids[0], scope);
        if (!v.ok())
          return v;
        auto items = Iterate(*v, n.kids[k]->loc);
        if (!items.ok())
          return items.status();
        args.insert(args.end(), items->begin(), items->end());
        continue;
      }
      auto v = Eval(*n.kids[k], scope);
      if (!v.ok())
        return v;
      args.push_back(*v);
    }
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto &[k, e] : n.keywords) {
      auto v = Eval(*e, scope);
      if (!v.ok())
        return v;
      kwargs.push_back({k, *v});
    }
    return Call(*fn, args, kwargs, n.loc);
  }
  case Node::Kind::Subscript: {
    auto c = Eval(*n.kids[0], scope);
    if (!c.ok())
      return c;
    auto k = Eval(*n.kids[1], scope);
    if (!k.ok())
      return k;
    return Subscript(*c, *k, n.loc);
  }
  case Node::Kind::BinOp: {
    auto a = Eval(*n.kids[0], scope);
    if (!a.ok())
      return a;
    auto b = Eval(*n.kids[1], scope);
    if (!b.ok())
      return b;
    return Arith(n.text, *a, *b, n.loc);
  }
  case Node::Kind::UnaryOp: {
    auto a = Eval(*n.kids[0], scope);
    if (!a.ok())
      return a;
    if (n.text == "not")
      return Value::Bool(!a->Truthy());
    if (!a->IsNumber() || (n.text == "~" && !a->IsInt()))
      return Error(n.loc, "bad operand type for unary " + n.text + ": " + a->TypeName());
    if (n.text == "+")
      return a->kind == Value::Kind::Bool ? Value::Int(a->i) : *a;
    if (n.text == "~")
      return Value::Int(~a->i);
    if (a->kind == Value::Kind::Float)
      return Value::Float(-a->f);
    if (a->i == INT64_MIN)
      return Error(n.loc, "integer overflow in -" + a->Repr());
    return Value::Int(-a->i);
  }
  case Node::Kind::Compare: {
    auto left = Eval(*n.kids[0], scope);
    if (!left.ok())
      return left;
    for (size_t k = 0; k < n.ops.size(); ++k) {
      auto right = Eval(*n.kids[k + 1], scope);
      if (!right.ok())
        return right;
      auto c = Compare(n.ops[k], *left, *right, n.loc);
      if (!c.ok())
        return c.status();
      if (!*c)
        return Value::Bool(false);
      left = right;
    }
    return Value::Bool(true);
  }
  case Node::Kind::BoolOp: {
    Value last;
    for (const NodePtr &k : n.kids) {
      auto v = Eval(*k, scope);
      if (!v.ok())
        return v;
      last = *v;
      if (n.text == "and" ? !last.Truthy() : last.Truthy())
        return last;
    }
    return last;
  }
  case Node::Kind::IfExp: {
    auto c = Eval(*n.kids[0], scope);
    if (!c.ok())
      return c;
    return Eval(*n.kids[c->Truthy() ? 1 : 2], scope);
  }
  case Node::Kind::Tuple:
  case Node::Kind::List: {
    std::vector<Value> items;
    for (const NodePtr &k : n.kids) {
      auto v = Eval(*k, scope);
      if (!v.ok())
        return v;
      items.push_back(*v);
    }
    return n.kind == Node::Kind::Tuple ? Value::Tuple(items) : Value::List(items);
  }
  case Node::Kind::Dict: {
    std::vector<std::pair<Value, Value>> entries;
    for (size_t k = 0; k + 1 < n.kids.size(); k += 2) {
      auto key = Eval(*n.kids[k], scope);
      if (!key.ok())
        return key;
      auto v = Eval(*n.kids[k + 1], scope);
      if (!v.ok())
        return v;
      bool replaced = false;
      for (auto &[ek, ev] : entries)
        if (Equal(ek, *key)) {
          ev = *v;
          replaced = true;
        }
      if (!replaced)
        entries.push_back({*key, *v});
    }
    return Value::Dict(entries);
  }
  case Node::Kind::Lambda: {
    // The node is owned by its tree; the function keeps a copy of the lambda's node alive.
    auto self = std::make_shared<Node>(n);
    return MakeUserFunction("<lambda>", self, scope, true);
  }
  case Node::Kind::ListComp: {
    std::vector<Value> out;
    ScopePtr local = Scope::Child(scope);
    std::function<absl::Status(size_t)> clause = [&](size_t k) -> absl::Status {
      if (k == n.comps.size()) {
        if (absl::Status s = Step(n.loc); !s.ok())
          return s;
        if (int64_t(out.size()) >= kMaxItems)
          return Error(n.loc, "list too long");
        auto v = Eval(*n.kids[0], local);
        if (!v.ok())
          return v.status();
        out.push_back(*v);
        return absl::OkStatus();
      }
      const auto &[target, iter] = n.comps[k];
      if (!iter) { // `if cond`
        auto c = Eval(*target, local);
        if (!c.ok())
          return c.status();
        return c->Truthy() ? clause(k + 1) : absl::OkStatus();
      }
      auto it = Eval(*iter, local);
      if (!it.ok())
        return it.status();
      auto items = Iterate(*it, iter->loc);
      if (!items.ok())
        return items.status();
      for (const Value &x : *items) {
        if (absl::Status s = Assign(*target, x, local); !s.ok())
          return s;
        if (absl::Status s = clause(k + 1); !s.ok())
          return s;
      }
      return absl::OkStatus();
    };
    if (absl::Status s = clause(0); !s.ok())
      return s;
    return Value::List(out);
  }
  default:
    return Error(n.loc, "not an expression");
  }
}

absl::StatusOr<Value> Call(const Value &fn, const std::vector<Value> &args,
                           const std::vector<std::pair<std::string, Value>> &kwargs,
                           const Loc &loc) {
  if (fn.kind == Value::Kind::Object) {
    auto call = fn.obj->attrs.find("__call__");
    if (call != fn.obj->attrs.end())
      return Call(call->second, args, kwargs, loc);
  }
  if (fn.kind != Value::Kind::Function)
    return Error(loc, fn.TypeName() + " " + fn.Repr() + " is not callable");
  if (callDepth >= kMaxCalls)
    return Error(loc, "calls nested too deeply (recursion?)");
  CallGuard guard;
  return fn.fn->call(args, kwargs, loc);
}

absl::StatusOr<Value> Run(const std::vector<NodePtr> &body, const ScopePtr &scope) {
  if (callDepth <= 1)
    steps = 0;
  auto f = Exec(body, scope);
  if (!f.ok())
    return f.status();
  return f->value;
}

absl::StatusOr<Value> EvalText(const std::string &text, const ScopePtr &scope,
                               const std::string &file, int line, int col) {
  auto node = ParseExpression(text, file, line, col);
  if (!node.ok())
    return node.status();
  steps = 0;
  return Eval(**node, scope);
}

absl::StatusOr<Value> EvalParsed(const Node &node, const ScopePtr &scope) {
  steps = 0;
  return Eval(node, scope);
}

absl::StatusOr<int64_t> AsInt(const Value &v, const Loc &loc, const std::string &what) {
  if (v.IsInt())
    return v.i;
  if (v.kind == Value::Kind::Float && std::isfinite(v.f) && v.f == std::floor(v.f) &&
      std::fabs(v.f) < 9.2e18)
    return int64_t(v.f);
  return Error(loc, what + ": expected an integer, found " + v.TypeName() + " " + v.Repr());
}

} // namespace tessel::expr
