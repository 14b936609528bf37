//===- Statements.cpp - statements and control flow: assignments, if, for, while -*- C++ -*-===//

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

// ---- statements ----------------------------------------------------------------------------

/// Whether `block` has a return statement, nested ifs and loops included (a function it calls
/// returns to it: not counted).
static bool containsReturn(const Block &block) {
  for (const StmtPtr &s : block)
    if (s->kind == StmtKind::Return || containsReturn(s->body) || containsReturn(s->orelse))
      return true;
  return false;
}

absl::Status Generator::exec(const Block &block, PendingBlock::Kind kind) {
  PendingBlock pending;
  pending.kind = kind;
  for (const StmtPtr &s : block)
    pending.stmts.push_back(s.get());
  frames_.back().pending.push_back(std::move(pending));
  return runPending();
}

absl::Status Generator::runPending() {
  // By index: a statement may push blocks of its own (and calls push frames) meanwhile.
  size_t depth = frames_.back().pending.size() - 1;
  while (!frames_.back().returned) {
    PendingBlock &p = frames_.back().pending[depth];
    if (p.next == p.stmts.size())
      break;
    const Stmt *s = p.stmts[p.next++];
    RETURN_IF_ERROR(execStmt(*s));
  }
  frames_.back().pending.pop_back();
  return absl::OkStatus();
}

std::optional<std::vector<const Stmt *>> Generator::continuation() const {
  std::vector<const Stmt *> out;
  const std::vector<PendingBlock> &pending = frames_.back().pending;
  for (size_t k = pending.size(); k-- > 0;) {
    const PendingBlock &p = pending[k];
    if (p.kind == PendingBlock::LoopBody)
      return std::nullopt;
    out.insert(out.end(), p.stmts.begin() + p.next, p.stmts.end());
    if (p.kind == PendingBlock::RestOfFunction)
      break;
  }
  return out;
}

absl::Status Generator::assign(const Expr &target, const V &value) {
  switch (target.kind) {
  case ExprKind::Name:
    frames_.back().vars[target.name] = value;
    return absl::OkStatus();
  case ExprKind::Tuple:
  case ExprKind::List: {
    if (value->kind != Val::Tuple)
      return error(target.loc, "cannot unpack " + describe(value));
    if (value->items.size() != target.operands.size())
      return error(target.loc, "cannot unpack " + std::to_string(value->items.size()) +
                                   " values into " + std::to_string(target.operands.size()) +
                                   " targets");
    for (size_t k = 0; k < target.operands.size(); ++k)
      RETURN_IF_ERROR(assign(*target.operands[k], value->items[k]));
    return absl::OkStatus();
  }
  case ExprKind::Attribute: {
    ASSIGN_OR_RETURN(V base, eval(*target.operands[0]));
    if (base->kind != Val::Aggregate)
      return error(target.loc, "only fields of aggregates can be assigned, not attributes of " +
                                   describe(base));
    const ClassDef &cls = *base->obj->cls;
    bool declared = false;
    for (const Field &f : cls.fields)
      declared |= f.name == target.name;
    if (!declared)
      return error(target.loc, "'" + cls.name + "' has no field '" + target.name +
                                   "' (fields are declared in the class body: name: type)");
    // An aggregate stored in a tuple and mutated both through the tuple and through another
    // reference: the two places are reported rather than relying on references inside tuples.
    AggObject &obj = *base->obj;
    SourceLocation &first = base->viaTuple ? obj.mutatedViaTuple : obj.mutatedDirectly;
    bool &seen = base->viaTuple ? obj.hasMutationViaTuple : obj.hasMutationDirectly;
    if (!seen) {
      seen = true;
      first = target.loc;
    }
    if (obj.hasMutationViaTuple && obj.hasMutationDirectly)
      return error(target.loc, "this '" + cls.name +
                                   "' object is mutated both through a tuple (line " +
                                   std::to_string(obj.mutatedViaTuple.line) + ", column " +
                                   std::to_string(obj.mutatedViaTuple.column) +
                                   ") and through another reference (line " +
                                   std::to_string(obj.mutatedDirectly.line) + ", column " +
                                   std::to_string(obj.mutatedDirectly.column) +
                                   "); mutate it through one of them");
    base->obj->fields[target.name] = value;
    return absl::OkStatus();
  }
  default:
    return error(target.loc, "cannot assign to this expression");
  }
}

