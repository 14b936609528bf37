//===- Spec.cpp - reading kernel specs (TOML, through toml++) -===//

#include "kernels/spec/Spec.h"

#include "kernels/spec/SpecData.h"
#include "runtime/Files.h"
#include "runtime/Sha256.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace tessel::spec {

using expr::Loc;

namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxShapes = 4096;     // shapes of one set (a grid's product)
constexpr int64_t kMaxDimValue = 1 << 30; // as zoo::ParseShape

const std::set<std::string> kDtypes = {"f32", "f16", "bf16", "f64", "i8",
                                       "i16", "i32", "i64", "u8"};
const std::set<std::string> kKinds = {"cpu", "gpu"};

class Reader {
public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Loc At(const toml::node &n) const {
    return Loc{path_, int(n.source().begin.line), int(n.source().begin.column)};
  }
  Loc At(const toml::key &k) const {
    return Loc{path_, int(k.source().begin.line), int(k.source().begin.column)};
  }
  absl::Status Error(const Loc &loc, const std::string &message) const {
    return absl::InvalidArgumentError(absl::StrCat(loc.Text(), ": error: ", message));
  }

  /// Unknown keys of `t` are errors naming the keys it may have.
  absl::Status Keys(const toml::table &t, const std::set<std::string> &allowed,
                    const std::string &where) const {
    for (const auto &[k, v] : t)
      if (!allowed.count(std::string(k.str())))
        return Error(At(k), "unknown key '" + std::string(k.str()) + "' in " + where +
                                " (expected one of: " + absl::StrJoin(allowed, ", ") + ")");
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> String(const toml::node &n, const std::string &what) const {
    if (const auto *s = n.as_string())
      return s->get();
    return Error(At(n), what + " must be a string");
  }

  /// An expression in a TOML string: parsed where the string's text starts (after the quote).
  absl::StatusOr<expr::NodePtr> Expression(const toml::node &n, const std::string &what) const {
    absl::StatusOr<std::string> text = String(n, what);
    if (!text.ok())
      return text.status();
    Loc at = At(n);
    return expr::ParseExpression(*text, path_, at.line, at.col + 1);
  }

  absl::StatusOr<int64_t> Int(const toml::node &n, const std::string &what) const {
    if (const auto *i = n.as_integer())
      return i->get();
    return Error(At(n), what + " must be an integer");
  }

  absl::StatusOr<std::vector<std::string>> Strings(const toml::node &n,
                                                   const std::string &what) const {
    const toml::array *a = n.as_array();
    if (!a)
      return Error(At(n), what + " must be an array of strings");
    std::vector<std::string> out;
    for (const toml::node &x : *a) {
      absl::StatusOr<std::string> s = String(x, what + "'s items");
      if (!s.ok())
        return s.status();
      out.push_back(*s);
    }
    return out;
  }

  const std::string &path() const { return path_; }

private:
  std::string path_;
};

/// A tensor type "{dtype}[M, K]" / "f32[M * 2]": its dtype and dim expressions.
absl::Status ParseTensorType(const Reader &r, const toml::node &n, ArgSpec &arg) {
  absl::StatusOr<std::string> text = r.String(n, "a tensor's type");
  if (!text.ok())
    return text.status();
  Loc at = r.At(n);
  size_t open = text->find('[');
  if (open == std::string::npos || text->back() != ']')
    return r.Error(at, "tensor type '" + *text + "' is not DTYPE[DIM, ...] (e.g. \"{dtype}[M, K]\")");
  arg.dtype = text->substr(0, open);
  if (arg.dtype != "{dtype}" && !kDtypes.count(arg.dtype))
    return r.Error(at, "unknown dtype '" + arg.dtype + "' (expected {dtype} or one of " +
                           absl::StrJoin(kDtypes, ", ") + ")");
  std::string dims = text->substr(open + 1, text->size() - open - 2);
  if (dims.find_first_not_of(" ") == std::string::npos)
    return r.Error(at, "tensor type '" + *text + "' has no dimensions");
  absl::StatusOr<expr::NodePtr> shape =
      expr::ParseExpression("(" + dims + ",)", r.path(), at.line, at.col + int(open));
  if (!shape.ok())
    return shape.status();
  arg.shape = (*shape)->kids;
  arg.shapeText = dims;
  if (arg.shape.size() > 4)
    return r.Error(at, "tensors of more than 4 dimensions are not supported");
  arg.tensor = true;
  return absl::OkStatus();
}

absl::Status ParseInit(const Reader &r, const toml::node &n, ArgSpec &arg) {
  absl::StatusOr<expr::NodePtr> e = r.Expression(n, "init");
  if (!e.ok())
    return e.status();
  const expr::Node &node = **e;
  std::string name;
  std::vector<double> params;
  if (node.kind == expr::Node::Kind::Name) {
    name = node.text;
  } else if (node.kind == expr::Node::Kind::Call &&
             node.kids[0]->kind == expr::Node::Kind::Name && node.keywords.empty()) {
    name = node.kids[0]->text;
    expr::ScopePtr s = expr::Builtins();
    for (size_t k = 1; k < node.kids.size(); ++k) {
      absl::StatusOr<expr::Value> v = expr::Eval(*node.kids[k], s);
      if (!v.ok())
        return v.status();
      if (!v->IsNumber())
        return r.Error(node.kids[k]->loc, "init's parameters are numbers");
      params.push_back(v->AsDouble());
    }
  } else {
    return r.Error(node.loc, "init is one of normal, normal(MEAN, STD), uniform(LO, HI), "
                             "randint(LO, HI), zeros, ones, const(V)");
  }
  struct Form {
    const char *name;
    size_t arity;
    std::vector<double> defaults;
  };
  static const Form kForms[] = {{"normal", 2, {0, 1}}, {"uniform", 2, {-1, 1}},
                                {"randint", 2, {0, 10}}, {"zeros", 0, {}},
                                {"ones", 0, {}},        {"const", 1, {}}};
  for (const Form &f : kForms)
    if (name == f.name) {
      if (params.empty())
        params = f.defaults;
      if (params.size() != f.arity)
        return r.Error(node.loc, absl::StrCat(name, " takes ", f.arity, " parameters"));
      if ((name == "uniform" || name == "randint") && !(params[0] < params[1]))
        return r.Error(node.loc, name + "(LO, HI) needs LO < HI");
      if (name == "normal" && !(params[1] > 0))
        return r.Error(node.loc, "normal(MEAN, STD) needs STD > 0");
      for (double p : params)
        if (!std::isfinite(p))
          return r.Error(node.loc, "init's parameters are finite numbers");
      arg.init = name;
      arg.initArgs = params;
      return absl::OkStatus();
    }
  return r.Error(node.loc, "unknown init '" + name +
                               "' (expected normal, uniform, randint, zeros, ones or const)");
}

absl::Status ParseArg(const Reader &r, const std::string &name, const toml::node &n,
                      ArgSpec &arg) {
  arg.name = name;
  arg.loc = r.At(n);
  if (const auto *s = n.as_string()) {
    // A tensor when it reads DTYPE[...], else a scalar expression.
    const std::string &text = s->get();
    size_t open = text.find('[');
    if (open != std::string::npos && open > 0 &&
        (text.substr(0, open) == "{dtype}" || kDtypes.count(text.substr(0, open))))
      return ParseTensorType(r, n, arg);
    absl::StatusOr<expr::NodePtr> v = r.Expression(n, "a scalar argument");
    if (!v.ok())
      return v.status();
    arg.value = *v;
    arg.valueText = text;
    return absl::OkStatus();
  }
  const toml::table *t = n.as_table();
  if (!t)
    return r.Error(arg.loc, "argument '" + name + "' must be a string (\"DTYPE[DIMS]\" or an "
                            "expression) or a table");
  if (t->contains("tensor")) {
    if (absl::Status s = r.Keys(*t, {"tensor", "role", "init"}, "tensor argument '" + name + "'");
        !s.ok())
      return s;
    if (absl::Status s = ParseTensorType(r, *t->get("tensor"), arg); !s.ok())
      return s;
    if (const toml::node *role = t->get("role")) {
      absl::StatusOr<std::string> text = r.String(*role, "role");
      if (!text.ok())
        return text.status();
      if (*text == "in")
        arg.role = ArgSpec::Role::In;
      else if (*text == "out")
        arg.role = ArgSpec::Role::Out;
      else if (*text == "inout")
        arg.role = ArgSpec::Role::InOut;
      else
        return r.Error(r.At(*role), "role is in, out or inout, not '" + *text + "'");
    }
    if (const toml::node *init = t->get("init"))
      if (absl::Status s = ParseInit(r, *init, arg); !s.ok())
        return s;
    if (arg.role == ArgSpec::Role::Out && t->contains("init"))
      return r.Error(r.At(*t->get("init")), "an output's values are poisoned, not initialized: "
                                            "make it inout to give it initial values");
    return absl::OkStatus();
  }
  if (absl::Status s = r.Keys(*t, {"value", "type", "divisible", "constexpr"},
                              "scalar argument '" + name + "'");
      !s.ok())
    return s;
  const toml::node *value = t->get("value");
  if (!value)
    return r.Error(arg.loc, "argument '" + name + "' needs `tensor` or `value`");
  absl::StatusOr<expr::NodePtr> v = r.Expression(*value, "value");
  if (!v.ok())
    return v.status();
  arg.value = *v;
  arg.valueText = *r.String(*value, "value");
  if (const toml::node *type = t->get("type")) {
    absl::StatusOr<std::string> text = r.String(*type, "type");
    if (!text.ok())
      return text.status();
    static const std::set<std::string> kScalarTypes = {"i32", "i64", "fp32", "fp64"};
    if (!kScalarTypes.count(*text))
      return r.Error(r.At(*type), "a scalar's type is one of i32, i64, fp32, fp64, not '" +
                                      *text + "'");
    arg.type = *text;
  }
  if (const toml::node *d = t->get("divisible")) {
    absl::StatusOr<int64_t> by = r.Int(*d, "divisible");
    if (!by.ok())
      return by.status();
    if (*by != 16)
      return r.Error(r.At(*d), "divisible is 16 (the divisibility Triton's signatures carry)");
    arg.divisible = 16;
  }
  if (const toml::node *c = t->get("constexpr")) {
    const auto *b = c->as_boolean();
    if (!b)
      return r.Error(r.At(*c), "constexpr must be true or false");
    arg.constexpr_ = b->get();
  }
  return absl::OkStatus();
}

/// One set of shapes: an array of {DIM = V, ...} tables, or one table of DIM = V | [V, ...]
/// (every combination).
absl::Status ParseShapeSet(const Reader &r, const toml::node &n,
                           const std::vector<std::string> &dims,
                           std::vector<zoo::Shape> &out) {
  auto one = [&](const toml::table &t, std::vector<std::vector<int64_t>> &values) -> absl::Status {
    for (const auto &[k, v] : t)
      if (std::find(dims.begin(), dims.end(), std::string(k.str())) == dims.end())
        return r.Error(r.At(k), "'" + std::string(k.str()) + "' is not one of the dims (" +
                                    absl::StrJoin(dims, ", ") + ")");
    for (const std::string &d : dims) {
      const toml::node *v = t.get(d);
      if (!v)
        return r.Error(r.At(t), "the shape lacks dim " + d);
      std::vector<int64_t> vs;
      if (const toml::array *a = v->as_array()) {
        for (const toml::node &x : *a) {
          absl::StatusOr<int64_t> i = r.Int(x, "dim " + d);
          if (!i.ok())
            return i.status();
          vs.push_back(*i);
        }
        if (vs.empty())
          return r.Error(r.At(*v), "dim " + d + " has no values");
      } else {
        absl::StatusOr<int64_t> i = r.Int(*v, "dim " + d);
        if (!i.ok())
          return i.status();
        vs.push_back(*i);
      }
      for (int64_t x : vs)
        if (x < 0 || x > kMaxDimValue)
          return r.Error(r.At(*v), absl::StrCat("dim ", d, " = ", x, " is outside [0, 2^30]"));
      values.push_back(vs);
    }
    return absl::OkStatus();
  };
  auto expand = [&](const std::vector<std::vector<int64_t>> &values, const Loc &loc) -> absl::Status {
    int64_t count = 1;
    for (const auto &vs : values)
      if ((count *= int64_t(vs.size())) > kMaxShapes)
        return r.Error(loc, absl::StrCat("more than ", kMaxShapes, " shapes in one set"));
    for (int64_t i = 0; i < count; ++i) {
      zoo::Shape s;
      int64_t rest = i;
      for (size_t d = dims.size(); d-- > 0;) {
        s[dims[d]] = values[d][size_t(rest % int64_t(values[d].size()))];
        rest /= int64_t(values[d].size());
      }
      out.push_back(s);
    }
    return absl::OkStatus();
  };
  if (const toml::table *t = n.as_table()) {
    std::vector<std::vector<int64_t>> values;
    if (absl::Status s = one(*t, values); !s.ok())
      return s;
    return expand(values, r.At(n));
  }
  const toml::array *a = n.as_array();
  if (!a || a->empty())
    return r.Error(r.At(n), "a shape set is an array of {DIM = VALUE, ...} tables or one "
                            "table of DIM = VALUE or [VALUES]");
  for (const toml::node &x : *a) {
    const toml::table *t = x.as_table();
    if (!t)
      return r.Error(r.At(x), "a shape is a table {DIM = VALUE, ...}");
    std::vector<std::vector<int64_t>> values;
    if (absl::Status s = one(*t, values); !s.ok())
      return s;
    if (absl::Status s = expand(values, r.At(x)); !s.ok())
      return s;
  }
  if (int64_t(out.size()) > kMaxShapes)
    return r.Error(r.At(n), absl::StrCat("more than ", kMaxShapes, " shapes in one set"));
  return absl::OkStatus();
}

absl::Status ParseSpace(const Reader &r, const toml::table &t, SpaceSpec &space) {
  space.loc = r.At(t);
  for (const auto &[k, v] : t) {
    std::string name(k.str());
    if (name == "constraints") {
      const toml::array *a = v.as_array();
      if (!a)
        return r.Error(r.At(v), "constraints must be an array of expressions");
      for (const toml::node &x : *a) {
        absl::StatusOr<expr::NodePtr> e = r.Expression(x, "a constraint");
        if (!e.ok())
          return e.status();
        space.constraints.push_back(*e);
      }
      continue;
    }
    const toml::array *a = v.as_array();
    if (!a || a->empty())
      return r.Error(r.At(v), "parameter '" + name + "' must be a non-empty array of integers");
    std::vector<int64_t> values;
    for (const toml::node &x : *a) {
      int64_t i;
      if (const auto *b = x.as_boolean()) {
        i = b->get();
      } else {
        absl::StatusOr<int64_t> parsed = r.Int(x, "parameter '" + name + "'");
        if (!parsed.ok())
          return parsed.status();
        i = *parsed;
      }
      if (std::find(values.begin(), values.end(), i) != values.end())
        return r.Error(r.At(x), "parameter '" + name + "' lists " + std::to_string(i) + " twice");
      values.push_back(i);
    }
    space.params.push_back({name, values});
  }
  if (space.params.empty())
    return r.Error(space.loc, "the space has no parameters");
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<std::shared_ptr<SpecData>> ReadSpecData(const std::string &path,
                                                       const std::string &sourceOverride) {
  absl::StatusOr<std::string> text = runtime::ReadRegularFile(path);
  if (!text.ok())
    return text.status();
  Reader r(path);
  toml::parse_result parsed = toml::parse(*text, path);
  if (!parsed) {
    const toml::parse_error &e = parsed.error();
    return r.Error(Loc{path, int(e.source().begin.line), int(e.source().begin.column)},
                   std::string(e.description()));
  }
  const toml::table &top = parsed.table();
  if (absl::Status s = r.Keys(top,
                              {"name", "source", "kernel", "dims", "dtypes", "grid", "flops",
                               "bytes", "baseline", "tolerance", "reference", "args", "shapes",
                               "space"},
                              "the spec");
      !s.ok())
    return s;
  auto data = std::make_shared<SpecData>();
  data->path = path;
  data->sha256 = runtime::Sha256Hex(*text);
  for (const char *required : {"source", "kernel", "dims", "grid", "args"})
    if (!top.contains(required))
      return r.Error(Loc{path, 1, 1}, std::string("the spec lacks `") + required + "`");
  if (const toml::node *n = top.get("name")) {
    absl::StatusOr<std::string> s = r.String(*n, "name");
    if (!s.ok())
      return s.status();
    data->name = *s;
  }
  absl::StatusOr<std::string> source = r.String(*top.get("source"), "source");
  if (!source.ok())
    return source.status();
  data->sourcePath = sourceOverride.empty()
                         ? (fs::path(path).parent_path() / *source).lexically_normal().string()
                         : sourceOverride;
  absl::StatusOr<std::string> sourceText = runtime::ReadRegularFile(data->sourcePath);
  if (!sourceText.ok())
    return r.Error(r.At(*top.get("source")), std::string(sourceText.status().message()));
  data->sourceText = *sourceText;
  data->sourceSha256 = runtime::Sha256Hex(*sourceText);
  absl::StatusOr<std::string> entry = r.String(*top.get("kernel"), "kernel");
  if (!entry.ok())
    return entry.status();
  data->entry = *entry;
  if (!top.contains("name"))
    data->name = data->entry;
  if (data->name.empty() || data->name.find_first_of(" ,=/\"'") != std::string::npos)
    return r.Error(Loc{path, 1, 1}, "the kernel's name '" + data->name +
                                        "' must be non-empty, without spaces, commas, '=' or '/'");
  absl::StatusOr<std::unique_ptr<KernelFile>> file =
      KernelFile::Read(data->sourcePath, data->sourceText, data->entry);
  if (!file.ok())
    return file.status();
  data->file = *std::move(file);

  absl::StatusOr<std::vector<std::string>> dims = r.Strings(*top.get("dims"), "dims");
  if (!dims.ok())
    return dims.status();
  if (dims->empty())
    return r.Error(r.At(*top.get("dims")), "dims must name at least one dimension");
  for (const std::string &d : *dims)
    if (d.empty() || !(std::isalpha((unsigned char)d[0]) || d[0] == '_') ||
        d.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
            std::string::npos ||
        std::count(dims->begin(), dims->end(), d) > 1)
      return r.Error(r.At(*top.get("dims")), "dim '" + d + "' must be a Python name, given once");
  data->dims = *dims;

  // dtypes: an array for every kind, or {cpu = [...], gpu = [...]}.
  data->dtypes = {{"cpu", {"f32"}}, {"gpu", {"f32"}}};
  if (const toml::node *n = top.get("dtypes")) {
    auto list = [&](const toml::node &x, std::vector<std::string> &out) -> absl::Status {
      absl::StatusOr<std::vector<std::string>> d = r.Strings(x, "dtypes");
      if (!d.ok())
        return d.status();
      for (const std::string &t : *d)
        if (!kDtypes.count(t))
          return r.Error(r.At(x), "unknown dtype '" + t + "' (expected one of " +
                                      absl::StrJoin(kDtypes, ", ") + ")");
      out = *d;
      return absl::OkStatus();
    };
    if (const toml::table *t = n->as_table()) {
      if (absl::Status s = r.Keys(*t, kKinds, "dtypes"); !s.ok())
        return s;
      for (const auto &[k, v] : *t)
        if (absl::Status s = list(v, data->dtypes[std::string(k.str())]); !s.ok())
          return s;
    } else {
      std::vector<std::string> all;
      if (absl::Status s = list(*n, all); !s.ok())
        return s;
      data->dtypes = {{"cpu", all}, {"gpu", all}};
    }
  }

  absl::StatusOr<expr::NodePtr> grid = r.Expression(*top.get("grid"), "grid");
  if (!grid.ok())
    return grid.status();
  data->grid = *grid;
  data->gridText = *r.String(*top.get("grid"), "grid");
  for (const char *key : {"flops", "bytes"})
    if (const toml::node *n = top.get(key)) {
      absl::StatusOr<expr::NodePtr> e = r.Expression(*n, key);
      if (!e.ok())
        return e.status();
      (std::string(key) == "flops" ? data->flops : data->bytes) = *e;
    }
  if (const toml::node *n = top.get("baseline")) {
    absl::StatusOr<std::string> b = r.String(*n, "baseline");
    if (!b.ok())
      return b.status();
    if (*b == "copy" || *b == "none") {
      data->baseline = *b;
    } else {
      absl::StatusOr<expr::NodePtr> e = r.Expression(*n, "baseline");
      if (!e.ok())
        return e.status();
      const expr::Node &call = **e;
      if (call.kind != expr::Node::Kind::Call || call.kids[0]->kind != expr::Node::Kind::Name ||
          call.kids[0]->text != "gemm" || call.kids.size() != 4)
        return r.Error(r.At(*n), "baseline is \"gemm(M, N, K)\" (OpenBLAS / cuBLAS), \"copy\" "
                                 "(the same bytes copied) or \"none\"");
      data->baseline = "gemm";
      data->gemmDims = {call.kids[1], call.kids[2], call.kids[3]};
    }
  }
  if (const toml::node *n = top.get("reference")) {
    absl::StatusOr<std::string> name = r.String(*n, "reference");
    if (!name.ok())
      return name.status();
    data->reference = *name;
    data->referenceLoc = r.At(*n);
  }
  if (const toml::node *n = top.get("tolerance")) {
    const toml::table *t = n->as_table();
    if (!t)
      return r.Error(r.At(*n), "tolerance is a table {DTYPE = relative tolerance}");
    for (const auto &[k, v] : *t) {
      if (!kDtypes.count(std::string(k.str())))
        return r.Error(r.At(k), "unknown dtype '" + std::string(k.str()) + "' in tolerance");
      std::optional<double> x = v.value<double>();
      if (!x || !(*x >= 0) || !(*x < 1))
        return r.Error(r.At(v), "a tolerance is a number in [0, 1)");
      data->tolerance[std::string(k.str())] = *x;
    }
  }

  // Arguments: every one the spec names must be the kernel's; the kernel's order.
  const toml::table *args = top.get("args")->as_table();
  if (!args)
    return r.Error(r.At(*top.get("args")), "args is a table: NAME = \"DTYPE[DIMS]\" or an "
                                           "expression, or NAME = { ... }");
  std::map<std::string, ArgSpec> byName;
  for (const auto &[k, v] : *args) {
    std::string name(k.str());
    bool known = false;
    for (const KernelParam &p : data->file->params())
      known = known || p.name == name;
    if (!known) {
      std::vector<std::string> names;
      for (const KernelParam &p : data->file->params())
        names.push_back(p.name);
      return r.Error(r.At(k), "'" + name + "' is not an argument of " + data->entry + " (" +
                                  data->file->entryLoc().Text() + "; it takes " +
                                  absl::StrJoin(names, ", ") + ")");
    }
    ArgSpec arg;
    if (absl::Status s = ParseArg(r, name, v, arg); !s.ok())
      return s;
    byName[name] = std::move(arg);
  }
  for (const KernelParam &p : data->file->params())
    if (auto it = byName.find(p.name); it != byName.end()) {
      if (it->second.tensor && p.isConstexpr)
        return r.Error(it->second.loc, "'" + p.name + "' is a tl.constexpr parameter (" +
                                           p.loc.Text() + "), not a tensor");
      data->args.push_back(std::move(it->second));
    }

  if (const toml::node *n = top.get("shapes")) {
    const toml::table *t = n->as_table();
    if (!t)
      return r.Error(r.At(*n), "shapes is a table [shapes.cpu] / [shapes.gpu] of named sets");
    data->shapesLoc = r.At(*n);
    if (absl::Status s = r.Keys(*t, kKinds, "shapes"); !s.ok())
      return s;
    for (const auto &[kind, sets] : *t) {
      const toml::table *named = sets.as_table();
      if (!named)
        return r.Error(r.At(sets), "shapes." + std::string(kind.str()) +
                                       " is a table of named sets (default = ..., large = ...)");
      for (const auto &[set, v] : *named)
        if (absl::Status s = ParseShapeSet(r, v, data->dims,
                                           data->shapes[std::string(kind.str())][std::string(set.str())]);
            !s.ok())
          return s;
    }
  }
  if (const toml::node *n = top.get("space")) {
    const toml::table *t = n->as_table();
    if (!t)
      return r.Error(r.At(*n), "space is a table [space.cpu] / [space.gpu]");
    if (absl::Status s = r.Keys(*t, kKinds, "space"); !s.ok())
      return s;
    for (const auto &[kind, v] : *t) {
      const toml::table *params = v.as_table();
      if (!params)
        return r.Error(r.At(v), "space." + std::string(kind.str()) +
                                    " is a table NAME = [VALUES], constraints = [...]");
      if (absl::Status s = ParseSpace(r, *params, data->spaces[std::string(kind.str())]); !s.ok())
        return s;
    }
  }
  return data;
}

absl::StatusOr<zoo::Kernel> LoadSpec(const std::string &path, const Target &target,
                                     const std::vector<std::string> &knobs,
                                     std::vector<std::string> *notes, const std::string &source,
                                     const zoo::References *references) {
  absl::StatusOr<std::shared_ptr<SpecData>> data = ReadSpecData(path, source);
  if (!data.ok())
    return data.status();
  return MakeKernel(*data, target, knobs, notes, references);
}

absl::StatusOr<std::vector<std::string>> SpecFiles(const std::string &path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec))
    return std::vector<std::string>{path};
  std::vector<std::string> out;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".toml")
      out.push_back(it->path().string());
  if (ec)
    return absl::NotFoundError("cannot list " + path + ": " + ec.message());
  std::sort(out.begin(), out.end());
  if (out.empty())
    return absl::NotFoundError("no *.toml spec in " + path);
  return out;
}

} // namespace tessel::spec
