//===- Imports.cpp - kernel files and their names: imports, module members, globals -*- C++ -*-===//

#include "compiler/frontend/Generator.h"
#include "compiler/frontend/Parser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

using namespace mlir;

namespace tessel::frontend {

void Generator::indexModule(ModuleCtx &ctx) {
  for (const FunctionDef &fn : ctx.ast->functions) {
    ctx.functions[fn.qualifiedName()] = &fn;
    fnModule_[&fn] = &ctx;
  }
  for (const HostName &h : ctx.ast->hostNames)
    ctx.hostNames.emplace(h.qualifiedName(), &h);
  for (const ClassDef &cls : ctx.ast->classes) {
    ctx.classes[cls.name] = &cls;
    for (const FunctionDef &m : cls.methods)
      fnModule_[&m] = &ctx;
  }
  for (const StmtPtr &s : ctx.ast->globals)
    if ((s->kind == StmtKind::Assign || s->kind == StmtKind::AnnAssign) && !s->targets.empty())
      for (const ExprPtr &t : s->targets)
        if (t->kind == ExprKind::Name)
          ctx.globalDefs[s->scope.empty() ? t->name : s->scope + "." + t->name] = s.get();
}

std::string Generator::currentScope() const {
  if (frames_.empty())
    return "";
  return frames_.back().fn ? frames_.back().fn->scope : frames_.back().scope;
}

ModuleCtx *Generator::currentModule() const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->module)
      return it->module;
  return const_cast<ModuleCtx *>(&modules_.front());
}

ModuleCtx *Generator::moduleOf(const FunctionDef &fn) {
  auto it = fnModule_.find(&fn);
  return it == fnModule_.end() ? &modules_.front() : it->second;
}

absl::StatusOr<ModuleCtx *> Generator::loadModule(const std::string &dotted,
                                                  SourceLocation at) {
  ModuleCtx *from = currentModule();
  std::string rel = dotted;
  std::replace(rel.begin(), rel.end(), '.', '/');
  std::string path = from->dir + "/" + rel + ".py";
  if (auto it = modulesByPath_.find(path); it != modulesByPath_.end())
    return it->second;
  std::ifstream in(path);
  if (!in)
    return error(at, "cannot import '" + dotted + "': no file " + path +
                         " (kernels may import triton and kernel files next to them)");
  std::stringstream text;
  text << in.rdbuf();
  ModuleCtx &ctx = modules_.emplace_back();
  modulesByPath_[path] = &ctx;
  ctx.ownedFile = std::make_unique<SourceFile>(path, text.str());
  ctx.file = ctx.ownedFile.get();
  absl::StatusOr<Module> parsed = Parse(*ctx.file);
  if (!parsed.ok())
    return error(at,
                 "cannot import '" + dotted + "':\n" + std::string(parsed.status().message()));
  ctx.ownedAst = std::make_unique<Module>(*std::move(parsed));
  ctx.ast = ctx.ownedAst.get();
  size_t slash = path.rfind('/');
  ctx.dir = path.substr(0, slash);
  indexModule(ctx);
  return &ctx;
}

absl::StatusOr<V> Generator::moduleMember(ModuleCtx &ctx, const std::string &name,
                                          SourceLocation at) {
  // A name the imported file does not define is an error at `at`, in the importing file (in
  // the imported file's frame it would be reported against the wrong file's text).
  bool defined = ctx.globals.count(name) || ctx.globalDefs.count(name) ||
                 ctx.functions.count(name) || ctx.classes.count(name) ||
                 llvm::any_of(ctx.ast->imports, [&](const Import &i) { return i.alias == name; });
  if (!defined)
    return error(at, "the kernel file " + ctx.file->name() + " has no '" + name + "'");
  if (auto it = ctx.classes.find(name); it != ctx.classes.end() && !isAggregateClass(*it->second))
    return error(at,
                 "'" + name + "' is a class but not a @tl.aggregate; kernels use aggregates only");
  Frame frame;
  frame.module = &ctx;
  frames_.push_back(std::move(frame));
  ASSIGN_OR_RETURN(V v, evalGlobal(name, at));
  frames_.pop_back();
  return v;
}


// ---- names and attributes ------------------------------------------------------------------

bool Generator::isJit(const FunctionDef &fn, bool *noinline) {
  for (const ExprPtr &d : fn.decorators) {
    const Expr *callee = d.get();
    if (d->kind == ExprKind::Call)
      callee = d->operands[0].get();
    std::string name;
    if (callee->kind == ExprKind::Attribute)
      name = callee->name;
    else if (callee->kind == ExprKind::Name)
      name = callee->name;
    if (name == "jit") {
      if (noinline && d->kind == ExprKind::Call)
        for (auto &kw : d->keywords)
          if (kw.first == "noinline" && kw.second->kind == ExprKind::Bool)
            *noinline = kw.second->intValue != 0;
      return true;
    }
  }
  return false;
}

