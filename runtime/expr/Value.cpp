//===- Value.cpp - values of tessel's small Python evaluator -===//

#include "runtime/expr/Value.h"

#include "absl/strings/str_cat.h"

#include <cmath>
#include <cstdio>

namespace tessel::expr {

Value Value::Bool(bool b) {
  Value v;
  v.kind = Kind::Bool;
  v.i = b;
  return v;
}
Value Value::Int(int64_t x) {
  Value v;
  v.kind = Kind::Int;
  v.i = x;
  return v;
}
Value Value::Float(double x) {
  Value v;
  v.kind = Kind::Float;
  v.f = x;
  return v;
}
Value Value::Str(std::string x) {
  Value v;
  v.kind = Kind::Str;
  v.s = std::move(x);
  return v;
}
Value Value::Tuple(std::vector<Value> x) {
  Value v;
  v.kind = Kind::Tuple;
  v.items = std::make_shared<std::vector<Value>>(std::move(x));
  return v;
}
Value Value::List(std::vector<Value> x) {
  Value v = Tuple(std::move(x));
  v.kind = Kind::List;
  return v;
}
Value Value::Dict(std::vector<std::pair<Value, Value>> x) {
  Value v;
  v.kind = Kind::Dict;
  v.entries = std::make_shared<std::vector<std::pair<Value, Value>>>(std::move(x));
  return v;
}
Value Value::Function(std::string name, Builtin b) {
  Value v;
  v.kind = Kind::Function;
  v.fn = std::make_shared<Callable>(Callable{std::move(name), std::move(b)});
  return v;
}
Value Value::MakeObject(std::string type, std::map<std::string, Value> attrs) {
  Value v;
  v.kind = Kind::Object;
  v.obj = std::make_shared<Object>(Object{std::move(type), std::move(attrs)});
  return v;
}

bool Value::Truthy() const {
  switch (kind) {
  case Kind::None:
    return false;
  case Kind::Bool:
  case Kind::Int:
    return i != 0;
  case Kind::Float:
    return f != 0;
  case Kind::Str:
    return !s.empty();
  case Kind::Tuple:
  case Kind::List:
    return !items->empty();
  case Kind::Dict:
    return !entries->empty();
  default:
    return true;
  }
}

const Value *Value::Get(const std::string &key) const {
  if (kind != Kind::Dict)
    return nullptr;
  for (const auto &[k, v] : *entries)
    if (k.kind == Kind::Str && k.s == key)
      return &v;
  return nullptr;
}

std::string Value::TypeName() const {
  switch (kind) {
  case Kind::None:
    return "NoneType";
  case Kind::Bool:
    return "bool";
  case Kind::Int:
    return "int";
  case Kind::Float:
    return "float";
  case Kind::Str:
    return "str";
  case Kind::Tuple:
    return "tuple";
  case Kind::List:
    return "list";
  case Kind::Dict:
    return "dict";
  case Kind::Function:
    return "function";
  case Kind::Object:
    return obj->type;
  }
  return "?";
}

std::string Value::Repr() const {
  switch (kind) {
  case Kind::None:
    return "None";
  case Kind::Bool:
    return i ? "True" : "False";
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float: {
    if (std::isinf(f))
      return f > 0 ? "inf" : "-inf";
    if (std::isnan(f))
      return "nan";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", f);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos)
      s += ".0";
    return s;
  }
  case Kind::Str: {
    std::string out = "'";
    for (char c : s) {
      if (c == '\\' || c == '\'')
        out += '\\';
      if (c == '\n')
        out += "\\n";
      else
        out += c;
    }
    return out + "'";
  }
  case Kind::Tuple:
  case Kind::List: {
    std::string out = kind == Kind::Tuple ? "(" : "[";
    for (size_t k = 0; k < items->size(); ++k)
      out += (k ? ", " : "") + (*items)[k].Repr();
    if (kind == Kind::Tuple && items->size() == 1)
      out += ",";
    return out + (kind == Kind::Tuple ? ")" : "]");
  }
  case Kind::Dict: {
    std::string out = "{";
    for (size_t k = 0; k < entries->size(); ++k)
      out += (k ? ", " : "") + (*entries)[k].first.Repr() + ": " + (*entries)[k].second.Repr();
    return out + "}";
  }
  case Kind::Function:
    return "<function " + fn->name + ">";
  case Kind::Object:
    return "<" + obj->type + ">";
  }
  return "?";
}

bool Equal(const Value &a, const Value &b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt() && b.IsInt())
      return a.i == b.i;
    return a.AsDouble() == b.AsDouble();
  }
  if (a.kind != b.kind)
    return false;
  switch (a.kind) {
  case Value::Kind::None:
    return true;
  case Value::Kind::Str:
    return a.s == b.s;
  case Value::Kind::Tuple:
  case Value::Kind::List:
    if (a.items->size() != b.items->size())
      return false;
    for (size_t k = 0; k < a.items->size(); ++k)
      if (!Equal((*a.items)[k], (*b.items)[k]))
        return false;
    return true;
  case Value::Kind::Dict:
    return a.entries == b.entries;
  case Value::Kind::Function:
    return a.fn == b.fn;
  case Value::Kind::Object:
    return a.obj == b.obj;
  default:
    return false;
  }
}

} // namespace tessel::expr
