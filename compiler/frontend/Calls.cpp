//===- Calls.cpp - @triton.jit calls: inlined calls, specialization, noinline functions -*- C++ -*-===//

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

// ---- functions -----------------------------------------------------------------------------

absl::StatusOr<V> Generator::callFunction(const FunctionDef &fn, CallArgs &args, V self) {
  bool noinline = false;
  if (!isJit(fn, &noinline) && !self) // methods of aggregates are jit functions by default
    return error(args.loc, "'" + fn.name + "' is not a @triton.jit function");
  if (++callDepth_ > 64)
    return error(args.loc, "calls nest too deeply (recursion is not supported)");
  Frame frame;
  frame.fn = &fn;
  frame.module = moduleOf(fn);
  size_t first = self ? 1 : 0;
  if (self && fn.params.empty())
    return error(fn.loc,
                 "method '" + fn.name + "' needs a first parameter for the object (self)");
  if (self)
    frame.vars[fn.params[0].name] = self;
  if (args.positional.size() > fn.params.size() - first)
    return error(args.loc, "'" + fn.name + "' takes " +
                               std::to_string(fn.params.size() - first) + " arguments, " +
                               std::to_string(args.positional.size()) + " given");
  for (size_t k = 0; k < args.positional.size(); ++k)
    frame.vars[fn.params[first + k].name] = args.positional[k];
  for (auto &kw : args.keywords) {
    auto it = std::find_if(fn.params.begin(), fn.params.end(),
                           [&](const Param &p) { return p.name == kw.first; });
    if (it == fn.params.end())
      return error(args.loc, "'" + fn.name + "' has no parameter '" + kw.first + "'");
    if (frame.vars.count(kw.first))
      return error(args.loc, "'" + fn.name + "' got two values for '" + kw.first + "'");
    frame.vars[kw.first] = kw.second;
  }
  for (const Param &p : fn.params) {
    if (frame.vars.count(p.name))
      continue;
    if (!p.defaultValue)
      return error(args.loc, "'" + fn.name + "' is missing the argument '" + p.name + "'");
    frames_.emplace_back().module = moduleOf(fn);
    ASSIGN_OR_RETURN(V d, eval(*p.defaultValue));
    frames_.pop_back();
    frame.vars[p.name] = d;
  }
  for (const Param &p : fn.params) {
    if (!p.annotation)
      continue;
    const Expr &a = *p.annotation;
    bool isConstexprAnnotation =
        (a.kind == ExprKind::Attribute || a.kind == ExprKind::Name) && a.name == "constexpr";
    // An inlined helper's tl.constexpr annotation is ignored for a runtime value, as Triton
    // does; a noinline function is specialized on its constexprs, so there it must be one.
    if (noinline && isConstexprAnnotation && frame.vars[p.name]->kind == Val::Tensor)
      return error(args.loc, "'" + p.name + "' of the noinline function '" + fn.name +
                                 "' is a tl.constexpr parameter but got a runtime value");
  }
  if (noinline) {
    ASSIGN_OR_RETURN(V result, callNoinline(fn, frame.vars, args.loc));
    --callDepth_;
    return result;
  }
  frames_.push_back(std::move(frame));
  RETURN_IF_ERROR(exec(fn.body));
  Frame done = std::move(frames_.back());
  frames_.pop_back();
  --callDepth_;
  return done.returned && done.returnValue ? done.returnValue : makeNone();
}

/// Two constexprs of the same kind and value (ints, floats, bools, None).
bool equalConstexprs(const V &a, const V &b) {
  return a->isConstexpr() && b->isConstexpr() && a->kind == b->kind && a->i == b->i &&
         a->f == b->f;
}

