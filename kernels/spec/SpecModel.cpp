//===- SpecModel.cpp - a spec kernel's model: bound values, constexprs, grid -===//

#include "kernels/spec/SpecModel.h"

#include "kernels/ProblemData.h"

#include "absl/strings/str_cat.h"

#include <cmath>
#include <limits>

#include <unistd.h>

namespace tessel::spec::model {

absl::Status Error(const Loc &loc, const std::string &message) {
  return absl::InvalidArgumentError(absl::StrCat(loc.Text(), ": error: ", message));
}

bool Has(const std::vector<std::string> &names, const std::string &name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

double PhysicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? double(pages) * double(size) : 0;
}

/// The bytes of one element of a dtype the spec reader admitted.
size_t DtypeBytes(const std::string &d) { return zoo::ElementBytes(*zoo::ParseElementType(d)); }

/// Triton's pointer spelling of a dtype: f32 -> fp32, bf16 -> bf16, i8 -> i8.
std::string TritonType(const std::string &d) {
  if (d == "f32" || d == "f16" || d == "f64")
    return "fp" + d.substr(1);
  return d;
}

/// Default relative tolerances against the reference configuration's outputs: one rounding
/// of the output type (bf16 2^-8, f16 2^-11) with room for a different summation order, tf32
/// products for f32 dots; integers exact.
double DefaultTolerance(const std::string &d) {
  if (d == "bf16")
    return 2e-2;
  if (d == "f16")
    return 5e-3;
  if (d == "f32")
    return 2e-3;
  if (d == "f64")
    return 1e-9;
  return 0;
}

/// The element type of a tensor argument for the swept `dtype`.
std::string ElementType(const ArgSpec &a, const std::string &dtype) {
  return a.dtype == "{dtype}" ? dtype : a.dtype;
}

/// A tensor argument's value in expressions, with row-major strides (in elements).
Value TensorValue(const std::vector<int64_t> &shape, const std::string &dtype) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = stride;
    stride *= std::max<int64_t>(1, shape[k]);
  }
  return expr::TensorValue(shape, strides, dtype, int64_t(DtypeBytes(dtype)));
}



/// `allocatable`: tensors past 2^40 elements are an error (they are about to be allocated);
/// false for counting bytes and FLOPs, where a huge shape is a huge number.
absl::StatusOr<Bound> Bind(const SpecData &data, const expr::ScopePtr &base,
                           const zoo::Shape &shape, const std::string &dtype,
                           bool allocatable) {
  Bound b;
  b.scope = expr::Scope::Child(base);
  for (const auto &[d, v] : shape)
    b.scope->vars[d] = Value::Int(v);
  b.scope->vars["stride"] = Value::Function(
      "stride", [](const std::vector<Value> &a, const auto &,
                   const Loc &loc) -> absl::StatusOr<Value> {
        if (a.size() != 2 || a[0].kind != Value::Kind::Object || a[0].obj->type != "tensor")
          return Error(loc, "stride(TENSOR, DIM) takes a tensor argument and a dimension");
        return expr::Call(a[0].obj->attrs.at("stride"), {a[1]}, {}, loc);
      });
  // Tensors first (scalars may read their strides), then scalars in order.
  b.tensorShapes.resize(data.args.size());
  b.scalars.resize(data.args.size());
  for (size_t i = 0; i < data.args.size(); ++i) {
    const ArgSpec &a = data.args[i];
    if (!a.tensor)
      continue;
    int64_t numel = 1;
    for (const expr::NodePtr &e : a.shape) {
      absl::StatusOr<Value> v = expr::Eval(*e, b.scope);
      if (!v.ok())
        return v.status();
      absl::StatusOr<int64_t> n = expr::AsInt(*v, e->loc, "a tensor dimension");
      if (!n.ok())
        return n.status();
      if (*n < 0 || __builtin_mul_overflow(numel, std::max<int64_t>(*n, 1), &numel) ||
          (allocatable && numel > (int64_t(1) << 40)))
        return Error(e->loc, "tensor '" + a.name + "' would have " +
                                 (*n < 0 ? "a negative dimension" : "more than 2^40 elements"));
      b.tensorShapes[i].push_back(*n);
    }
    b.scope->vars[a.name] = TensorValue(b.tensorShapes[i], ElementType(a, dtype));
  }
  for (size_t i = 0; i < data.args.size(); ++i) {
    const ArgSpec &a = data.args[i];
    if (a.tensor)
      continue;
    absl::StatusOr<Value> v = expr::Eval(*a.value, b.scope);
    if (!v.ok())
      return v.status();
    bool baked = a.constexpr_;
    for (const KernelParam &p : data.file->params())
      baked = baked || (p.name == a.name && p.isConstexpr);
    // A constexpr may be any literal (a string such as an activation's name, None); a value
    // passed at launch is a number.
    bool literal = v->IsNumber() || (baked && (v->kind == Value::Kind::Str ||
                                               v->kind == Value::Kind::None));
    if (!literal)
      return Error(a.value->loc, "argument '" + a.name + "' is " + v->Repr() + ", not a number" +
                                     (baked ? " or string" : ""));
    // Passed at launch as its declared type (i32 unless the spec says): a value past it is
    // the spec's error, not a silent wrap.
    std::string type = a.type.empty() ? "i32" : a.type;
    if (!baked && a.type.empty() && !v->IsInt())
      return Error(a.value->loc, "argument '" + a.name + "' is " + v->Repr() +
                                     ": a float passed at launch needs type = \"fp32\" or "
                                     "\"fp64\"");
    if (!baked && v->IsInt() && type == "i32" &&
        (v->i < std::numeric_limits<int32_t>::min() || v->i > std::numeric_limits<int32_t>::max()))
      return Error(a.value->loc, "argument '" + a.name + "' is " + v->Repr() +
                                     ", past i32: give it type = \"i64\"");
    if (!baked && !v->IsInt() && (type == "i32" || type == "i64"))
      return Error(a.value->loc, "argument '" + a.name + "' is " + v->Repr() + ", not an " + type);
    if (a.divisible && (!v->IsInt() || v->i % a.divisible != 0))
      return Error(a.value->loc, "argument '" + a.name + "' is " + v->Repr() +
                                     ", which the spec promises divisible by 16");
    b.scalars[i] = *v;
    b.scope->vars[a.name] = *v;
  }
  return b;
}