void Generator::assignedNames(const Block &block, std::vector<std::string> &out) {
  std::function<void(const Expr &)> targetNames = [&](const Expr &t) {
    if (t.kind == ExprKind::Name) {
      if (std::find(out.begin(), out.end(), t.name) == out.end())
        out.push_back(t.name);
    } else if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
      for (const ExprPtr &o : t.operands)
        targetNames(*o);
    }
  };
  for (const StmtPtr &s : block) {
    if (s->kind == StmtKind::Assign || s->kind == StmtKind::AugAssign ||
        s->kind == StmtKind::AnnAssign || s->kind == StmtKind::For)
      for (const ExprPtr &t : s->targets)
        targetNames(*t);
    assignedNames(s->body, out);
    assignedNames(s->orelse, out);
  }
}

absl::StatusOr<V> Generator::carryable(const V &v, SourceLocation at) {
  if (v->kind == Val::Tensor)
    return v;
  if (v->isNumber())
    return toTensor(v, at);
  return nullptr;
}

absl::Status Generator::execStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Pass:
    return absl::OkStatus();
  case StmtKind::Expr:
    return eval(*s.value).status();
  case StmtKind::Assign: {
    ASSIGN_OR_RETURN(V v, eval(*s.value));
    for (const ExprPtr &t : s.targets)
      RETURN_IF_ERROR(assign(*t, v));
    return absl::OkStatus();
  }
  case StmtKind::AnnAssign: {
    if (!s.value)
      return absl::OkStatus();
    ASSIGN_OR_RETURN(V v, eval(*s.value));
    return assign(*s.targets[0], v);
  }
  case StmtKind::AugAssign: {
    ASSIGN_OR_RETURN(V current, eval(*s.targets[0]));
    ASSIGN_OR_RETURN(V rhs, eval(*s.value));
    ASSIGN_OR_RETURN(V v, binary(s.op, current, rhs, s.loc));
    return assign(*s.targets[0], v);
  }
  case StmtKind::Return:
  {
    // Evaluating the value may call functions (new frames): look the frame up afterwards.
    V value;
    if (s.value) {
      ASSIGN_OR_RETURN(value, eval(*s.value));
    } else {
      value = makeNone();
    }
    frames_.back().returnValue = value;
    frames_.back().returned = true;
  }
    return absl::OkStatus();
  case StmtKind::Assert: {
    ASSIGN_OR_RETURN(V cond, eval(*s.value));
    std::string message = "assertion failed";
    if (s.message) {
      ASSIGN_OR_RETURN(V m, eval(*s.message));
      if (m->kind == Val::Str)
        message = m->s;
    }
    if (cond->kind != Val::Tensor) {
      ASSIGN_OR_RETURN(bool holds, truthy(cond, s.value->loc));
      if (!holds)
        return error(s.loc, "static assertion failed: " + message);
      return absl::OkStatus();
    }
    ASSIGN_OR_RETURN(V c, cast(cond, b_.getI1Type(), false, s.loc));
    if (debug_)
      tt::AssertOp::create(b_, loc(s.loc), c->value, message);
    return absl::OkStatus();
  }
  case StmtKind::If:
    return execIf(s);
  case StmtKind::For:
    return execFor(s);
  case StmtKind::While:
    return execWhile(s);
  case StmtKind::Unsupported:
    return error(s.loc, "'" + s.op + "' is not supported");
  }
  return absl::OkStatus();
}