/// A readable, symbol-safe spelling of a type or constexpr for mangled names.
static std::string mangle(const V &v) {
  std::string out;
  switch (v->kind) {
  case Val::Tensor: {
    llvm::raw_string_ostream os(out);
    os << v->value.getType();
    if (v->isUnsigned)
      out += "u";
    break;
  }
  case Val::Int:
    out = "c" + std::to_string(v->i);
    break;
  case Val::Bool:
    out = v->i ? "cTrue" : "cFalse";
    break;
  case Val::Float: {
    char buf[32];
    std::snprintf(buf, sizeof buf, "c%a", v->f);
    out = buf;
    break;
  }
  case Val::None:
    out = "cNone";
    break;
  case Val::Dtype: {
    llvm::raw_string_ostream os(out);
    os << "d" << v->type;
    break;
  }
  case Val::Str:
    out = "s" + v->s;
    break;
  default:
    out = "o";
  }
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return out;
}

/// What a noinline specialization depends on, spelled exactly (no two different values share
/// a spelling): runtime values by type, everything else by value, aggregates field by field
/// (nested ones and their constexpr, dtype and string fields included).
static void specializationKey(const V &v, std::string &out, std::set<const void *> &seen) {
  switch (v->kind) {
  case Val::Tensor: {
    llvm::raw_string_ostream os(out);
    os << "T" << v->value.getType() << (v->isUnsigned ? "u" : "");
    return;
  }
  case Val::Str:
    out += "S" + std::to_string(v->s.size()) + ":" + v->s;
    return;
  case Val::Aggregate:
    if (!seen.insert(v->obj.get()).second) {
      out += "A<cycle>";
      return;
    }
    out += "A" + v->obj->cls->name + "{";
    for (const Field &f : v->obj->cls->fields) {
      auto it = v->obj->fields.find(f.name);
      out += f.name + "=";
      if (it == v->obj->fields.end())
        out += "unset";
      else
        specializationKey(it->second, out, seen);
      out += ";";
    }
    out += "}";
    return;
  case Val::Tuple:
    out += "(";
    for (const V &item : v->items) {
      specializationKey(item, out, seen);
      out += ",";
    }
    out += ")";
    return;
  case Val::Int:
    out += "I" + std::to_string(v->i) + ";";
    return;
  case Val::Bool:
    out += v->i ? "True;" : "False;";
    return;
  case Val::Float: {
    // Hexadecimal: exact (mangle's symbol-safe spelling is not: 2.0 and 0.5 both end in _1).
    char buf[40];
    std::snprintf(buf, sizeof buf, "F%a;", v->f);
    out += buf;
    return;
  }
  case Val::Dtype: {
    llvm::raw_string_ostream os(out);
    os << "D" << v->type << (v->isUnsigned ? "u" : "") << ";";
    return;
  }
  default:
    // None, and what a noinline function cannot take (refused before the key is built).
    out += mangle(v) + ";";
    return;
  }
}

