//===- Launcher.cpp - launch any bundle kernel from its launch contract -===//

#include "runtime/Launcher.h"

#include "runtime/expr/Eval.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

#include <algorithm>
#include <limits>
#include <set>

namespace tessel::runtime {

using expr::Loc;
using expr::Value;

namespace {

absl::Status Refused(const std::string &kernel, const std::string &why) {
  return absl::InvalidArgumentError("launch of " + kernel + ": " + why);
}

/// Row-major strides of `shape`.
std::vector<int64_t> RowMajor(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t s = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    strides[k] = s;
    s *= std::max<int64_t>(1, shape[k]);
  }
  return strides;
}

/// The scope a contract's expressions see: the dims, each tensor, stride(t, i).
expr::ScopePtr ContractScope(const std::map<std::string, int64_t> &dims,
                             const std::map<std::string, Value> &tensors) {
  expr::ScopePtr s = expr::Scope::Child(expr::Builtins());
  for (const auto &[d, v] : dims)
    s->vars[d] = Value::Int(v);
  for (const auto &[name, t] : tensors)
    s->vars[name] = t;
  s->vars["stride"] = Value::Function(
      "stride", [](const std::vector<Value> &a, const auto &,
                   const Loc &loc) -> absl::StatusOr<Value> {
        if (a.size() != 2 || a[0].kind != Value::Kind::Object || a[0].obj->type != "tensor")
          return absl::InvalidArgumentError(loc.Text() + ": stride(TENSOR, DIM)");
        return expr::Call(a[0].obj->attrs.at("stride"), {a[1]}, {}, loc);
      });
  s->vars["triton"] = Value::MakeObject(
      "module triton", {{"cdiv", expr::SharedBuiltins()->vars.at("cdiv")},
                        {"next_power_of_2", expr::SharedBuiltins()->vars.at("next_power_of_2")}});
  return s;
}

absl::StatusOr<Value> EvalIn(const std::string &text, const expr::ScopePtr &scope,
                             const std::string &what) {
  // Each contract expression is parsed once (per thread), not at every launch.
  thread_local std::map<std::pair<std::string, std::string>, expr::NodePtr> parsed;
  expr::NodePtr &node = parsed[{text, what}];
  if (!node) {
    absl::StatusOr<expr::NodePtr> p = expr::ParseExpression(text, what, 1, 1);
    if (!p.ok()) {
      parsed.erase({text, what});
      return absl::InvalidArgumentError(std::string(p.status().message()));
    }
    node = *p;
  }
  absl::StatusOr<Value> v = expr::EvalParsed(*node, scope);
  if (!v.ok())
    return absl::InvalidArgumentError(std::string(v.status().message()));
  return v;
}

} // namespace

absl::Status Launcher::CheckPointer(const std::string &kernel, const std::string &name,
                                    const void *data) {
  if (!data)
    return Refused(kernel, "tensor '" + name + "' has no data");
  // Every tensor pointer is compiled as 16-byte aligned (Triton's specialization).
  if (reinterpret_cast<uintptr_t>(data) % 16)
    return Refused(kernel, absl::StrCat("tensor '", name, "' at 0x",
                                        absl::Hex(reinterpret_cast<uintptr_t>(data)),
                                        " is not 16-byte aligned, as the kernel assumes"));
  if (!device_.Addressable(data))
    return Refused(kernel, "tensor '" + name + "' is not memory the " + device_.kind() +
                               " device can address (host memory for a GPU kernel?)");
  return absl::OkStatus();
}