absl::StatusOr<V> Generator::resolveNamespace(const std::string &path,
                                              const std::string &member, SourceLocation at) {
  if (path == "triton") {
    if (member == "language")
      return makeNamespace("triton.language");
    if (member == "jit" || member == "autotune" || member == "heuristics" || member == "Config")
      return makeBuiltin("triton." + member);
    if (member == "cdiv" || member == "next_power_of_2")
      return makeBuiltin(member);
    return error(at, "'triton." + member + "' is not supported in a kernel");
  }
  if (path == "triton.language") {
    bool u = false;
    if (Type t = parseTypeName(member, u))
      return makeDtype(t, u);
    if (member == "math" || member == "extra" || member == "libdevice" || member == "core" ||
        member == "standard")
      return makeNamespace(member == "core" || member == "standard" ? "triton.language"
                                                                    : "triton.language.math");
    if (member == "constexpr")
      return makeBuiltin("constexpr");
    if (member == "pi32_t")
      return error(at, "'tl.pi32_t' is not supported");
    return makeBuiltin(member);
  }
  if (path == "triton.language.math") {
    if (member == "cuda" || member == "libdevice" || member == "hip")
      return makeNamespace(path);
    return makeBuiltin("math." + member);
  }
  return error(at, "unknown module '" + path + "'");
}

absl::StatusOr<V> Generator::evalGlobal(const std::string &name, SourceLocation at) {
  ModuleCtx &ctx = *currentModule();
  // Python's scoping for a kernel nested in host functions: the enclosing functions' names,
  // innermost first, then the module's.
  for (std::string scope = currentScope(); !scope.empty();) {
    std::string key = scope + "." + name;
    if (ctx.ast->classScopes.count(scope))
      key.clear(); // a class body's names are not visible to the functions in it
    if (auto it = ctx.globals.find(key); !key.empty() && it != ctx.globals.end())
      return it->second;
    if (!key.empty() &&
        (ctx.hostNames.count(key) || ctx.globalDefs.count(key) || ctx.functions.count(key)))
      return evalScoped(ctx, key, name, at);
    size_t dot = scope.rfind('.');
    scope = dot == std::string::npos ? "" : scope.substr(0, dot);
  }
  if (auto it = ctx.globals.find(name); it != ctx.globals.end())
    return it->second;
  if (ctx.hostNames.count(name))
    return evalScoped(ctx, name, name, at);
  for (const Import &imp : ctx.ast->imports) {
    if (imp.alias != name)
      continue;
    std::string path = imp.module;
    V v;
    if (path != "triton" && path.rfind("triton.", 0) != 0) {
      ASSIGN_OR_RETURN(ModuleCtx *other, loadModule(path, imp.loc));
      if (imp.name.empty()) {
        v = makeNamespace(path);
        v->mod = other;
      } else {
        ASSIGN_OR_RETURN(v, moduleMember(*other, imp.name, imp.loc));
      }
    } else {
      if (path == "triton.language.math" || path == "triton.language.extra" ||
          path.rfind("triton.language.extra.", 0) == 0)
        path = "triton.language.math";
      if (imp.name.empty()) {
        v = makeNamespace(path);
      } else {
        ASSIGN_OR_RETURN(v, resolveNamespace(path, imp.name, imp.loc));
      }
    }
    ctx.globals[name] = v;
    return v;
  }
  return evalScoped(ctx, name, name, at);
}

absl::StatusOr<V> Generator::evalScoped(ModuleCtx &ctx, const std::string &qualified,
                                        const std::string &name, SourceLocation at) {
  if (auto it = ctx.hostNames.find(qualified); it != ctx.hostNames.end()) {
    const HostName &h = *it->second;
    return error(at, "'" + name + "' is " + h.what + " (line " + std::to_string(h.loc.line) +
                         "), which tessel does not run: a kernel uses @triton.jit functions, "
                         "aggregates, imports and constants assigned in straight-line code");
  }
  if (auto it = ctx.globalDefs.find(qualified); it != ctx.globalDefs.end()) {
    std::string key = ctx.file->name() + ":" + qualified;
    if (std::find(evaluatingGlobals_.begin(), evaluatingGlobals_.end(), key) !=
        evaluatingGlobals_.end())
      return error(at, "the module constant '" + name + "' is defined in terms of itself");
    evaluatingGlobals_.push_back(key);
    const Stmt &def = *it->second;
    Frame frame;
    frame.module = &ctx;
    frame.scope = def.scope;
    frames_.push_back(std::move(frame));
    if (!def.value)
      return error(def.loc, "the module constant '" + name + "' has no value");
    ASSIGN_OR_RETURN(V v, eval(*def.value));
    frames_.pop_back();
    evaluatingGlobals_.pop_back();
    if (v->kind == Val::Tensor)
      return error(def.loc, "module-level '" + name + "' must be a compile-time constant");
    ctx.globals[qualified] = v;
    return v;
  }
  if (auto it = ctx.functions.find(qualified); it != ctx.functions.end()) {
    V v = newVal(Val::Function);
    v->fn = it->second;
    return v;
  }
  if (auto it = ctx.classes.find(name); it != ctx.classes.end()) {
    if (!isAggregateClass(*it->second))
      return error(at, "'" + name +
                           "' is a class but not a @tl.aggregate; kernels use aggregates only");
    V v = newVal(Val::Class);
    v->cls = it->second;
    return v;
  }
  static const std::set<std::string> pythonBuiltins = {
      "range", "min", "max", "float", "int", "bool", "len", "print", "isinstance", "abs"};
  if (pythonBuiltins.count(name))
    return makeBuiltin("py." + name);
  return error(at, "name '" + name + "' is not defined");
}

absl::StatusOr<V> Generator::evalName(const Expr &e) {
  for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
    if (auto it = frame->vars.find(e.name); it != frame->vars.end())
      return it->second;
    break; // Python scoping: a function sees its locals, then module globals
  }
  return evalGlobal(e.name, e.loc);
}

} // namespace tessel::frontend
