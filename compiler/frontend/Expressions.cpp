//===- Expressions.cpp - expressions: names, attributes, subscripts, calls of values -*- C++ -*-===//

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

absl::StatusOr<V> Generator::evalAttribute(const Expr &e) {
  ASSIGN_OR_RETURN(V base, eval(*e.operands[0]));
  const std::string &member = e.name;
  switch (base->kind) {
  case Val::Namespace:
    if (base->mod)
      return moduleMember(*base->mod, member, e.loc);
    return resolveNamespace(base->s, member, e.loc);
  case Val::Tensor: {
    Type type = base->value.getType();
    if (member == "dtype")
      return makeDtype(getElementTypeOrSelf(type), base->isUnsigned);
    if (member == "type") {
      // A scalar's type (pointer_type.element_ty is the pointee); a tensor's block type,
      // whose element_ty is the element type.
      if (isa<RankedTensorType>(type)) {
        V v = makeDtype(getElementTypeOrSelf(type), base->isUnsigned);
        v->isBlockType = true;
        return v;
      }
      return makeDtype(type, base->isUnsigned);
    }
    if (member == "shape") {
      std::vector<V> dims;
      for (int64_t d : shapeOf(base->value))
        dims.push_back(makeInt(d));
      return makeTuple(dims);
    }
    if (member == "T") {
      CallArgs args{{base}, {}, e.loc};
      return callBuiltin("trans", args);
    }
    if (member == "numel") {
      int64_t n = 1;
      for (int64_t d : shapeOf(base->value))
        n *= d;
      return makeInt(n);
    }
    return makeMethod(base, member);
  }
  case Val::Dtype: {
    if (member == "element_ty") {
      if (base->isBlockType)
        return makeDtype(base->type, base->isUnsigned);
      auto ptr = dyn_cast<tt::PointerType>(base->type);
      if (!ptr)
        return error(e.loc, "'element_ty' is defined on pointer dtypes only");
      return makeDtype(ptr.getPointeeType());
    }
    if (member == "primitive_bitwidth") {
      if (isa<tt::PointerType>(base->type))
        return makeInt(64);
      return makeInt(base->type.getIntOrFloatBitWidth());
    }
    return makeMethod(base, member);
  }
  case Val::Int:
  case Val::Float:
  case Val::Bool:
    if (member == "value")
      return base;
    break;
  case Val::Aggregate: {
    if (auto it = base->obj->fields.find(member); it != base->obj->fields.end())
      return it->second;
    for (const FunctionDef &m : base->obj->cls->methods)
      if (m.name == member) {
        V method = makeMethod(base, member);
        method->fn = &m;
        return method;
      }
    bool declared = false;
    for (const Field &f : base->obj->cls->fields)
      declared |= f.name == member;
    return error(e.loc, declared ? "the field '" + member + "' of '" + base->obj->cls->name +
                                       "' is read before it is set"
                                 : "'" + base->obj->cls->name + "' has no field or method '" +
                                       member + "'");
  }
  case Val::Descriptor: {
    static const std::map<std::string, size_t> parts = {
        {"base", 0}, {"shape", 1}, {"strides", 2}, {"block_shape", 3}};
    if (auto it = parts.find(member); it != parts.end())
      return base->items[it->second];
    if (member == "dtype")
      return makeDtype(mlir::cast<tt::PointerType>(base->items[0]->value.getType()).getPointeeType(),
                       base->items[0]->isUnsigned);
    if (member == "load" || member == "store")
      return makeMethod(base, member);
    break;
  }
  default:
    break;
  }
  return error(e.loc, describe(base) + " has no attribute '" + member + "'");
}

absl::StatusOr<V> Generator::evalSubscript(const Expr &e) {
  ASSIGN_OR_RETURN(V base, eval(*e.operands[0]));
  if (base->kind == Val::Tuple) {
    if (e.operands.size() != 2)
      return error(e.loc, "a tuple takes one index");
    ASSIGN_OR_RETURN(V index, eval(*e.operands[1]));
    ASSIGN_OR_RETURN(int64_t i, requireInt(index, e.operands[1]->loc, "a tuple index"));
    int64_t n = int64_t(base->items.size());
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      return error(e.operands[1]->loc, "tuple index " + std::to_string(index->i) + " out of range");
    V item = base->items[i];
    if (item->kind == Val::Aggregate) {
      // Remember that this reference came out of a tuple (see assign()).
      V viaTuple = newVal(Val::Aggregate);
      viaTuple->obj = item->obj;
      viaTuple->viaTuple = true;
      return viaTuple;
    }
    return item;
  }
  if (base->kind == Val::Builtin && base->s == "constexpr")
    return base; // tl.constexpr[...] annotations
  if (base->kind != Val::Tensor)
    return error(e.loc, "cannot subscript " + describe(base));
  Value x = base->value;
  SmallVector<int64_t> shape(shapeOf(x));
  size_t dim = 0;
  Location l = loc(e.loc);
  Type elem = getElementTypeOrSelf(x.getType());
  for (size_t k = 1; k < e.operands.size(); ++k) {
    const Expr &index = *e.operands[k];
    if (index.kind == ExprKind::None) {
      shape.insert(shape.begin() + dim, 1);
      x = tt::ExpandDimsOp::create(b_, l, RankedTensorType::get(shape, elem), x, int32_t(dim));
      ++dim;
      continue;
    }
    if (index.kind == ExprKind::Slice && !index.operands[0] && !index.operands[1] &&
        !index.operands[2]) {
      if (dim >= shapeOf(base->value).size() + (shape.size() - shapeOf(base->value).size()))
        return error(index.loc, "too many indices for a tensor of rank " +
                                    std::to_string(shapeOf(base->value).size()));
      ++dim;
      continue;
    }
    return error(index.loc, "tensors can be indexed only with None and ':' (use tl.reshape, "
                            "tl.split or a mask for anything else)");
  }
  return makeTensor(x, base->isUnsigned);
}


