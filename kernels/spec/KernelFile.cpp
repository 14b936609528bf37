//===- KernelFile.cpp - a kernel file's host code, evaluated for a target -===//

#include "kernels/spec/KernelFile.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include <set>

namespace tessel::spec {

using expr::Loc;
using expr::Token;
using expr::Value;

namespace {

absl::Status Error(const Loc &loc, const std::string &message) {
  return absl::InvalidArgumentError(absl::StrCat(loc.Text(), ": error: ", message));
}

using Args = std::vector<Value>;
using Kwargs = std::vector<std::pair<std::string, Value>>;

/// An object whose call returns itself (`@triton.jit`, `@triton.jit(debug=True)`).
Value Decorator(const std::string &type, std::map<std::string, Value> attrs = {}) {
  Value v = Value::MakeObject(type, std::move(attrs));
  std::weak_ptr<expr::Object> self = v.obj;
  v.obj->attrs["__call__"] = Value::Function(
      type, [self, type](const Args &, const Kwargs &, const Loc &) -> absl::StatusOr<Value> {
        Value out;
        out.kind = Value::Kind::Object;
        out.obj = self.lock();
        return out;
      });
  return v;
}

/// Binds Python-style parameters `names` from positional `args` and keyword `kwargs`.
absl::StatusOr<std::map<std::string, Value>>
BindArgs(const std::string &fn, const std::vector<std::string> &names, const Args &args,
         const Kwargs &kwargs, const Loc &loc, size_t required) {
  std::map<std::string, Value> out;
  if (args.size() > names.size())
    return Error(loc, absl::StrCat(fn, "() takes at most ", names.size(),
                                   " positional arguments, ", args.size(), " given"));
  for (size_t k = 0; k < args.size(); ++k)
    out[names[k]] = args[k];
  for (const auto &[k, v] : kwargs) {
    if (std::find(names.begin(), names.end(), k) == names.end())
      return Error(loc, fn + "() got an unexpected keyword argument '" + k + "'");
    if (!out.emplace(k, v).second)
      return Error(loc, fn + "() got argument '" + k + "' twice");
  }
  for (size_t k = 0; k < required; ++k)
    if (!out.count(names[k]))
      return Error(loc, fn + "() missing argument '" + names[k] + "'");
  return out;
}

Value TritonModule(const Target &target) {
  const expr::ScopePtr &builtins = expr::SharedBuiltins();
  std::map<std::string, Value> triton;
  triton["__version__"] = Value::Str(kTritonVersion);
  triton["cdiv"] = builtins->vars.at("cdiv");
  triton["next_power_of_2"] = builtins->vars.at("next_power_of_2");
  triton["Config"] = Value::Function(
      "triton.Config", [](const Args &a, const Kwargs &kw, const Loc &loc) -> absl::StatusOr<Value> {
        auto bound = BindArgs("triton.Config",
                              {"kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg",
                               "pre_hook", "ir_override", "num_buffers_warp_spec",
                               "num_consumer_groups", "reg_dec_producer", "reg_inc_consumer"},
                              a, kw, loc, 1);
        if (!bound.ok())
          return bound.status();
        if (bound->at("kwargs").kind != Value::Kind::Dict)
          return Error(loc, "triton.Config's first argument is a dict of meta-parameters, not " +
                                bound->at("kwargs").TypeName());
        std::map<std::string, Value> attrs = *bound;
        attrs["__loc__"] = Value::Str(loc.Text());
        return Value::MakeObject("triton.Config", attrs);
      });
  triton["autotune"] = Value::Function(
      "triton.autotune", [](const Args &a, const Kwargs &kw, const Loc &loc) -> absl::StatusOr<Value> {
        auto bound = BindArgs("triton.autotune",
                              {"configs", "key", "prune_configs_by", "reset_to_zero",
                               "restore_value", "pre_hook", "post_hook", "warmup", "rep",
                               "use_cuda_graph", "do_bench", "cache_results"},
                              a, kw, loc, 2);
        if (!bound.ok())
          return bound.status();
        return Decorator("triton.autotune", *bound);
      });
  triton["heuristics"] = Value::Function(
      "triton.heuristics", [](const Args &a, const Kwargs &kw, const Loc &loc) -> absl::StatusOr<Value> {
        auto bound = BindArgs("triton.heuristics", {"values"}, a, kw, loc, 1);
        if (!bound.ok())
          return bound.status();
        return Decorator("triton.heuristics", *bound);
      });
  triton["jit"] = Decorator("triton.jit");
  // get_current_target(): what Triton's driver reports for the target being tuned.
  std::string backend = target.kind == TargetKind::Cuda   ? "cuda"
                        : target.kind == TargetKind::Rocm ? "hip"
                                                          : "cpu";
  Value arch = Value::Str(target.kind == TargetKind::Cpu ? (target.cpu.empty() ? "host" : target.cpu)
                                                         : target.arch);
  if (target.kind == TargetKind::Cuda) { // Triton's cuda arch is the capability as an int: 90
    std::string digits;
    for (char c : target.arch)
      if (std::isdigit((unsigned char)c))
        digits += c;
    arch = Value::Int(digits.empty() ? 0 : std::stoll(digits));
  }
  Value gpuTarget = Value::MakeObject(
      "GPUTarget", {{"backend", Value::Str(backend)},
                    {"arch", arch},
                    {"warp_size", Value::Int(target.kind == TargetKind::Rocm ? 64
                                             : target.kind == TargetKind::Cuda ? 32
                                                                               : 1)}});
  Value active = Value::MakeObject(
      "triton driver",
      {{"get_current_target",
        Value::Function("get_current_target",
                        [gpuTarget](const Args &, const Kwargs &, const Loc &) {
                          return absl::StatusOr<Value>(gpuTarget);
                        })},
       {"get_active_torch_device",
        Value::Function("get_active_torch_device", [backend](const Args &, const Kwargs &,
                                                              const Loc &) {
          return absl::StatusOr<Value>(Value::MakeObject(
              "torch.device", {{"type", Value::Str(backend == "cpu" ? "cpu" : "cuda")}}));
        })}});
  Value driver = Value::MakeObject("module triton.runtime.driver", {{"active", active}});
  triton["runtime"] = Value::MakeObject("module triton.runtime", {{"driver", driver}});
  Value identity = Value::Function("constexpr", [](const Args &a, const Kwargs &, const Loc &) {
    return absl::StatusOr<Value>(a.empty() ? Value::None() : a[0]);
  });
  triton["language"] = Value::MakeObject(
      "module triton.language", {{"constexpr", identity}, {"cdiv", triton["cdiv"]}});
  return Value::MakeObject("module triton", triton);
}

Value TorchModule(const Target &target) {
  bool cuda = target.kind == TargetKind::Cuda, rocm = target.kind == TargetKind::Rocm;
  // Capability: sm_90a -> (9, 0); rocm reports its own (gfx942: 9.4) as torch does.
  int major = 0, minor = 0;
  if (cuda) {
    std::string digits;
    for (char c : target.arch)
      if (std::isdigit((unsigned char)c))
        digits += c;
    if (digits.size() >= 2) {
      major = std::stoi(digits.substr(0, digits.size() - 1));
      minor = digits.back() - '0';
    }
  } else if (rocm && target.arch.size() >= 5) {
    major = target.arch[3] - '0';
    minor = target.arch[4] - '0';
  }
  std::string kind = TargetKindName(target.kind);
  Value capability = Value::Function(
      "torch.cuda.get_device_capability",
      [cuda, rocm, major, minor, kind](const Args &, const Kwargs &,
                                       const Loc &loc) -> absl::StatusOr<Value> {
        if (!cuda && !rocm)
          return Error(loc, "torch.cuda.get_device_capability() has no answer for a " + kind +
                                " target (torch.cuda.is_available() is False there)");
        return Value::Tuple({Value::Int(major), Value::Int(minor)});
      });
  Value available = Value::Function("torch.cuda.is_available",
                                    [cuda, rocm](const Args &, const Kwargs &, const Loc &) {
                                      return absl::StatusOr<Value>(Value::Bool(cuda || rocm));
                                    });
  Value torchCuda = Value::MakeObject("module torch.cuda",
                                      {{"get_device_capability", capability},
                                       {"is_available", available}});
  Value version = Value::MakeObject(
      "module torch.version",
      {{"hip", rocm ? Value::Str("7.0") : Value::None()},
       {"cuda", cuda ? Value::Str("13.0") : Value::None()}});
  return Value::MakeObject("module torch", {{"__version__", Value::Str(kTorchVersion)},
                                            {"cuda", torchCuda},
                                            {"version", version}});
}

} // namespace

expr::ScopePtr TargetModules(const Target &target) {
  expr::ScopePtr s = expr::Scope::Child(expr::Builtins());
  s->vars["triton"] = TritonModule(target);
  s->vars["torch"] = TorchModule(target);
  return s;
}

absl::StatusOr<std::unique_ptr<KernelFile>> KernelFile::Read(const std::string &path,
                                                             const std::string &text,
                                                             const std::string &entry) {
  std::unique_ptr<KernelFile> f(new KernelFile());
  f->path_ = path;
  f->entry_ = entry;
  auto tokens = expr::Tokenize(text, path);
  if (!tokens.ok())
    return tokens.status();
  f->tokens_ = *std::move(tokens);
  if (absl::Status s = f->Scan(); !s.ok())
    return s;
  return f;
}

size_t KernelFile::SkipStatement(size_t pos) const {
  while (tokens_[pos].kind != Token::Kind::Newline && tokens_[pos].kind != Token::Kind::End)
    ++pos;
  if (tokens_[pos].kind == Token::Kind::Newline)
    ++pos;
  if (tokens_[pos].kind == Token::Kind::Indent) {
    int depth = 0;
    do {
      if (tokens_[pos].kind == Token::Kind::Indent)
        ++depth;
      else if (tokens_[pos].kind == Token::Kind::Dedent)
        --depth;
      ++pos;
    } while (depth > 0 && tokens_[pos].kind != Token::Kind::End);
  }
  return pos;
}

absl::Status KernelFile::Scan() {
  size_t pos = 0;
  std::vector<std::string> kernels;
  bool found = false;
  auto is = [&](size_t p, const char *name) { return tokens_[p].Is(Token::Kind::Name, name); };
  while (tokens_[pos].kind != Token::Kind::End) {
    const Token &t = tokens_[pos];
    if (t.kind == Token::Kind::Newline || t.kind == Token::Kind::Dedent) {
      ++pos;
      continue;
    }
    if (t.kind == Token::Kind::Indent) {
      pos = SkipStatement(pos);
      continue;
    }
    std::vector<size_t> decorators;
    bool jit = false;
    while (tokens_[pos].Is(Token::Kind::Op, "@")) {
      decorators.push_back(pos + 1);
      for (size_t p = pos + 1; tokens_[p].kind != Token::Kind::Newline &&
                               tokens_[p].kind != Token::Kind::End && !tokens_[p].Is(Token::Kind::Op, "(");
           ++p)
        jit = jit || is(p, "jit");
      pos = SkipStatement(pos);
    }
    size_t p = pos + (is(pos, "async") ? 1 : 0);
    if (is(p, "def") && tokens_[p + 1].kind == Token::Kind::Name) {
      const std::string name = tokens_[p + 1].text;
      Binding b{jit ? Binding::Kind::Kernel : Binding::Kind::Def, p, "", "", "",
                tokens_[p + 1].loc};
      bindings_[name] = b;
      if (jit) {
        kernels.push_back(name);
        decorators_[name] = decorators;
      }
      if (jit && name == entry_) {
        found = true;
        entryLoc_ = tokens_[p + 1].loc;
        // The parameters: NAME [: annotation] [= default], at depth 1 of the parentheses.
        size_t q = p + 2;
        int depth = 0;
        KernelParam *current = nullptr;
        bool inAnnotation = false, inDefault = false;
        for (; tokens_[q].kind != Token::Kind::End; ++q) {
          const Token &k = tokens_[q];
          if (k.Is(Token::Kind::Op, "(") || k.Is(Token::Kind::Op, "[") ||
              k.Is(Token::Kind::Op, "{")) {
            ++depth;
            continue;
          }
          if (k.Is(Token::Kind::Op, ")") || k.Is(Token::Kind::Op, "]") ||
              k.Is(Token::Kind::Op, "}")) {
            if (--depth == 0)
              break;
            continue;
          }
          if (depth != 1)
            continue;
          if (k.Is(Token::Kind::Op, ",")) {
            current = nullptr;
            inAnnotation = inDefault = false;
          } else if (k.Is(Token::Kind::Op, ":") && current) {
            inAnnotation = true;
          } else if (k.Is(Token::Kind::Op, "=") && current) {
            current->hasDefault = true;
            inAnnotation = false;
            inDefault = true;
          } else if (k.kind == Token::Kind::Name && !current && !inDefault) {
            params_.push_back({k.text, k.loc});
            current = &params_.back();
          } else if (k.kind == Token::Kind::Name && inAnnotation && k.text == "constexpr") {
            current->isConstexpr = true;
          }
        }
      }
      pos = SkipStatement(pos);
      continue;
    }
    if (is(pos, "class") && tokens_[pos + 1].kind == Token::Kind::Name) {
      bindings_[tokens_[pos + 1].text] = {Binding::Kind::Host, pos, "", "", "a host class",
                                          tokens_[pos + 1].loc};
      pos = SkipStatement(pos);
      continue;
    }
    if (is(pos, "import") || is(pos, "from")) {
      // import a.b [as c], ...   |   from a.b import c [as d], ...
      size_t q = pos + 1;
      auto dotted = [&](std::string &out) {
        out.clear();
        while (tokens_[q].Is(Token::Kind::Op, ".")) { // relative: from .utils import x
          out += ".";
          ++q;
        }
        while (tokens_[q].kind == Token::Kind::Name) {
          out += tokens_[q++].text;
          if (!tokens_[q].Is(Token::Kind::Op, "."))
            break;
          out += ".";
          ++q;
        }
      };
      if (is(pos, "import")) {
        for (;;) {
          std::string module;
          Loc loc = tokens_[q].loc;
          dotted(module);
          std::string alias = module.substr(0, module.find('.'));
          std::string bound = alias;
          if (is(q, "as") && tokens_[q + 1].kind == Token::Kind::Name) {
            alias = tokens_[q + 1].text;
            bound = module;
            q += 2;
          }
          if (!alias.empty())
            bindings_[alias] = {Binding::Kind::Import, pos, bound, "", "", loc};
          if (!tokens_[q].Is(Token::Kind::Op, ","))
            break;
          ++q;
        }
      } else {
        std::string module;
        dotted(module);
        if (is(q, "import")) {
          ++q;
          bool paren = tokens_[q].Is(Token::Kind::Op, "(");
          if (paren)
            ++q;
          while (tokens_[q].kind == Token::Kind::Name || tokens_[q].Is(Token::Kind::Op, "*")) {
            std::string member = tokens_[q].text, alias = member;
            Loc loc = tokens_[q].loc;
            ++q;
            if (is(q, "as") && tokens_[q + 1].kind == Token::Kind::Name) {
              alias = tokens_[q + 1].text;
              q += 2;
            }
            if (member != "*")
              bindings_[alias] = {Binding::Kind::Import, pos, module, member, "", loc};
            if (!tokens_[q].Is(Token::Kind::Op, ","))
              break;
            ++q;
          }
        }
      }
      pos = SkipStatement(pos);
      continue;
    }
    static const char *const kCompound[] = {"if", "try", "for", "while", "with", "match"};
    bool compound = false;
    for (const char *word : kCompound)
      compound = compound || is(pos, word);
    if (compound) {
      // Names bound inside are host code's that tessel does not evaluate (yet): an error
      // names them where a decorator uses one.
      size_t end = SkipStatement(pos);
      for (size_t q = pos; q + 1 < end; ++q)
        if (tokens_[q].kind == Token::Kind::Name && tokens_[q + 1].Is(Token::Kind::Op, "=") &&
            (q == 0 || tokens_[q - 1].kind == Token::Kind::Indent ||
             tokens_[q - 1].kind == Token::Kind::Newline))
          bindings_.emplace(tokens_[q].text,
                            Binding{Binding::Kind::Host, q, "", "", "assigned in a '" +
                                    tokens_[pos].text + "' block", tokens_[q].loc});
      pos = end;
      continue;
    }
    // A simple statement: `NAME = ...` / `A, B = ...` bind names.
    for (size_t q = pos; tokens_[q].kind == Token::Kind::Name; q += 2) {
      const Token &after = tokens_[q + 1];
      if (after.Is(Token::Kind::Op, "=") || after.Is(Token::Kind::Op, ":")) {
        for (size_t r = pos; r <= q; r += 2)
          bindings_[tokens_[r].text] = {Binding::Kind::Assign, pos, "", "", "", tokens_[r].loc};
        break;
      }
      if (!after.Is(Token::Kind::Op, ","))
        break;
    }
    pos = SkipStatement(pos);
  }
  if (!found) {
    if (bindings_.count(entry_) && bindings_.at(entry_).kind != Binding::Kind::Kernel)
      return Error(bindings_.at(entry_).loc,
                   "'" + entry_ + "' is not a @triton.jit function at the top level of " +
                       path_);
    return Error(Loc{path_, 1, 1},
                 "no @triton.jit function '" + entry_ + "' at the top level of " + path_ +
                     (kernels.empty() ? " (it has none)"
                                      : " (it has " + absl::StrJoin(kernels, ", ") + ")"));
  }
  return absl::OkStatus();
}

expr::ScopePtr KernelFile::ModuleScope(const Target &target) const {
  expr::ScopePtr modules = TargetModules(target);
  expr::ScopePtr scope = expr::Scope::Child(modules);
  auto evaluating = std::make_shared<std::set<std::string>>();
  std::weak_ptr<expr::Scope> weak = scope;
  scope->lazy = [this, modules, weak, evaluating](const std::string &name, const Loc &loc)
      -> absl::StatusOr<std::optional<Value>> {
    auto it = bindings_.find(name);
    if (it == bindings_.end())
      return std::optional<Value>();
    expr::ScopePtr self = weak.lock();
    if (!self)
      return std::optional<Value>();
    const Binding &b = it->second;
    if (!evaluating->insert(name).second)
      return Error(loc, "'" + name + "' is defined in terms of itself");
    struct Done {
      std::set<std::string> &s;
      std::string n;
      ~Done() { s.erase(n); }
    } done{*evaluating, name};
    switch (b.kind) {
    case Binding::Kind::Kernel:
      return std::optional<Value>(Value::MakeObject("triton.JITFunction " + name));
    case Binding::Kind::Host:
      return Error(loc, "'" + name + "' is " + b.what + " (" + b.loc.Text() +
                            "), which tessel's reader of host code does not evaluate");
    case Binding::Kind::Import: {
      std::vector<std::string> parts = absl::StrSplit(b.module, '.');
      absl::StatusOr<Value> v = modules->Lookup(parts[0], b.loc);
      if (!v.ok() || b.module.empty() || b.module[0] == '.')
        return Error(b.loc, "module '" + b.module + "' is not one tessel's reader of host code "
                            "knows (it knows triton, triton.language, torch)");
      Value at = *v;
      std::vector<std::string> path(parts.begin() + 1, parts.end());
      if (!b.member.empty())
        path.push_back(b.member);
      for (const std::string &p : path) {
        if (at.kind != Value::Kind::Object || !at.obj->attrs.count(p))
          return Error(b.loc, "'" + b.module + (b.member.empty() ? "" : "." + b.member) +
                                  "' is not known to tessel's reader of host code");
        at = at.obj->attrs.at(p);
      }
      return std::optional<Value>(at);
    }
    case Binding::Kind::Def:
    case Binding::Kind::Assign: {
      expr::Parser parser(tokens_, b.pos);
      absl::StatusOr<expr::NodePtr> stmt = parser.Statement();
      if (!stmt.ok())
        return stmt.status();
      if (absl::StatusOr<Value> r = expr::Run({*stmt}, self); !r.ok())
        return r.status();
      auto bound = self->vars.find(name);
      if (bound == self->vars.end())
        return Error(loc, "'" + name + "' is not bound by its statement at " + b.loc.Text());
      return std::optional<Value>(bound->second);
    }
    }
    return std::optional<Value>();
  };
  return scope;
}

absl::StatusOr<Decorators> KernelFile::Evaluate(const Target &target) const {
  Decorators out;
  expr::ScopePtr scope = ModuleScope(target);
  for (size_t at : decorators_.at(entry_)) {
    // Only autotune and heuristics say anything to the tuner; others (jit, a package's own
    // wrappers) are not evaluated.
    bool wanted = false;
    for (size_t p = at; tokens_[p].kind == Token::Kind::Name || tokens_[p].Is(Token::Kind::Op, ".");
         ++p)
      wanted = wanted || tokens_[p].text == "autotune" || tokens_[p].text == "heuristics";
    if (!wanted)
      continue;
    expr::Parser parser(tokens_, at);
    absl::StatusOr<expr::NodePtr> node = parser.Expression();
    if (!node.ok())
      return node.status();
    absl::StatusOr<Value> v = expr::Eval(**node, scope);
    if (!v.ok())
      return v.status();
    if (v->kind != Value::Kind::Object)
      continue;
    const auto &attrs = v->obj->attrs;
    if (v->obj->type == "triton.autotune") {
      out.autotuned = true;
      out.autotuneLoc = (*node)->loc;
      const Value &configs = attrs.at("configs");
      if (configs.kind != Value::Kind::List && configs.kind != Value::Kind::Tuple)
        return Error((*node)->loc, "triton.autotune's configs is a " + configs.TypeName() +
                                       ", not a list of triton.Config");
      for (const Value &c : *configs.items) {
        if (c.kind != Value::Kind::Object || c.obj->type != "triton.Config")
          return Error((*node)->loc, "triton.autotune's configs hold a " + c.TypeName() +
                                         " (" + c.Repr() + "), not a triton.Config");
        TritonConfig tc;
        tc.loc = (*node)->loc;
        for (const auto &[k, x] : c.obj->attrs) {
          if (k == "kwargs") {
            for (const auto &[name, value] : *x.entries) {
              if (name.kind != Value::Kind::Str)
                return Error((*node)->loc, "a triton.Config's meta-parameter name is " +
                                               name.Repr() + ", not a string");
              tc.kwargs.push_back({name.s, value});
            }
          } else if (k != "__loc__" && x.kind != Value::Kind::None) {
            tc.options[k] = x;
          }
        }
        out.configs.push_back(std::move(tc));
      }
      const Value &key = attrs.at("key");
      if (key.kind != Value::Kind::List && key.kind != Value::Kind::Tuple)
        return Error((*node)->loc, "triton.autotune's key is a " + key.TypeName() +
                                       ", not a list of argument names");
      for (const Value &k : *key.items) {
        if (k.kind != Value::Kind::Str)
          return Error((*node)->loc, "triton.autotune's key holds " + k.Repr() +
                                         ", not an argument name");
        out.key.push_back(k.s);
      }
    } else if (v->obj->type == "triton.heuristics") {
      out.heuristicsLoc = (*node)->loc;
      const Value &values = attrs.at("values");
      if (values.kind != Value::Kind::Dict)
        return Error((*node)->loc, "triton.heuristics takes a dict of functions, not " +
                                       values.TypeName());
      for (const auto &[k, fn] : *values.entries) {
        if (k.kind != Value::Kind::Str || fn.kind != Value::Kind::Function)
          return Error((*node)->loc, "triton.heuristics maps names to functions; found " +
                                         k.Repr() + ": " + fn.Repr());
        out.heuristics.push_back({k.s, fn});
      }
    }
  }
  return out;
}

} // namespace tessel::spec