/// The value of a constexpr as the frontend reads it, a Python literal: "128", "True",
/// "1.5", "'leaky_relu'".
std::string ConstexprText(const Value &v) { return v.Repr(); }

absl::StatusOr<std::map<std::string, std::string>> Model::Constexprs(const zoo::Point &point, const zoo::Shape &shape, const std::string &dtype, std::map<std::string, Value> *values) const {
  // The kernel file's module scope binds names as they are first used: one evaluation at a
  // time (the builder asks for constexprs from several threads).
  std::lock_guard<std::recursive_mutex> lock(mutex);
  absl::StatusOr<Bound> b = Bind(*data, base, shape, dtype, /*allocatable=*/false);
  if (!b.ok())
    return b.status();
  std::map<std::string, std::string> out;
  std::map<std::string, Value> seen;
  for (const auto &[name, v] : point)
    if (name.rfind("knob.", 0) != 0) {
      out[name] = std::to_string(v);
      seen[name] = Value::Int(v);
    }
  for (size_t i = 0; i < data->args.size(); ++i) {
    const ArgSpec &a = data->args[i];
    bool isConstexpr = a.constexpr_;
    for (const KernelParam &p : data->file->params())
      isConstexpr = isConstexpr || (p.name == a.name && p.isConstexpr);
    if (!a.tensor && isConstexpr) {
      out[a.name] = ConstexprText(b->scalars[i]);
      seen[a.name] = b->scalars[i];
    }
  }
  // The arguments dict Triton's heuristics see: every argument and the meta-parameters.
  std::vector<std::pair<Value, Value>> dict;
  for (size_t i = 0; i < data->args.size(); ++i)
    dict.push_back({Value::Str(data->args[i].name),
                    data->args[i].tensor ? b->scope->vars.at(data->args[i].name)
                                         : b->scalars[i]});
  for (const auto &[k, v] : seen)
    dict.push_back({Value::Str(k), v});
  Value args = Value::Dict(dict);
  for (const auto &[name, fn] : heuristics) {
    absl::StatusOr<Value> v = expr::Call(fn, {args}, {}, data->file->entryLoc());
    if (!v.ok())
      return v.status();
    if (!v->IsNumber() && v->kind != Value::Kind::Str)
      return Error(data->file->entryLoc(), "heuristic '" + name + "' gave " + v->Repr() +
                                               ", not a number or bool");
    out[name] = ConstexprText(*v);
    seen[name] = *v;
    args.entries->push_back({Value::Str(name), *v});
  }
  if (values)
    *values = seen;
  return out;
}

absl::StatusOr<runtime::Grid> Model::Grid(const zoo::Point &config, const zoo::Shape &shape, const std::string &dtype) const {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  absl::StatusOr<Bound> bound = Bind(*data, base, shape, dtype);
  if (!bound.ok())
    return bound.status();
  std::map<std::string, Value> values;
  absl::StatusOr<std::map<std::string, std::string>> c =
      Constexprs(config, shape, dtype, &values);
  if (!c.ok())
    return c.status();
  expr::ScopePtr scope = expr::Scope::Child(bound->scope);
  std::vector<std::pair<Value, Value>> meta;
  for (const auto &[k, v] : values) {
    scope->vars[k] = v;
    meta.push_back({Value::Str(k), v});
  }
  for (const char *name : {"META", "meta"})
    scope->vars[name] = Value::Dict(meta);
  const expr::Node &grid = *data->grid;
  absl::StatusOr<Value> g = expr::Eval(grid, scope);
  if (!g.ok())
    return g.status();
  absl::StatusOr<std::array<int32_t, 3>> xyz =
      expr::GridOf(*g, Value::Dict(meta), grid.loc, /*least=*/1);
  if (!xyz.ok())
    return absl::InvalidArgumentError(std::string(xyz.status().message()) + " (at " +
                                      zoo::ShapeText(shape) + ")");
  return runtime::Grid{(*xyz)[0], (*xyz)[1], (*xyz)[2]};
}

} // namespace tessel::spec::model