absl::StatusOr<V> Generator::eval(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Name:
    return evalName(e);
  case ExprKind::Int:
    return makeInt(e.intValue);
  case ExprKind::Float:
    return makeFloat(e.floatValue);
  case ExprKind::String:
    return makeStr(e.name);
  case ExprKind::Bool:
    return makeBool(e.intValue != 0);
  case ExprKind::None:
    return makeNone();
  case ExprKind::Attribute:
    return evalAttribute(e);
  case ExprKind::Subscript:
    return evalSubscript(e);
  case ExprKind::Slice:
    return newVal(Val::Slice);
  case ExprKind::BinOp: {
    ASSIGN_OR_RETURN(V lhs, eval(*e.operands[0])); // Python evaluates left to right
    ASSIGN_OR_RETURN(V rhs, eval(*e.operands[1]));
    return binary(e.name, lhs, rhs, e.loc);
  }
  case ExprKind::UnaryOp: {
    ASSIGN_OR_RETURN(V operand, eval(*e.operands[0]));
    return unary(e.name, operand, e.loc);
  }
  case ExprKind::Compare:
    return evalCompare(e);
  case ExprKind::BoolOp:
    return evalBoolOp(e);
  case ExprKind::IfExp: {
    ASSIGN_OR_RETURN(V cond, eval(*e.operands[0]));
    if (cond->kind != Val::Tensor) {
      ASSIGN_OR_RETURN(bool truth, truthy(cond, e.operands[0]->loc));
      return truth ? eval(*e.operands[1]) : eval(*e.operands[2]);
    }
    ASSIGN_OR_RETURN(V a, eval(*e.operands[1]));
    ASSIGN_OR_RETURN(V b, eval(*e.operands[2]));
    CallArgs args{{cond, a, b}, {}, e.loc};
    return callBuiltin("where", args);
  }
  case ExprKind::Dict:
    return error(e.loc, "dict literals are not supported in kernels");
  case ExprKind::Tuple:
  case ExprKind::List: {
    std::vector<V> items;
    for (const ExprPtr &o : e.operands) {
      ASSIGN_OR_RETURN(V item, eval(*o));
      items.push_back(item);
    }
    return makeTuple(items);
  }
  case ExprKind::Call: {
    ASSIGN_OR_RETURN(V callee, eval(*e.operands[0]));
    CallArgs args;
    args.loc = e.loc;
    for (size_t k = 1; k < e.operands.size(); ++k) {
      ASSIGN_OR_RETURN(V arg, eval(*e.operands[k]));
      args.positional.push_back(arg);
    }
    for (const auto &kw : e.keywords) {
      ASSIGN_OR_RETURN(V value, eval(*kw.second));
      args.keywords.emplace_back(kw.first, value);
    }
    return callValue(callee, args);
  }
  }
  return error(e.loc, "unsupported expression");
}

absl::StatusOr<V> Generator::callValue(const V &callee, CallArgs &args) {
  switch (callee->kind) {
  case Val::Function:
    return callFunction(*callee->fn, args);
  case Val::Builtin:
    return callBuiltin(callee->s, args);
  case Val::Method: {
    if (callee->fn) // a method of an aggregate class
      return callFunction(*callee->fn, args, callee->self);
    args.positional.insert(args.positional.begin(), callee->self);
    return callBuiltin("method." + callee->s, args);
  }
  case Val::Class:
    return construct(*callee->cls, args);
  case Val::Dtype: // tl.float32(x): a cast
    if (args.positional.size() == 1 && args.keywords.empty())
      return cast(args.positional[0], callee->type, callee->isUnsigned, args.loc);
    break;
  default:
    break;
  }
  return error(args.loc, describe(callee) + " is not callable");
}

} // namespace tessel::frontend