absl::StatusOr<LaunchReport> Launcher::Launch(const std::string &kernel,
                                              const LaunchRequest &request) {
  // A call with the same kernel, dtypes, shapes, strides and dims as an earlier one launches
  // that one's plan: only the pointers are new (and checked).
  std::string key = kernel;
  for (const auto &[name, t] : request.tensors) {
    absl::StrAppend(&key, "|", name, ":", t.dtype, "[", absl::StrJoin(t.shape, ","), "]");
    if (!t.strides.empty())
      absl::StrAppend(&key, "/", absl::StrJoin(t.strides, ","));
  }
  for (const auto &[name, v] : request.dims)
    absl::StrAppend(&key, "|", name, "=", v);
  auto planned = plans_.find(key);
  if (planned == plans_.end())
    return Plan(kernel, request, key);
  const LaunchPlan &plan = planned->second;
  std::vector<Arg> args = plan.args;
  for (const auto &[position, name] : plan.tensors) {
    const void *data = request.tensors.at(name).data;
    if (absl::Status s = CheckPointer(kernel, name, data); !s.ok())
      return s;
    args[position] = Arg(const_cast<void *>(data));
  }
  if (plan.report.grid.programs() > 0)
    if (absl::Status s = device_.Launch(*plan.kernel, plan.report.grid, args); !s.ok())
      return s;
  return plan.report;
}

