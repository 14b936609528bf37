//===- SpecKernel.cpp - a kernel spec as a zoo kernel: space, constexprs, problems -===//

#include "kernels/ProblemData.h"
#include "kernels/spec/SpecData.h"

#include "runtime/expr/Eval.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <set>

#include <unistd.h>

namespace tessel::spec {

using expr::Loc;
using expr::Value;

namespace {

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

/// Everything of one (shape, dtype) expressions see: the dims, each tensor (shape, strides),
/// each scalar argument's value, and stride(t, i).
struct Bound {
  expr::ScopePtr scope;
  std::vector<std::vector<int64_t>> tensorShapes; ///< per argument (empty for scalars)
  std::vector<Value> scalars;                     ///< per argument (None for tensors)
};

/// `allocatable`: tensors past 2^40 elements are an error (they are about to be allocated);
/// false for counting bytes and FLOPs, where a huge shape is a huge number.
absl::StatusOr<Bound> Bind(const SpecData &data, const expr::ScopePtr &base,
                           const zoo::Shape &shape, const std::string &dtype,
                           bool allocatable = true) {
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

/// What MakeKernel knows about the kernel for one target, shared by its functions.
struct Model {
  std::shared_ptr<const SpecData> data;
  Target target;
  std::vector<std::pair<std::string, Value>> heuristics;
  std::set<std::string> metaParams; ///< the space's non-knob parameters
  std::map<std::string, double> tolerance;
  /// Python's built-ins and the target's `triton` and `torch`: what expressions see first.
  expr::ScopePtr base;
  /// The C++ reference that checks runs, or none (then a reference configuration does).
  zoo::Reference reference;
  /// Serializes evaluation (see Constexprs).
  mutable std::recursive_mutex mutex;

  /// The constexprs of `point` at `shape` (config meta-parameters, constexpr arguments,
  /// heuristics in order, each seeing the ones before, as Triton's heuristics do).
  absl::StatusOr<std::map<std::string, std::string>>
  Constexprs(const zoo::Point &point, const zoo::Shape &shape, const std::string &dtype,
             std::map<std::string, Value> *values = nullptr) const {
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

  /// The launch grid of `config` at `shape`: the spec's grid expression (or a lambda of
  /// META, as Triton users write grids) over the dims, arguments and meta-parameters.
  absl::StatusOr<runtime::Grid> Grid(const zoo::Point &config, const zoo::Shape &shape,
                                     const std::string &dtype) const {
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
};

/// One problem of a spec kernel: fresh inputs as the spec says, outputs poisoned, and a check
/// against the outputs of the reference configuration, run first on the same inputs.
class SpecProblem : public zoo::Problem {
public:
  static absl::StatusOr<std::unique_ptr<zoo::Problem>>
  Make(std::shared_ptr<const Model> model, const zoo::Shape &shape, const std::string &dtype,
       uint64_t seed) {
    std::unique_ptr<SpecProblem> p(new SpecProblem());
    p->model_ = model;
    p->shape_ = shape;
    p->dtype_ = dtype;
    p->seed_ = seed;
    const SpecData &data = *model->data;
    absl::StatusOr<Bound> b = Bind(data, model->base, shape, dtype);
    if (!b.ok())
      return b.status();
    p->bound_ = *b;
    std::mt19937_64 gen(seed);
    p->tensors_.resize(data.args.size());
    for (size_t i = 0; i < data.args.size(); ++i) {
      const ArgSpec &a = data.args[i];
      if (!a.tensor)
        continue;
      Tensor &t = p->tensors_[i];
      t.SetType(ElementType(a, dtype));
      t.shape = b->tensorShapes[i];
      t.role = a.role;
      int64_t n = 1;
      for (int64_t d : b->tensorShapes[i])
        n *= d;
      t.count = size_t(n);
      t.bytes.assign(std::max<size_t>(1, t.count) * DtypeBytes(t.dtype), 0);
      for (size_t k = 0; k < t.count; ++k) {
        double x = 0;
        const std::vector<double> &q = a.initArgs;
        if (a.init == "normal")
          x = std::normal_distribution<double>(q[0], q[1])(gen);
        else if (a.init == "uniform")
          x = std::uniform_real_distribution<double>(q[0], q[1])(gen);
        else if (a.init == "randint")
          x = double(std::uniform_int_distribution<int64_t>(int64_t(std::ceil(q[0])),
                                                            int64_t(std::ceil(q[1])) - 1)(gen));
        else if (a.init == "ones")
          x = 1;
        else if (a.init == "const")
          x = q[0];
        t.Set(k, x);
      }
      if (t.role == ArgSpec::Role::InOut)
        t.initial = t.bytes;
    }
    return std::unique_ptr<zoo::Problem>(std::move(p));
  }

  absl::StatusOr<runtime::Grid> GridFor(const zoo::Point &config) const override {
    return model_->Grid(config, shape_, dtype_);
  }

  void Poison() override {
    for (Tensor &t : tensors_) {
      if (t.role == ArgSpec::Role::InOut)
        t.bytes = t.initial; // its initial values again
      else if (t.role == ArgSpec::Role::Out)
        for (size_t k = 0; k < t.count; ++k)
          t.Poison(k);
    }
  }

  bool NeedsReference() const override { return !model_->reference; }

  absl::Status KeepAsReference() override {
    expected_.clear();
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const Tensor &t = tensors_[i];
      if (t.count == 0 || t.role == ArgSpec::Role::In)
        continue;
      for (size_t k = 0; k < t.count; ++k)
        if (t.Unwritten(k))
          return absl::FailedPreconditionError(
              "the reference configuration left " + model_->data->args[i].name + "[" +
              std::to_string(k) + "] unwritten (or not finite): it cannot check candidates");
      expected_[i] = t.bytes;
    }
    return absl::OkStatus();
  }

  absl::Status Check() const override {
    if (model_->reference) {
      zoo::Tensors views;
      for (size_t i = 0; i < tensors_.size(); ++i)
        if (model_->data->args[i].tensor)
          views[model_->data->args[i].name] = tensors_[i].View();
      return model_->reference(views, shape_, dtype_, seed_);
    }
    if (expected_.empty() && HasOutputs())
      return absl::FailedPreconditionError("no reference outputs to check against (run the "
                                           "reference configuration first)");
    for (const auto &[i, want] : expected_) {
      const Tensor &t = tensors_[i];
      const uint8_t *w = want.data();
      double sumSquares = 0;
      for (size_t k = 0; k < t.count; ++k)
        sumSquares += t.GetAt(w, k) * t.GetAt(w, k);
      double rms = t.count ? std::sqrt(sumSquares / double(t.count)) : 0;
      auto tol = model_->tolerance.find(t.dtype);
      double rel = tol != model_->tolerance.end() ? tol->second : DefaultTolerance(t.dtype);
      const std::string &name = model_->data->args[i].name;
      for (size_t k = 0; k < t.count; ++k) {
        double got = t.Get(k), x = t.GetAt(w, k);
        if (!t.isFloat) {
          if (std::memcmp(&t.bytes[k * t.width], &want[k * t.width], t.width) != 0)
            return zoo::mismatch(name, k, got, x);
          continue;
        }
        if (!(std::fabs(got - x) <= rel * (std::fabs(x) + rms)))
          return zoo::mismatch(name, k, got, x);
      }
    }
    return absl::OkStatus();
  }

protected:
  std::vector<runtime::Arg> HostArgs() override {
    std::vector<runtime::Arg> out;
    const SpecData &data = *model_->data;
    for (size_t i = 0; i < data.args.size(); ++i) {
      const ArgSpec &a = data.args[i];
      if (a.tensor) {
        out.push_back(static_cast<void *>(tensors_[i].bytes.data()));
        continue;
      }
      if (IsBaked(a))
        continue;
      const Value &v = bound_.scalars[i];
      std::string type = ScalarType(a, v);
      if (type == "i32")
        out.push_back(int32_t(v.i));
      else if (type == "i64")
        out.push_back(int64_t(v.i));
      else if (type == "fp32")
        out.push_back(float(v.AsDouble()));
      else
        out.push_back(v.AsDouble());
    }
    return out;
  }
  std::vector<HostBuffer> Buffers() override {
    std::vector<HostBuffer> out;
    for (Tensor &t : tensors_)
      if (!t.bytes.empty())
        out.push_back({t.bytes.data(), t.bytes.size(), t.role != ArgSpec::Role::In});
    return out;
  }

public:
  /// The type a scalar is passed as: the spec's, else i32 for an integer (Bind refuses one past
  /// i32's range), fp32 for a float.
  static std::string ScalarType(const ArgSpec &a, const Value &v) {
    if (!a.type.empty())
      return a.type;
    return "i32"; // Bind refuses an untyped float
  }
  bool IsBaked(const ArgSpec &a) const {
    if (a.constexpr_)
      return true;
    for (const KernelParam &p : model_->data->file->params())
      if (p.name == a.name && p.isConstexpr)
        return true;
    return false;
  }

private:
  /// A tensor argument's host data. Its element type is decoded once: Get and Set run per
  /// element over hundreds of millions of them.
  struct Tensor {
    std::string dtype;
    zoo::ElementType type = zoo::ElementType::F32;
    size_t width = 4;
    bool isFloat = true;
    ArgSpec::Role role = ArgSpec::Role::In;
    std::vector<int64_t> shape;
    size_t count = 0;
    std::vector<uint8_t> bytes, initial;
    void SetType(const std::string &d) {
      dtype = d;
      type = *zoo::ParseElementType(d); // the spec reader admits only these
      width = zoo::ElementBytes(type);
      isFloat = zoo::IsFloat(type);
    }
    double Get(size_t k) const { return GetAt(bytes.data(), k); }
    /// Element `k` of data laid out as this tensor's (its reference's copy).
    double GetAt(const uint8_t *data, size_t k) const { return zoo::Decode(type, data + k * width); }
    void Set(size_t k, double x) { zoo::Encode(type, x, &bytes[k * width]); }
    /// NaN for floats; for integers a byte pattern (0xA5...) a kernel is unlikely to write.
    void Poison(size_t k) {
      if (isFloat)
        Set(k, std::nan(""));
      else
        std::memset(&bytes[k * width], 0xA5, width);
    }
    bool Unwritten(size_t k) const {
      if (isFloat)
        return !std::isfinite(Get(k));
      if (role != ArgSpec::Role::Out)
        return false;
      for (size_t b = 0; b < width; ++b)
        if (bytes[k * width + b] != 0xA5)
          return false;
      return true;
    }
    zoo::HostTensor View() const {
      return zoo::HostTensor{dtype, type, shape, count, bytes.data()};
    }
  };
  bool HasOutputs() const {
    for (const Tensor &t : tensors_)
      if (t.count && t.role != ArgSpec::Role::In)
        return true;
    return false;
  }

  SpecProblem() = default;
  std::shared_ptr<const Model> model_;
  zoo::Shape shape_;
  std::string dtype_;
  uint64_t seed_ = 0;
  Bound bound_;
  std::vector<Tensor> tensors_;
  std::map<size_t, std::vector<uint8_t>> expected_;
};

/// The expressions of a tensor's shape as written ("M, K" -> ["M", "K"]): split at the commas
/// outside brackets.
std::vector<std::string> SplitDims(const std::string &text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    if (c == ')' || c == ']' || c == '}')
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  for (std::string &s : out) {
    size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
    s = a == std::string::npos ? "" : s.substr(a, b - a + 1);
  }
  if (!out.empty() && out.back().empty())
    out.pop_back();
  return out;
}

/// The launch contract of a spec's kernel (Kernel::launchJson).
nlohmann::json LaunchContract(const SpecData &data, const std::vector<std::string> &dispatch) {
  nlohmann::json args = nlohmann::json::array();
  for (const KernelParam &p : data.file->params()) {
    const ArgSpec *a = nullptr;
    for (const ArgSpec &x : data.args)
      if (x.name == p.name)
        a = &x;
    nlohmann::json j = {{"name", p.name}};
    if (!a) {
      j["kind"] = "meta"; // a configuration's meta-parameter, a heuristic's, or its default
    } else if (a->tensor) {
      static const char *const kRoles[] = {"in", "out", "inout"};
      j["kind"] = "tensor";
      j["dtype"] = a->dtype;
      j["shape"] = SplitDims(a->shapeText);
      j["role"] = kRoles[int(a->role)];
    } else if (a->constexpr_ || p.isConstexpr) {
      j["kind"] = "constexpr";
      j["value"] = a->valueText;
    } else {
      j["kind"] = "scalar";
      j["type"] = a->type.empty() ? "i32" : a->type;
      j["value"] = a->valueText;
      if (a->divisible)
        j["divisible"] = a->divisible;
    }
    args.push_back(j);
  }
  return {{"dims", data.dims},
          {"dispatch", dispatch.empty() ? data.dims : dispatch},
          {"grid", data.gridText},
          {"args", args}};
}

/// `params` in the canonical order: the kernel's parameters in its signature's order, then
/// the knobs in the order the backend declares them (what Enumerate's order follows).
void CanonicalOrder(std::vector<std::pair<std::string, std::vector<int64_t>>> &params,
                    const SpecData &data, const std::vector<std::string> &knobs) {
  auto rank = [&](const std::string &name) -> size_t {
    const std::vector<KernelParam> &ps = data.file->params();
    for (size_t i = 0; i < ps.size(); ++i)
      if (ps[i].name == name)
        return i;
    if (name.rfind("knob.", 0) == 0)
      for (size_t i = 0; i < knobs.size(); ++i)
        if (knobs[i] == name.substr(5))
          return ps.size() + i;
    return ps.size() + knobs.size();
  };
  std::stable_sort(params.begin(), params.end(),
                   [&](const auto &a, const auto &b) { return rank(a.first) < rank(b.first); });
}

/// The spec's space for one target kind: its parameters (a knob of the target as "knob.X"),
/// and its constraints over them and the target's features.
absl::StatusOr<autotune::Space> SpaceFromSpec(const SpaceSpec &s, const SpecData &data,
                                              const Target &target,
                                              const std::vector<std::string> &knobs) {
  autotune::Space space;
  for (const auto &[name, values] : s.params) {
    bool isParam = false;
    for (const KernelParam &p : data.file->params())
      isParam = isParam || (p.name == name && p.isConstexpr);
    if (isParam) {
      space.params.push_back({name, values});
    } else if (Has(knobs, name)) {
      space.params.push_back({"knob." + name, values});
    } else if (name.rfind("knob.", 0) == 0 && Has(knobs, name.substr(5))) {
      space.params.push_back({name, values});
    } else {
      return Error(s.loc, "space parameter '" + name + "' is neither a tl.constexpr parameter "
                          "of " + data.entry + " nor a knob of the " + target.str() +
                          " backend (" + absl::StrJoin(knobs, ", ") + ")");
    }
  }
  CanonicalOrder(space.params, data, knobs);
  // Constraints see the parameters by their names (knobs without "knob."), get(NAME, DEFAULT)
  // for one a target may lack (rocm has no num_stages), and the target: warp_size, is_cpu,
  // is_cuda, is_rocm.
  for (const expr::NodePtr &c : s.constraints) {
    Target t = target;
    space.constraints.push_back([c, t](const zoo::Point &p) -> std::string {
      expr::ScopePtr scope = expr::Scope::Child(expr::Builtins());
      for (const auto &[k, v] : p)
        scope->vars[k.rfind("knob.", 0) == 0 ? k.substr(5) : k] = Value::Int(v);
      scope->vars["is_cpu"] = Value::Bool(t.kind == TargetKind::Cpu);
      scope->vars["is_cuda"] = Value::Bool(t.kind == TargetKind::Cuda);
      scope->vars["is_rocm"] = Value::Bool(t.kind == TargetKind::Rocm);
      scope->vars["warp_size"] = Value::Int(t.kind == TargetKind::Rocm ? 64 : 32);
      std::map<std::string, Value> params;
      for (const auto &[k, v] : p)
        params[k.rfind("knob.", 0) == 0 ? k.substr(5) : k] = Value::Int(v);
      scope->vars["get"] = Value::Function(
          "get", [params](const std::vector<Value> &a, const auto &,
                          const Loc &loc) -> absl::StatusOr<Value> {
            if (a.size() != 2 || a[0].kind != Value::Kind::Str)
              return Error(loc, "get(NAME, DEFAULT) takes a parameter's name and a default");
            auto it = params.find(a[0].s);
            return it == params.end() ? a[1] : it->second;
          });
      absl::StatusOr<Value> v = expr::Eval(*c, scope);
      if (!v.ok())
        return std::string(v.status().message());
      return v->Truthy() ? "" : "breaks " + c->loc.Text();
    });
  }
  return space;
}

} // namespace

absl::StatusOr<zoo::Kernel> MakeKernel(std::shared_ptr<const SpecData> data,
                                       const Target &target, const std::vector<std::string> &knobs,
                                       std::vector<std::string> *notes,
                                       const zoo::References *references) {
  const std::string kind = target.kind == TargetKind::Cpu ? "cpu" : "gpu";
  auto model = std::make_shared<Model>();
  model->data = data;
  model->target = target;
  model->tolerance = data->tolerance;
  model->base = TargetModules(target);
  if (!data->reference.empty()) {
    auto it = references ? references->find(data->reference) : zoo::References::const_iterator();
    if (!references || it == references->end())
      return Error(data->referenceLoc, "no C++ reference named '" + data->reference + "'" +
                                           (references ? "" : " (only the zoo's specs have them)"));
    model->reference = it->second;
  }
  absl::StatusOr<Decorators> decorators = data->file->Evaluate(target);
  if (!decorators.ok())
    return decorators.status();
  model->heuristics = decorators->heuristics;

  zoo::TargetSpec ts;
  ts.dtypes = data->dtypes.count(kind) ? data->dtypes.at(kind) : std::vector<std::string>{};
  auto shapes = data->shapes.find(kind);
  if (shapes == data->shapes.end() || !shapes->second.count("default"))
    return Error(Loc{data->path, 1, 1}, "the spec has no default shapes for " + kind +
                                            " targets ([shapes." + kind + "] default = ...)");
  for (const auto &[set, list] : shapes->second) {
    if (set == "default")
      ts.defaultShapes = list;
    else if (set == "large")
      ts.largeShapes = list;
    else
      return Error(Loc{data->path, 1, 1}, "shape set '" + set + "' in [shapes." + kind +
                                              "]: the sets are default and large");
  }

  // The space: the spec's, else the file's @triton.autotune configs, else one point.
  std::set<std::string> dropped;
  if (auto s = data->spaces.find(kind); s != data->spaces.end()) {
    absl::StatusOr<autotune::Space> space = SpaceFromSpec(s->second, *data, target, knobs);
    if (!space.ok())
      return space.status();
    ts.space = *space;
  } else if (decorators->autotuned) {
    std::vector<zoo::Point> points;
    std::set<std::string> names;
    for (const TritonConfig &c : decorators->configs) {
      zoo::Point p;
      auto add = [&](const std::string &name, const Value &v) -> absl::Status {
        bool isParam = false;
        for (const KernelParam &q : data->file->params())
          isParam = isParam || q.name == name;
        std::string key = isParam ? name : Has(knobs, name) ? "knob." + name : "";
        if (key.empty()) {
          dropped.insert(name);
          return absl::OkStatus();
        }
        if (!v.IsInt())
          return Error(c.loc, "triton.Config's " + name + " is " + v.Repr() +
                                  ": tessel tunes integer (or bool) values");
        p[key] = v.i;
        return absl::OkStatus();
      };
      for (const auto &[name, v] : c.kwargs)
        if (absl::Status s = add(name, v); !s.ok())
          return s;
      for (const auto &[name, v] : c.options)
        if (absl::Status s = add(name, v); !s.ok())
          return s;
      if (std::find(points.begin(), points.end(), p) == points.end())
        points.push_back(p); // configs differing only in dropped options: measured once
      for (const auto &[k, v] : p)
        names.insert(k);
    }
    // The configs as a space: each parameter's values, and a constraint admitting exactly
    // the listed points (in their order, as Enumerate's order is the parameters').
    for (const std::string &n : names) {
      std::vector<int64_t> values;
      for (const zoo::Point &p : points) {
        if (!p.count(n))
          return Error(decorators->autotuneLoc,
                       "the configs do not all set " + n + ": give every config the same keys");
        if (std::find(values.begin(), values.end(), p.at(n)) == values.end())
          values.push_back(p.at(n));
      }
      ts.space.params.push_back({n, values});
    }
    CanonicalOrder(ts.space.params, *data, knobs);
    ts.space.constraints.push_back([points](const zoo::Point &p) -> std::string {
      return std::find(points.begin(), points.end(), p) != points.end()
                 ? ""
                 : "not one of the kernel's triton.Config points";
    });
  }
  if (notes)
    for (const std::string &d : dropped)
      notes->push_back(data->path + ": " + data->sourcePath + "'s configs set '" + d +
                       "', which the " + target.str() + " backend does not have: dropped");
  for (const auto &[name, values] : ts.space.params)
    if (name.rfind("knob.", 0) != 0)
      model->metaParams.insert(name);

  // Every parameter of the kernel is given: by the spec's args, the space, a heuristic or
  // its default.
  for (const KernelParam &p : data->file->params()) {
    bool given = model->metaParams.count(p.name) || p.hasDefault;
    for (const ArgSpec &a : data->args)
      given = given || a.name == p.name;
    for (const auto &[h, fn] : decorators->heuristics)
      given = given || h == p.name;
    if (!given)
      return Error(Loc{data->path, 1, 1},
                   "the kernel's argument '" + p.name + "' (" + p.loc.Text() +
                       ") is given neither by [args] nor by a config or heuristic");
  }
  for (const ArgSpec &a : data->args)
    if (model->metaParams.count(a.name))
      return Error(a.loc, "'" + a.name + "' is a parameter of the configuration space: it is "
                                         "not also an argument in [args]");

  zoo::Kernel k;
  k.name = data->name;
  k.source = data->sourcePath;
  k.entry = data->entry;
  k.dims = data->dims;
  k.specPath = data->path;
  k.checkAgainstConfig = !model->reference;
  k.specSha256 = data->sha256;
  k.sourceSha256 = data->sourceSha256;
  for (const std::string &key : decorators->key) {
    // A key names arguments; the bundle dispatches on the dims they are.
    bool found = false;
    for (const ArgSpec &a : data->args)
      if (a.name == key && !a.tensor && a.value->kind == expr::Node::Kind::Name &&
          std::find(data->dims.begin(), data->dims.end(), a.value->text) != data->dims.end()) {
        k.dispatchDims.push_back(a.value->text);
        found = true;
      }
    if (!found && std::find(data->dims.begin(), data->dims.end(), key) != data->dims.end()) {
      k.dispatchDims.push_back(key);
      found = true;
    }
    if (!found && notes)
      notes->push_back(data->path + ": autotune key '" + key +
                       "' is not an argument equal to one of the dims: not dispatched on");
  }
  k.launchJson = LaunchContract(*data, k.dispatchDims).dump();
  (target.kind == TargetKind::Cpu ? k.cpu : k.gpu) = ts;
  k.signature = [data](const std::string &dtype) {
    std::vector<std::string> parts;
    for (const ArgSpec &a : data->args) {
      bool baked = a.constexpr_;
      for (const KernelParam &p : data->file->params())
        baked = baked || (p.name == a.name && p.isConstexpr);
      if (baked)
        continue;
      if (a.tensor) {
        parts.push_back("*" + TritonType(ElementType(a, dtype)) + ":16");
      } else {
        std::string type = a.type.empty() ? "i32" : a.type;
        parts.push_back(type + (a.divisible ? ":16" : ""));
      }
    }
    return absl::StrJoin(parts, ",");
  };
  std::shared_ptr<const Model> shared = model;
  k.constexprs = [shared](const zoo::Point &p, const zoo::Shape &s) {
    // Dtype-independent by construction: heuristics see tensors' shapes, and the dtype only
    // as a string no zoo heuristic reads; the first dtype stands in.
    const std::vector<std::string> &dtypes =
        shared->target.kind == TargetKind::Cpu ? shared->data->dtypes.at("cpu")
                                               : shared->data->dtypes.at("gpu");
    absl::StatusOr<std::map<std::string, std::string>> c =
        shared->Constexprs(p, s, dtypes.empty() ? "f32" : dtypes[0]);
    return c.ok() ? *c : std::map<std::string, std::string>{{"<error>", std::string(c.status().message())}};
  };
  k.flops = [shared](const zoo::Shape &s) -> double {
    std::lock_guard<std::recursive_mutex> lock(shared->mutex);
    if (!shared->data->flops)
      return 0;
    absl::StatusOr<Bound> b = Bind(*shared->data, shared->base, s, "f32", false);
    if (!b.ok())
      return std::nan("");
    absl::StatusOr<Value> v = expr::Eval(*shared->data->flops, b->scope);
    return v.ok() && v->IsNumber() ? v->AsDouble() : std::nan("");
  };
  k.bytes = [shared](const zoo::Shape &s, const std::string &dtype) -> double {
    std::lock_guard<std::recursive_mutex> lock(shared->mutex);
    absl::StatusOr<Bound> b = Bind(*shared->data, shared->base, s, dtype, false);
    if (!b.ok())
      return std::nan("");
    if (shared->data->bytes) {
      absl::StatusOr<Value> v = expr::Eval(*shared->data->bytes, b->scope);
      return v.ok() && v->IsNumber() ? v->AsDouble() : std::nan("");
    }
    double total = 0;
    for (size_t i = 0; i < shared->data->args.size(); ++i) {
      double n = 1;
      for (int64_t d : b->tensorShapes[i])
        n *= double(d);
      if (shared->data->args[i].tensor)
        total += n * double(DtypeBytes(ElementType(shared->data->args[i], dtype)));
    }
    return total;
  };
  k.flopBound = data->baseline == "gemm";
  k.noBaseline = data->baseline == "none";
  if (data->baseline == "gemm")
    k.gemmDims = [shared](const zoo::Shape &s) -> std::array<int64_t, 3> {
      std::lock_guard<std::recursive_mutex> lock(shared->mutex);
      absl::StatusOr<Bound> b = Bind(*shared->data, shared->base, s, "f32", false);
      std::array<int64_t, 3> out = {0, 0, 0};
      for (size_t i = 0; i < 3 && b.ok(); ++i) {
        absl::StatusOr<Value> v = expr::Eval(*shared->data->gemmDims[i], b->scope);
        out[i] = v.ok() && v->IsInt() ? v->i : 0;
      }
      return out;
    };
  k.makeProblem = [shared](const zoo::Shape &s, const std::string &dtype, uint64_t seed) {
    return SpecProblem::Make(shared, s, dtype, seed);
  };
  // Check every shape now: its tensors, scalars and (for the first point) grid evaluate; a
  // bad expression is an error of the spec, before anything is built.
  std::vector<zoo::Point> points = ts.space.Enumerate();
  for (const auto *list : {&ts.defaultShapes, &ts.largeShapes})
    for (const zoo::Shape &s : *list)
      for (const std::string &dtype : ts.dtypes) {
        absl::StatusOr<Bound> b = Bind(*data, model->base, s, dtype);
        if (!b.ok())
          return b.status();
        if (points.empty())
          continue;
        absl::StatusOr<runtime::Grid> g = model->Grid(points[0], s, dtype);
        if (!g.ok())
          return g.status();
        // Inputs, outputs and a reference's copy must fit in this machine's memory.
        double bytes = k.bytes(s, dtype), memory = PhysicalMemoryBytes();
        if (!std::isfinite(bytes) || (memory > 0 && 3 * bytes > memory))
          return Error(data->shapesLoc, "shape " + zoo::ShapeText(s) + " in " + dtype +
                                            " needs " + std::to_string(3 * bytes / 1e9) +
                                            " GB with its reference's copy; this machine has " +
                                            std::to_string(memory / 1e9) + " GB");
      }
  if (points.empty())
    return Error(Loc{data->path, 1, 1}, "the configuration space of " + data->entry +
                                            " for " + target.str() + " has no valid point");
  return k;
}

} // namespace tessel::spec
