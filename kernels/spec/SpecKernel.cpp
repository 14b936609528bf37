//===- SpecKernel.cpp - a kernel spec as a zoo kernel: space, contract, functions -===//

#include "kernels/spec/SpecData.h"
#include "kernels/spec/SpecModel.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace tessel::spec {

using namespace model;

namespace {

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
    return model::MakeProblem(shared, s, dtype, seed);
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