absl::StatusOr<LaunchReport> Launcher::Plan(const std::string &kernel,
                                            const LaunchRequest &request,
                                            const std::string &key) {
  std::vector<const BundleEntry *> entries;
  for (const BundleEntry &e : bundle_.entries())
    if (e.kernel == kernel)
      entries.push_back(&e);
  if (entries.empty())
    return absl::NotFoundError("no kernel '" + kernel + "' in the bundle");
  const std::shared_ptr<const LaunchContract> contract = entries.front()->launch;
  if (!contract)
    return absl::FailedPreconditionError(
        "the bundle has no launch contract for " + kernel +
        " (written before schema version 2, or not from a kernel spec)");

  // The tensors: every one of the contract, of its rank, one dtype for "{dtype}".
  std::string dtype;
  std::map<std::string, int64_t> dims;
  for (const auto &[d, v] : request.dims) {
    if (std::find(contract->dims.begin(), contract->dims.end(), d) == contract->dims.end())
      return Refused(kernel, "'" + d + "' is not one of its dims (" +
                                 absl::StrJoin(contract->dims, ", ") + ")");
    dims[d] = v;
  }
  std::set<std::string> named;
  for (const LaunchArg &a : contract->args) {
    if (a.kind != "tensor")
      continue;
    named.insert(a.name);
    auto t = request.tensors.find(a.name);
    if (t == request.tensors.end())
      return Refused(kernel, "tensor '" + a.name + "' is missing");
    const TensorArg &x = t->second;
    if (absl::Status s = CheckPointer(kernel, a.name, x.data); !s.ok())
      return s;
    if (x.shape.size() != a.shape.size())
      return Refused(kernel, absl::StrCat("tensor '", a.name, "' has ", x.shape.size(),
                                          " dimensions, the kernel takes ", a.shape.size(),
                                          " [", absl::StrJoin(a.shape, ", "), "]"));
    if (!x.strides.empty() && x.strides != RowMajor(x.shape))
      return Refused(kernel, "tensor '" + a.name + "' must be contiguous (row-major)");
    const std::string want = a.dtype == "{dtype}" ? (dtype.empty() ? x.dtype : dtype) : a.dtype;
    if (x.dtype != want)
      return Refused(kernel, "tensor '" + a.name + "' is " + x.dtype + ", the kernel takes " +
                                 want + (a.dtype == "{dtype}" ? " (as its other tensors)" : ""));
    if (a.dtype == "{dtype}")
      dtype = x.dtype;
    // A dimension written as a dim's name gives that dim.
    for (size_t k = 0; k < a.shape.size(); ++k) {
      if (x.shape[k] < 0)
        return Refused(kernel, "tensor '" + a.name + "' has a negative dimension");
      if (std::find(contract->dims.begin(), contract->dims.end(), a.shape[k]) ==
          contract->dims.end())
        continue;
      auto [it, fresh] = dims.emplace(a.shape[k], x.shape[k]);
      if (!fresh && it->second != x.shape[k])
        return Refused(kernel, absl::StrCat("tensor '", a.name, "' has ", a.shape[k], " = ",
                                            x.shape[k], ", elsewhere it is ", it->second));
    }
  }
  for (const auto &[name, t] : request.tensors)
    if (!named.count(name))
      return Refused(kernel, "it has no tensor argument '" + name + "'");
  for (const std::string &d : contract->dims)
    if (!dims.count(d))
      return Refused(kernel, "dim " + d + " is not given by a tensor: pass it in the request");
  if (dtype.empty()) // no tensor of the swept dtype: the bundle's entries say
    dtype = entries.front()->dtype;

  std::map<std::string, Value> tensors;
  for (const LaunchArg &a : contract->args)
    if (a.kind == "tensor") {
      const TensorArg &x = request.tensors.at(a.name);
      tensors[a.name] = expr::TensorValue(x.shape, RowMajor(x.shape));
    }
  expr::ScopePtr scope = ContractScope(dims, tensors);
  // Every tensor's size as the contract computes it.
  for (const LaunchArg &a : contract->args) {
    if (a.kind != "tensor")
      continue;
    const TensorArg &x = request.tensors.at(a.name);
    for (size_t k = 0; k < a.shape.size(); ++k) {
      absl::StatusOr<Value> v = EvalIn(a.shape[k], scope, a.name + ".shape");
      if (!v.ok())
        return v.status();
      if (!v->IsInt() || v->i != x.shape[k])
        return Refused(kernel, absl::StrCat("tensor '", a.name, "' dimension ", k, " is ",
                                            x.shape[k], ", the kernel takes ", a.shape[k], " = ",
                                            v->Repr()));
    }
  }

  // The entry: tuned for these dims, or the nearest that serves them.
  std::set<std::vector<std::string>> keySets;
  for (const BundleEntry *e : entries) {
    std::vector<std::string> keys;
    for (const auto &[d, v] : e->shape)
      keys.push_back(d);
    keySets.insert(keys);
  }
  absl::StatusOr<BundleChoice> choice = absl::NotFoundError("no entry");
  for (const std::vector<std::string> &keys : keySets) {
    std::map<std::string, int64_t> shape;
    for (const std::string &d : keys)
      if (dims.count(d))
        shape[d] = dims.at(d);
    absl::StatusOr<BundleChoice> c = bundle_.Find(kernel, shape, dtype);
    if (c.ok() && (!choice.ok() || (c->exact && !choice->exact)))
      choice = c;
    else if (!choice.ok() && !c.ok())
      choice = c.status();
  }
  if (!choice.ok())
    return choice.status();
  const BundleEntry &entry = *choice->entry;

  // The constexprs the entry was compiled with must hold for this call: each evaluated for
  // the call and for the shape the entry was tuned at.
  std::map<std::string, int64_t> tunedDims = dims;
  for (const auto &[d, v] : entry.shape)
    tunedDims[d] = v;
  std::map<std::string, Value> tunedTensors;
  expr::ScopePtr tunedDimsScope = ContractScope(tunedDims, {});
  for (const LaunchArg &a : contract->args)
    if (a.kind == "tensor") {
      std::vector<int64_t> shape;
      for (const std::string &e : a.shape) {
        absl::StatusOr<Value> v = EvalIn(e, tunedDimsScope, a.name + ".shape");
        shape.push_back(v.ok() && v->IsInt() ? v->i : -1);
      }
      tunedTensors[a.name] = expr::TensorValue(shape, RowMajor(shape));
    }
  expr::ScopePtr tunedScope = ContractScope(tunedDims, tunedTensors);
  auto [state, fresh] = entries_.try_emplace(&entry);
  if (fresh) {
    nlohmann::json config = nlohmann::json::parse(
        entry.configJson.empty() ? "{}" : entry.configJson, nullptr, false);
    if (config.is_object())
      for (auto it = config.begin(); it != config.end(); ++it)
        state->second.config.push_back(
            {it.key(), it->is_boolean()          ? Value::Bool(it->get<bool>())
                       : it->is_number_integer() ? Value::Int(it->get<int64_t>())
                       : it->is_number()         ? Value::Float(it->get<double>())
                                                 : Value::Str(it->dump())});
  }
  std::vector<std::pair<Value, Value>> meta;
  expr::ScopePtr gridScope = expr::Scope::Child(scope);
  for (const auto &[key, v] : state->second.config) {
    meta.push_back({Value::Str(key), v});
    gridScope->vars[key] = v;
  }
  std::vector<Arg> args;
  std::vector<std::pair<size_t, std::string>> tensorArgs;
  for (const LaunchArg &a : contract->args) {
    if (a.kind == "constexpr") {
      absl::StatusOr<Value> now = EvalIn(a.value, scope, a.name);
      absl::StatusOr<Value> then = EvalIn(a.value, tunedScope, a.name);
      if (!now.ok())
        return now.status();
      if (then.ok() && !expr::Equal(*now, *then))
        return Refused(kernel, "the entry for " + ShapeText(entry.shape) + " was compiled with " +
                                   a.name + " = " + then->Repr() + "; this call needs " +
                                   now->Repr());
      gridScope->vars[a.name] = *now;
      meta.push_back({Value::Str(a.name), *now});
    } else if (a.kind == "scalar") {
      absl::StatusOr<Value> v = EvalIn(a.value, scope, a.name);
      if (!v.ok())
        return v.status();
      if (a.type == "i32" || a.type == "i64") {
        if (!v->IsInt())
          return Refused(kernel, a.name + " = " + v->Repr() + " is not an integer");
        if (a.type == "i32" && (v->i < std::numeric_limits<int32_t>::min() ||
                                v->i > std::numeric_limits<int32_t>::max()))
          return Refused(kernel, a.name + " = " + v->Repr() + " does not fit its i32");
        if (a.divisible && v->i % a.divisible != 0)
          return Refused(kernel, absl::StrCat(a.name, " = ", v->i,
                                              " is not divisible by 16, as the kernel assumes"));
        args.push_back(a.type == "i32" ? Arg(int32_t(v->i)) : Arg(int64_t(v->i)));
      } else {
        if (!v->IsNumber())
          return Refused(kernel, a.name + " = " + v->Repr() + " is not a number");
        args.push_back(a.type == "fp32" ? Arg(float(v->AsDouble())) : Arg(v->AsDouble()));
      }
      gridScope->vars[a.name] = *v;
    } else if (a.kind == "tensor") {
      tensorArgs.push_back({args.size(), a.name});
      args.push_back(request.tensors.at(a.name).data);
    }
  }
  // The grid, from the dims, arguments and the entry's configuration.
  gridScope->vars["META"] = Value::Dict(meta);
  absl::StatusOr<Value> g = EvalIn(contract->grid, gridScope, "grid");
  if (!g.ok())
    return g.status();
  absl::StatusOr<std::array<int32_t, 3>> xyz =
      expr::GridOf(*g, Value::Dict(meta), Loc{"grid", 1, 1}, /*least=*/0);
  if (!xyz.ok())
    return Refused(kernel, std::string(xyz.status().message()));
  LaunchReport report{*choice, dims, Grid{(*xyz)[0], (*xyz)[1], (*xyz)[2]}};
  if (report.grid.programs() == 0) { // nothing to do (an empty tensor)
    RememberPlan(key, LaunchPlan{report, args, tensorArgs, nullptr});
    return report;
  }

  EntryState &loaded = state->second;
  if (!loaded.kernel) {
    absl::StatusOr<std::unique_ptr<Executable>> module = bundle_.Load(entry, device_);
    if (!module.ok())
      return module.status();
    absl::StatusOr<Kernel> k = (*module)->GetKernel(entry.entry);
    if (!k.ok())
      return k.status();
    loaded.executable = *std::move(module);
    loaded.kernel = *k;
  }
  if (absl::Status s = device_.Launch(*loaded.kernel, report.grid, args); !s.ok())
    return s;
  RememberPlan(key, LaunchPlan{report, args, tensorArgs, &*loaded.kernel});
  return report;
}

void Launcher::RememberPlan(const std::string &key, LaunchPlan plan) {
  // A bound on what a caller with ever-changing shapes makes the launcher keep.
  if (plans_.size() >= kMaxPlans)
    plans_.clear();
  plans_.emplace(key, std::move(plan));
}

} // namespace tessel::runtime