absl::StatusOr<V> Generator::callNoinline(const FunctionDef &fn,
                                          const std::map<std::string, V> &bound,
                                          SourceLocation at) {
  // One private function per distinct signature: runtime parameters by type, the others
  // (constexprs, dtypes) by value.
  std::string name = fn.name + "__";
  SmallVector<Value> operands;
  SmallVector<Type> types;
  std::vector<const Param *> runtime;
  std::map<std::string, V> args = bound;
  // Aggregate arguments travel as their tensor fields; the callee returns their final values
  // as extra results, written back here (mutations of a mutable argument are visible).
  std::vector<FieldSlot> argFields;
  std::set<AggObject *> seenObjects;
  std::map<AggObject *, std::string> ownerParam;
  for (const Param &p : fn.params) {
    V &v = args.at(p.name);
    // Numbers passed to parameters not marked tl.constexpr are runtime scalars, as in Triton.
    bool isConstexprParam = p.annotation && p.annotation->name == "constexpr";
    if (!isConstexprParam && v->isNumber()) {
      ASSIGN_OR_RETURN(v, toTensor(v, at));
    }
    if (v->kind == Val::Tuple || v->kind == Val::Function || v->kind == Val::Builtin ||
        v->kind == Val::Namespace || v->kind == Val::Method || v->kind == Val::Class ||
        v->kind == Val::Descriptor)
      return error(at, "the noinline function '" + fn.name + "' cannot take " + describe(v) +
                           " (parameter '" + p.name + "')");
    if (v->kind == Val::Aggregate) {
      std::vector<FieldSlot> own;
      std::set<AggObject *> mine;
      collectFields(v, own, mine);
      mine.insert(v->obj.get());
      for (AggObject *o : mine) {
        auto [it, fresh] = ownerParam.emplace(o, p.name);
        if (!fresh)
          return error(at, "the same aggregate object is passed to the parameters '" +
                               it->second + "' and '" + p.name + "' of the noinline function '" +
                               fn.name +
                               "': its mutations could not be written back to one object; pass "
                               "it once");
      }
      name += "_" + v->obj->cls->name;
      for (const FieldSlot &f : own) {
        V fv = f.obj->fields[f.field];
        name += "_" + mangle(fv);
        operands.push_back(fv->value);
        types.push_back(fv->value.getType());
      }
      for (const Field &f : v->obj->cls->fields) {
        auto it = v->obj->fields.find(f.name);
        if (it != v->obj->fields.end() && it->second->isConstexpr())
          name += "_" + f.name + mangle(it->second);
      }
      argFields.insert(argFields.end(), own.begin(), own.end());
      continue;
    }
    name += "_" + mangle(v);
    if (v->kind == Val::Tensor) {
      operands.push_back(v->value);
      types.push_back(v->value.getType());
      runtime.push_back(&p);
    }
  }
  // The cache is keyed by the function (two files may each have an `f`) and the exact
  // specialization; the symbol is the readable name, made unique when two specializations
  // would share it.
  std::string key = fn.name + "@" + std::to_string(reinterpret_cast<uintptr_t>(&fn)) + "(";
  {
    std::set<const void *> seen;
    for (const Param &p : fn.params) {
      specializationKey(args.at(p.name), key, seen);
      key += ",";
    }
  }
  key += ")";
  auto cached = noinline_.find(key);
  if (cached == noinline_.end()) {
    if (std::find(noinlineInProgress_.begin(), noinlineInProgress_.end(), key) !=
        noinlineInProgress_.end())
      return error(at, "the noinline function '" + fn.name + "' calls itself; recursion is not "
                                                             "supported");
    noinlineInProgress_.push_back(key);
    // A readable name another specialization already took (symbol-safe spellings can
    // coincide): the first free numbered variant.
    const std::string base = name;
    for (int suffix = 1; noinlineSymbols_.count(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    noinlineSymbols_.insert(name);
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToEnd(moduleOp_.getBody());
    auto func = tt::FuncOp::create(b_, loc(fn.loc), name, b_.getFunctionType(types, {}));
    func.setSymVisibility("private");
    func->setAttr("noinline", b_.getBoolAttr(true));
    SmallVector<Location> argLocs(types.size(), loc(fn.loc));
    mlir::Block *entry = b_.createBlock(&func.getBody(), {}, types, argLocs);
    Frame frame;
    frame.fn = &fn;
    frame.module = moduleOf(fn);
    size_t k = 0;
    std::vector<FieldSlot> calleeFields;
    for (const Param &p : fn.params) {
      const V &v = args.at(p.name);
      if (v->kind == Val::Aggregate) {
        // A copy of the object graph whose tensor fields are the function's arguments.
        std::map<AggObject *, Obj> copies;
        std::function<V(const V &)> copy = [&](const V &x) -> V {
          if (x->kind == Val::Tuple) {
            std::vector<V> items;
            for (const V &item : x->items)
              items.push_back(copy(item));
            return makeTuple(items);
          }
          if (x->kind != Val::Aggregate)
            return x;
          auto found = copies.find(x->obj.get());
          V out = newVal(Val::Aggregate);
          if (found != copies.end()) {
            out->obj = found->second;
            return out;
          }
          out->obj = std::make_shared<AggObject>();
          out->obj->cls = x->obj->cls;
          copies[x->obj.get()] = out->obj;
          for (const Field &f : x->obj->cls->fields) {
            auto it = x->obj->fields.find(f.name);
            if (it == x->obj->fields.end())
              continue;
            out->obj->fields[f.name] = it->second->kind == Val::Tensor
                                           ? makeTensor(entry->getArgument(k++),
                                                        it->second->isUnsigned)
                                           : copy(it->second);
          }
          return out;
        };
        V c = copy(v);
        std::set<AggObject *> seen;
        collectFields(c, calleeFields, seen);
        frame.vars[p.name] = c;
        continue;
      }
      frame.vars[p.name] =
          v->kind == Val::Tensor ? makeTensor(entry->getArgument(k++), v->isUnsigned) : v;
    }
    frames_.push_back(std::move(frame));
    RETURN_IF_ERROR(exec(fn.body));
    Frame done = std::move(frames_.back());
    frames_.pop_back();
    // The results: nothing, one value or a tuple of values (constexpr numbers materialized).
    NoinlineInfo info;
    SmallVector<Value> results;
    if (done.returned && done.returnValue && done.returnValue->kind != Val::None) {
      info.tuple = done.returnValue->kind == Val::Tuple;
      std::vector<V> items = info.tuple ? done.returnValue->items : std::vector<V>{done.returnValue};
      for (const V &item : items) {
        ASSIGN_OR_RETURN(V t, carryable(item, fn.loc));
        if (!t)
          return error(fn.loc, "the noinline function '" + fn.name + "' returns " +
                                   describe(item) +
                                   "; it may return tensors, scalars and tuples of them");
        results.push_back(t->value);
        info.unsignedResults.push_back(t->isUnsigned);
      }
    }
    info.numReturns = results.size();
    for (size_t f = 0; f < calleeFields.size(); ++f) {
      V fv = calleeFields[f].obj->fields[calleeFields[f].field];
      ASSIGN_OR_RETURN(V t, carryable(fv, fn.loc));
      if (!t)
        return error(fn.loc, "the noinline function '" + fn.name + "' leaves the field '" +
                                 calleeFields[f].field + "' holding " + describe(fv) +
                                 "; a mutable argument's tensor fields must stay tensors");
      results.push_back(t->value);
      info.unsignedResults.push_back(t->isUnsigned);
    }
    tt::ReturnOp::create(b_, loc(fn.loc), results);
    SmallVector<Type> resultTypes;
    for (Value r : results)
      resultTypes.push_back(r.getType());
    func.setFunctionType(b_.getFunctionType(types, resultTypes));
    info.func = func;
    noinlineInProgress_.pop_back();
    cached = noinline_.emplace(key, info).first;
  }
  const NoinlineInfo &info = cached->second;
  auto call = tt::CallOp::create(b_, loc(at), info.func, operands);
  // Write the mutable arguments' final fields back into the caller's objects.
  for (size_t f = 0; f < argFields.size(); ++f) {
    Value r = call.getResult(info.numReturns + f);
    if (r.getType() != argFields[f].obj->fields[argFields[f].field]->value.getType())
      return error(at, "the noinline function '" + fn.name +
                           "' changes the type of the field '" + argFields[f].field +
                           "' of its argument");
    argFields[f].obj->fields[argFields[f].field] =
        makeTensor(r, info.unsignedResults[info.numReturns + f]);
  }
  if (info.numReturns == 0)
    return makeNone();
  std::vector<V> items;
  for (unsigned k = 0; k < info.numReturns; ++k)
    items.push_back(makeTensor(call.getResult(k), info.unsignedResults[k]));
  return info.tuple ? makeTuple(items) : items.front();
}

} // namespace tessel::frontend