absl::Status Generator::execIf(const Stmt &s) {
  ASSIGN_OR_RETURN(V cond, eval(*s.value));
  if (cond->kind != Val::Tensor) {
    // The taken branch only, its statements followed by the enclosing block's: an early
    // return in it ends the function (nested ifs on runtime conditions included).
    ASSIGN_OR_RETURN(bool taken, truthy(cond, s.value->loc));
    return exec(taken ? s.body : s.orelse);
  }
  ASSIGN_OR_RETURN(cond, cast(cond, b_.getI1Type(), false, s.value->loc));
  if (!shapeOf(cond->value).empty())
    return error(s.value->loc, "an if condition must be a scalar, not a tensor (use tl.where)");
  Location l = loc(s.loc);
  std::vector<std::string> names;
  assignedNames(s.body, names);
  assignedNames(s.orelse, names);

  // A return in the if (at any depth, in either branch): the rest of the function, up to its
  // end, is generated in each branch after the branch's own statements, unless the branch
  // returned first, and the if ends the function. Triton 3.6 branches with cf.cond_br to a
  // block holding tt.return instead; the result is the same, and it stays structured. As in
  // Triton, not inside a loop's body (its rest is the next iteration).
  std::optional<std::vector<const Stmt *>> rest;
  if (containsReturn(s.body) || containsReturn(s.orelse)) {
    rest = continuation();
    if (!rest)
      return error(s.loc, "a return inside a for or while loop is not supported (nor is it in "
                          "Triton)");
  }

  // Generate both branches into a result-less scf.if first; the carried values are known
  // only afterwards, then the regions move into an scf.if with results.
  std::map<std::string, V> before = frames_.back().vars;
  auto probe = scf::IfOp::create(b_, l, TypeRange{}, cond->value, /*withElseRegion=*/true);
  struct Branch {
    std::map<std::string, V> vars;
    bool returned = false;
    V returnValue;
    mlir::Block *block;
  };
  // Aggregate fields reachable before the if: each branch starts from their values.
  std::vector<FieldSlot> fields = reachableFields(/*tensorsOnly=*/false);
  std::vector<V> fieldsBefore;
  for (const FieldSlot &f : fields)
    fieldsBefore.push_back(f.obj->fields[f.field]);
  auto restoreFields = [&] {
    for (size_t k = 0; k < fields.size(); ++k)
      fields[k].obj->fields[fields[k].field] = fieldsBefore[k];
  };
  std::vector<V> fieldsThen, fieldsElse;
  auto runBranch = [&](mlir::Block *block, const Block &body) -> absl::StatusOr<Branch> {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(block->getTerminator());
    frames_.back().vars = before;
    restoreFields();
    if (!rest) {
      RETURN_IF_ERROR(exec(body));
    } else {
      // The branch, then the rest of the function: an if in the branch sees both as what
      // follows it.
      PendingBlock restOfFunction;
      restOfFunction.stmts = *rest;
      restOfFunction.kind = PendingBlock::RestOfFunction;
      frames_.back().pending.push_back(std::move(restOfFunction));
      RETURN_IF_ERROR(exec(body));
      RETURN_IF_ERROR(runPending());
      // Falling off the end of the function returns None.
      if (!frames_.back().returned) {
        frames_.back().returned = true;
        frames_.back().returnValue = makeNone();
      }
    }
    std::vector<V> &record = block == probe.thenBlock() ? fieldsThen : fieldsElse;
    for (const FieldSlot &f : fields)
      record.push_back(f.obj->fields[f.field]);
    Branch out{frames_.back().vars, frames_.back().returned, frames_.back().returnValue, block};
    frames_.back().returned = false;
    frames_.back().returnValue = nullptr;
    return out;
  };
  ASSIGN_OR_RETURN(Branch thenB, runBranch(probe.thenBlock(), s.body));
  ASSIGN_OR_RETURN(Branch elseB, runBranch(probe.elseBlock(), s.orelse));
  // With a return in the if both branches end the function (the rest is in them); without,
  // neither does.
  if (thenB.returned != elseB.returned)
    return error(s.loc, "internal error: one branch of an if on a runtime condition returns");
  // Both branches end the function without a value (`return`, `return None`): nothing to
  // carry out of the if for it.
  bool returnsNothing = thenB.returned && thenB.returnValue->kind == Val::None &&
                        elseB.returnValue->kind == Val::None;

  restoreFields();
  std::map<std::string, V> after = before;
  std::vector<std::pair<std::string, std::pair<V, V>>> carried;
  std::vector<size_t> carriedFields; // indices into `fields`, after the names in `carried`
  // The same compile-time value on both paths: one object (also through two references,
  // such as `t[0]` taken twice out of a tuple) or equal constexprs.
  auto same = [](const V &a, const V &b) {
    return a == b || equalConstexprs(a, b) ||
           (a->kind == Val::Aggregate && b->kind == Val::Aggregate && a->obj == b->obj &&
            a->viaTuple == b->viaTuple);
  };
  for (size_t k = 0; k < fields.size(); ++k) {
    V a = fieldsThen[k], b = fieldsElse[k];
    if (same(a, b))
      fields[k].obj->fields[fields[k].field] = a;
    else
      carriedFields.push_back(k);
  }
  for (const std::string &name : names) {
    auto t = thenB.vars.find(name), e = elseB.vars.find(name);
    if (t == thenB.vars.end() || e == elseB.vars.end()) {
      after.erase(name); // defined on one path only: not visible after the if
      continue;
    }
    V tv = t->second, ev = e->second;
    if (same(tv, ev)) {
      after[name] = tv;
      continue;
    }
    carried.push_back({name, {tv, ev}});
  }
  // Materialize the carried values at the end of each branch.
  auto finish = [&](Branch &br, bool isThen) -> absl::StatusOr<SmallVector<Value>> {
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(br.block->getTerminator());
    SmallVector<Value> values;
    for (auto &c : carried) {
      ASSIGN_OR_RETURN(V v, carryable(isThen ? c.second.first : c.second.second, s.loc));
      if (!v)
        return error(s.loc, "'" + c.first + "' holds different compile-time objects in the two "
                            "branches of an if on a runtime condition");
      values.push_back(v->value);
    }
    for (size_t k : carriedFields) {
      ASSIGN_OR_RETURN(V v, carryable(isThen ? fieldsThen[k] : fieldsElse[k], s.loc));
      if (!v)
        return error(s.loc, "the field '" + fields[k].field + "' of '" +
                                fields[k].obj->cls->name +
                                "' holds different compile-time objects in the two branches of "
                                "an if on a runtime condition");
      values.push_back(v->value);
    }
    if (br.returned && !returnsNothing) {
      V r = br.returnValue;
      std::vector<V> items = r->kind == Val::Tuple ? r->items : std::vector<V>{r};
      for (V &item : items) {
        ASSIGN_OR_RETURN(V v, carryable(item, s.loc));
        if (!v)
          return error(s.loc, "returning " + describe(item) +
                                  " from both branches of an if on a runtime condition is not "
                                  "supported");
        values.push_back(v->value);
      }
    }
    return values;
  };
  ASSIGN_OR_RETURN(SmallVector<Value> thenValues, finish(thenB, true));
  ASSIGN_OR_RETURN(SmallVector<Value> elseValues, finish(elseB, false));
  if (thenValues.size() != elseValues.size())
    return error(s.loc, "the two branches return different numbers of values");
  SmallVector<Type> types;
  for (size_t k = 0; k < thenValues.size(); ++k) {
    if (thenValues[k].getType() != elseValues[k].getType()) {
      std::string a, b;
      llvm::raw_string_ostream(a) << thenValues[k].getType();
      llvm::raw_string_ostream(b) << elseValues[k].getType();
      std::string what = k < carried.size() ? "'" + carried[k].first + "'"
                         : k < carried.size() + carriedFields.size()
                             ? "the field '" + fields[carriedFields[k - carried.size()]].field + "'"
                             : "the return value";
      return error(s.loc, what + " has type " + a + " in the if branch and " + b +
                              " in the else branch");
    }
    types.push_back(thenValues[k].getType());
  }
  auto result = scf::IfOp::create(b_, l, types, cond->value, /*withElseRegion=*/true);
  result.getThenRegion().takeBody(probe.getThenRegion());
  result.getElseRegion().takeBody(probe.getElseRegion());
  probe.erase();
  for (auto [block, values] : {std::make_pair(result.thenBlock(), thenValues),
                               std::make_pair(result.elseBlock(), elseValues)}) {
    Operation *yield = block->getTerminator();
    OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPoint(yield);
    scf::YieldOp::create(b_, l, values);
    yield->erase();
  }
  size_t k = 0;
  for (auto &c : carried) {
    bool u = c.second.first->kind == Val::Tensor && c.second.first->isUnsigned;
    after[c.first] = makeTensor(result.getResult(k++), u);
  }
  for (size_t f : carriedFields)
    fields[f].obj->fields[fields[f].field] =
        makeTensor(result.getResult(k++), fieldsThen[f]->isUnsigned);
  frames_.back().vars = after;
  if (returnsNothing) {
    frames_.back().returned = true;
    frames_.back().returnValue = makeNone();
  } else if (thenB.returned) {
    std::vector<V> items;
    for (; k < result.getNumResults(); ++k)
      items.push_back(makeTensor(result.getResult(k)));
    frames_.back().returned = true;
    frames_.back().returnValue =
        thenB.returnValue->kind == Val::Tuple ? makeTuple(items) : items.front();
  }
  return absl::OkStatus();
}

