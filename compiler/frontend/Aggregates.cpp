//===- Aggregates.cpp - @tl.aggregate classes: construction and the fields loops carry -*- C++ -*-===//

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

bool Generator::isAggregateClass(const ClassDef &cls) const {
  for (const ExprPtr &d : cls.decorators) {
    const Expr *callee = d->kind == ExprKind::Call ? d->operands[0].get() : d.get();
    if ((callee->kind == ExprKind::Attribute || callee->kind == ExprKind::Name) &&
        (callee->name == "aggregate" || callee->name == "_aggregate"))
      return true;
  }
  return false;
}

absl::StatusOr<V> Generator::construct(const ClassDef &cls, CallArgs &args) {
  V self = newVal(Val::Aggregate);
  self->obj = std::make_shared<AggObject>();
  self->obj->cls = &cls;
  const FunctionDef *init = nullptr;
  for (const FunctionDef &m : cls.methods)
    if (m.name == "__init__")
      init = &m;
  if (init) {
    RETURN_IF_ERROR(callFunction(*init, args, self).status());
  } else {
    // Without __init__, arguments fill the fields in declaration order (or by name).
    if (args.positional.size() > cls.fields.size())
      return error(args.loc, "'" + cls.name + "' has " + std::to_string(cls.fields.size()) +
                                 " fields, " + std::to_string(args.positional.size()) +
                                 " values given");
    for (size_t k = 0; k < args.positional.size(); ++k)
      self->obj->fields[cls.fields[k].name] = args.positional[k];
    for (auto &kw : args.keywords) {
      if (std::none_of(cls.fields.begin(), cls.fields.end(),
                       [&](const Field &f) { return f.name == kw.first; }))
        return error(args.loc, "'" + cls.name + "' has no field '" + kw.first + "'");
      self->obj->fields[kw.first] = kw.second;
    }
  }
  for (const Field &f : cls.fields) {
    auto it = self->obj->fields.find(f.name);
    if (it == self->obj->fields.end())
      return error(args.loc,
                   "constructing '" + cls.name + "' leaves the field '" + f.name + "' unset");
    bool constexprField = f.annotation && f.annotation->name == "constexpr";
    if (constexprField && it->second->kind == Val::Tensor)
      return error(args.loc, "the field '" + f.name + "' of '" + cls.name +
                                 "' is a tl.constexpr but gets a runtime value");
  }
  return self;
}

void Generator::collectFields(const V &v, std::vector<FieldSlot> &out,
                              std::set<AggObject *> &seen, bool tensorsOnly) {
  if (!v)
    return;
  if (v->kind == Val::Tuple) {
    for (const V &item : v->items)
      collectFields(item, out, seen, tensorsOnly);
    return;
  }
  if (v->kind != Val::Aggregate || !seen.insert(v->obj.get()).second)
    return;
  for (const Field &f : v->obj->cls->fields) {
    auto it = v->obj->fields.find(f.name);
    if (it == v->obj->fields.end())
      continue;
    if (it->second->kind == Val::Tensor || (!tensorsOnly && it->second->kind != Val::Aggregate &&
                                            it->second->kind != Val::Tuple))
      out.push_back({v->obj, f.name});
    else {
      // A tuple-valued field is a slot of its own too (its tensors are not carried one by
      // one: a change across a loop or branch is reported), and aggregates inside it are
      // walked.
      if (!tensorsOnly && it->second->kind == Val::Tuple)
        out.push_back({v->obj, f.name});
      collectFields(it->second, out, seen, tensorsOnly);
    }
  }
}

std::vector<Generator::FieldSlot> Generator::reachableFields(bool tensorsOnly) {
  std::vector<FieldSlot> out;
  std::set<AggObject *> seen;
  for (auto &[name, v] : frames_.back().vars)
    collectFields(v, out, seen, tensorsOnly);
  return out;
}

void Generator::staticFieldSnapshot(std::vector<FieldSlot> &slots, std::vector<V> &values) {
  for (const FieldSlot &f : reachableFields(/*tensorsOnly=*/false))
    if (f.obj->fields[f.field]->kind != Val::Tensor) {
      slots.push_back(f);
      values.push_back(f.obj->fields[f.field]);
    }
}

absl::Status Generator::checkFieldsUnchanged(const std::vector<FieldSlot> &slots,
                                             const std::vector<V> &before, SourceLocation at) {
  for (size_t k = 0; k < slots.size(); ++k) {
    V now = slots[k].obj->fields[slots[k].field];
    if (now != before[k] && !equalConstexprs(now, before[k])) {
      if (before[k]->kind == Val::Tuple)
        return error(at, "the field '" + slots[k].field + "' of '" + slots[k].obj->cls->name +
                             "' holds a tuple and changes inside the loop; tuple-valued fields "
                             "are not carried across iterations (use one field per tensor)");
      return error(at, "the field '" + slots[k].field + "' of '" + slots[k].obj->cls->name +
                           "' holds " + describe(before[k]) + " before the loop and changes "
                           "inside it; a field that changes across iterations must start as a "
                           "tensor (e.g. tl.zeros(...) or tl.full(...))");
    }
  }
  return absl::OkStatus();
}

} // namespace tessel::frontend