/// The loop variables of `body` carried through a loop: names it assigns that hold a value
/// before the loop (materialized as SSA values).
static std::vector<std::string> loopCarried(const std::vector<std::string> &assigned,
                                            const std::map<std::string, V> &vars,
                                            const std::string &exclude) {
  std::vector<std::string> out;
  for (const std::string &name : assigned) {
    if (name == exclude)
      continue;
    auto it = vars.find(name);
    if (it != vars.end() && (it->second->kind == Val::Tensor || it->second->isNumber()))
      out.push_back(name);
  }
  return out;
}

absl::Status Generator::execFor(const Stmt &s) {
  const Expr &iter = *s.value;
  const Expr &target = *s.targets[0];
  if (iter.kind != ExprKind::Call)
    return error(iter.loc, "a for loop must iterate over range(...), tl.range(...) or "
                           "tl.static_range(...)");
  ASSIGN_OR_RETURN(V callee, eval(*iter.operands[0]));
  if (callee->kind != Val::Builtin ||
      (callee->s != "py.range" && callee->s != "range" && callee->s != "static_range"))
    return error(iter.loc, "a for loop must iterate over range(...), tl.range(...) or "
                           "tl.static_range(...)");
  std::vector<V> bounds;
  for (size_t k = 1; k < iter.operands.size(); ++k) {
    ASSIGN_OR_RETURN(V bound, eval(*iter.operands[k]));
    bounds.push_back(bound);
  }
  for (const auto &kw : iter.keywords) {
    static const std::set<std::string> ignored = {"num_stages", "loop_unroll_factor",
                                                  "disallow_acc_multi_buffer", "flatten",
                                                  "warp_specialize", "disable_licm"};
    if (!ignored.count(kw.first))
      return error(kw.second->loc, "unexpected keyword '" + kw.first + "' for range");
  }
  if (bounds.empty() || bounds.size() > 3)
    return error(iter.loc, "range takes 1 to 3 arguments");
  V lb = bounds.size() == 1 ? makeInt(0) : bounds[0];
  V ub = bounds.size() == 1 ? bounds[0] : bounds[1];
  V step = bounds.size() == 3 ? bounds[2] : makeInt(1);
  if (target.kind != ExprKind::Name)
    return error(target.loc, "the loop variable must be a name");

  if (callee->s == "static_range") {
    ASSIGN_OR_RETURN(int64_t a, requireInt(lb, iter.loc, "a static_range bound"));
    ASSIGN_OR_RETURN(int64_t z, requireInt(ub, iter.loc, "a static_range bound"));
    ASSIGN_OR_RETURN(int64_t st, requireInt(step, iter.loc, "a static_range step"));
    if (st == 0)
      return error(iter.loc, "static_range step must not be zero");
    if ((z - a) / st > 4096)
      return error(iter.loc, "static_range unrolls at most 4096 iterations");
    for (int64_t i = a; st > 0 ? i < z : i > z; i += st) {
      frames_.back().vars[target.name] = makeInt(i);
      RETURN_IF_ERROR(exec(s.body, PendingBlock::LoopBody));
      if (frames_.back().returned)
        return error(s.loc, "return inside a loop is not supported");
    }
    return absl::OkStatus();
  }
  if (step->kind == Val::Int && step->i == 0)
    return error(iter.loc, "range step must not be zero");
  ASSIGN_OR_RETURN(V tlb, toTensor(lb, iter.loc));
  ASSIGN_OR_RETURN(V tub, toTensor(ub, iter.loc));
  ASSIGN_OR_RETURN(V tst, toTensor(step, iter.loc));
  Type ivType = b_.getI32Type();
  for (const V &v : {tlb, tub, tst}) {
    Type t = v->value.getType();
    if (!t.isInteger(32) && !t.isInteger(64))
      return error(iter.loc, "range bounds must be integer scalars");
    if (t.isInteger(64))
      ivType = b_.getI64Type();
  }
  ASSIGN_OR_RETURN(tlb, cast(tlb, ivType, false, iter.loc));
  ASSIGN_OR_RETURN(tub, cast(tub, ivType, false, iter.loc));
  ASSIGN_OR_RETURN(tst, cast(tst, ivType, false, iter.loc));

  std::vector<std::string> assigned;
  assignedNames(s.body, assigned);
  std::vector<std::string> carriedNames = loopCarried(assigned, frames_.back().vars, target.name);
  SmallVector<Value> inits;
  std::vector<bool> unsignedness;
  for (const std::string &name : carriedNames) {
    ASSIGN_OR_RETURN(V v, carryable(frames_.back().vars[name], s.loc));
    inits.push_back(v->value);
    unsignedness.push_back(v->isUnsigned);
  }
  std::vector<FieldSlot> fields = reachableFields();
  for (const FieldSlot &f : fields) {
    inits.push_back(f.obj->fields[f.field]->value);
    unsignedness.push_back(f.obj->fields[f.field]->isUnsigned);
  }
  std::vector<FieldSlot> staticFields;
  std::vector<V> staticBefore;
  staticFieldSnapshot(staticFields, staticBefore);
  Location l = loc(s.loc);
  auto loop = scf::ForOp::create(b_, l, tlb->value, tub->value, tst->value, inits);
  std::map<std::string, V> before = frames_.back().vars;
  {
    OpBuilder::InsertionGuard guard(b_);
    mlir::Block *body = loop.getBody();
    b_.setInsertionPointToEnd(body);
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      b_.setInsertionPoint(&body->back());
    frames_.back().vars[target.name] = makeTensor(loop.getInductionVar());
    for (size_t k = 0; k < carriedNames.size(); ++k)
      frames_.back().vars[carriedNames[k]] =
          makeTensor(loop.getRegionIterArgs()[k], unsignedness[k]);
    for (size_t k = 0; k < fields.size(); ++k)
      fields[k].obj->fields[fields[k].field] = makeTensor(
          loop.getRegionIterArgs()[carriedNames.size() + k], unsignedness[carriedNames.size() + k]);
    RETURN_IF_ERROR(exec(s.body, PendingBlock::LoopBody));
    if (frames_.back().returned)
      return error(s.loc, "return inside a loop is not supported");
    RETURN_IF_ERROR(checkUncarried(assigned, before, s.loc));
    RETURN_IF_ERROR(checkFieldsUnchanged(staticFields, staticBefore, s.loc));
    ASSIGN_OR_RETURN(std::vector<Value> fieldValues,
                     fieldYields(fields, inits, carriedNames.size(), s.loc));
    SmallVector<Value> yields(fieldValues.begin(), fieldValues.end());
    for (size_t k = 0; k < carriedNames.size(); ++k) {
      ASSIGN_OR_RETURN(V v, carryable(frames_.back().vars[carriedNames[k]], s.loc));
      if (!v || v->value.getType() != inits[k].getType()) {
        std::string a, b;
        llvm::raw_string_ostream(a) << inits[k].getType();
        if (v)
          llvm::raw_string_ostream(b) << v->value.getType();
        return error(s.loc, "loop-carried variable '" + carriedNames[k] + "' has type " + a +
                                " before the loop and " +
                                (v ? b : describe(frames_.back().vars[carriedNames[k]])) +
                                " at the end of its body");
      }
      yields.insert(yields.begin() + k, v->value);
    }
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
      body->back().erase();
    b_.setInsertionPointToEnd(body);
    scf::YieldOp::create(b_, l, yields);
  }
  frames_.back().vars = before;
  for (size_t k = 0; k < carriedNames.size(); ++k)
    frames_.back().vars[carriedNames[k]] = makeTensor(loop.getResult(k), unsignedness[k]);
  for (size_t k = 0; k < fields.size(); ++k)
    fields[k].obj->fields[fields[k].field] = makeTensor(
        loop.getResult(carriedNames.size() + k), unsignedness[carriedNames.size() + k]);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Value>> Generator::fieldYields(const std::vector<FieldSlot> &fields,
                                                          ArrayRef<Value> inits, size_t offset,
                                                          SourceLocation at) {
  std::vector<Value> yields;
  for (size_t k = 0; k < fields.size(); ++k) {
    ASSIGN_OR_RETURN(V v, carryable(fields[k].obj->fields[fields[k].field], at));
    Type want = inits[offset + k].getType();
    if (!v || v->value.getType() != want) {
      std::string a;
      llvm::raw_string_ostream(a) << want;
      return error(at, "the field '" + fields[k].field + "' of '" + fields[k].obj->cls->name +
                           "' has type " + a + " before the loop and " +
                           (v ? "another type" : describe(fields[k].obj->fields[fields[k].field])) +
                           " at the end of its body");
    }
    yields.push_back(v->value);
  }
  return yields;
}

absl::Status Generator::checkUncarried(const std::vector<std::string> &assigned,
                                       const std::map<std::string, V> &before,
                                       SourceLocation at) {
  // Names holding compile-time objects (aggregates, tuples, dtypes) cannot be rebound to
  // other objects inside a loop: only SSA values travel around it.
  for (const std::string &name : assigned) {
    auto b = before.find(name);
    if (b == before.end() || b->second->kind == Val::Tensor || b->second->isNumber())
      continue;
    auto now = frames_.back().vars.find(name);
    if (now != frames_.back().vars.end() && now->second != b->second)
      return error(at, "'" + name + "' is rebound to another " +
                           (b->second->kind == Val::Aggregate ? std::string("aggregate object")
                                                              : describe(b->second)) +
                           " inside the loop; only tensors and numbers can change across "
                           "iterations (mutate the aggregate's fields instead)");
  }
  return absl::OkStatus();
}

absl::Status Generator::execWhile(const Stmt &s) {
  std::vector<std::string> assigned;
  assignedNames(s.body, assigned);
  std::vector<std::string> carriedNames = loopCarried(assigned, frames_.back().vars, "");
  SmallVector<Value> inits;
  SmallVector<Type> types;
  SmallVector<Location> locs;
  std::vector<bool> unsignedness;
  for (const std::string &name : carriedNames) {
    ASSIGN_OR_RETURN(V v, carryable(frames_.back().vars[name], s.loc));
    inits.push_back(v->value);
    types.push_back(v->value.getType());
    locs.push_back(loc(s.loc));
    unsignedness.push_back(v->isUnsigned);
  }
  std::vector<FieldSlot> staticFields;
  std::vector<V> staticBefore;
  staticFieldSnapshot(staticFields, staticBefore);
  std::vector<FieldSlot> fields = reachableFields();
  for (const FieldSlot &f : fields) {
    V v = f.obj->fields[f.field];
    inits.push_back(v->value);
    types.push_back(v->value.getType());
    locs.push_back(loc(s.loc));
    unsignedness.push_back(v->isUnsigned);
  }
  size_t nv = carriedNames.size();
  auto bindAll = [&](mlir::Block *block) {
    for (size_t k = 0; k < nv; ++k)
      frames_.back().vars[carriedNames[k]] = makeTensor(block->getArgument(k), unsignedness[k]);
    for (size_t k = 0; k < fields.size(); ++k)
      fields[k].obj->fields[fields[k].field] =
          makeTensor(block->getArgument(nv + k), unsignedness[nv + k]);
  };
  Location l = loc(s.loc);
  auto loop = scf::WhileOp::create(b_, l, types, inits);
  std::map<std::string, V> before = frames_.back().vars;
  {
    OpBuilder::InsertionGuard guard(b_);
    mlir::Block *cond = b_.createBlock(&loop.getBefore(), {}, types, locs);
    bindAll(cond);
    ASSIGN_OR_RETURN(V c, eval(*s.value));
    if (c->kind != Val::Tensor) {
      ASSIGN_OR_RETURN(bool truth, truthy(c, s.value->loc));
      ASSIGN_OR_RETURN(c, toTensor(makeBool(truth), s.value->loc));
    }
    ASSIGN_OR_RETURN(c, cast(c, b_.getI1Type(), false, s.value->loc));
    if (!shapeOf(c->value).empty())
      return error(s.value->loc, "a while condition must be a scalar");
    scf::ConditionOp::create(b_, l, c->value, cond->getArguments());

    frames_.back().vars = before;
    mlir::Block *body = b_.createBlock(&loop.getAfter(), {}, types, locs);
    bindAll(body);
    RETURN_IF_ERROR(exec(s.body, PendingBlock::LoopBody));
    if (frames_.back().returned)
      return error(s.loc, "return inside a loop is not supported");
    RETURN_IF_ERROR(checkUncarried(assigned, before, s.loc));
    RETURN_IF_ERROR(checkFieldsUnchanged(staticFields, staticBefore, s.loc));
    ASSIGN_OR_RETURN(std::vector<Value> fieldValues, fieldYields(fields, inits, nv, s.loc));
    SmallVector<Value> yields;
    for (size_t k = 0; k < carriedNames.size(); ++k) {
      ASSIGN_OR_RETURN(V v, carryable(frames_.back().vars[carriedNames[k]], s.loc));
      if (!v || v->value.getType() != types[k])
        return error(s.loc, "loop-carried variable '" + carriedNames[k] +
                                "' changes type in the loop body");
      yields.push_back(v->value);
    }
    yields.append(fieldValues.begin(), fieldValues.end());
    scf::YieldOp::create(b_, l, yields);
  }
  frames_.back().vars = before;
  for (size_t k = 0; k < carriedNames.size(); ++k)
    frames_.back().vars[carriedNames[k]] = makeTensor(loop.getResult(k), unsignedness[k]);
  for (size_t k = 0; k < fields.size(); ++k)
    fields[k].obj->fields[fields[k].field] =
        makeTensor(loop.getResult(nv + k), unsignedness[nv + k]);
  return absl::OkStatus();
}

} // namespace tessel::frontend
