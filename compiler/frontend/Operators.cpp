//===- Operators.cpp - Python operators with Triton's typing rules -*- C++ -*-===//

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

// ---- arithmetic ----------------------------------------------------------------------------

namespace {

/// Triton's result type of a binary arithmetic op on element types (a "weak" side is a Python
/// number literal, which adopts the other side's type of the same kind).
absl::StatusOr<Type> promote(Generator &g, Type a, bool aWeak, bool aU, Type b, bool bWeak, bool bU,
                             bool trueDiv, bool &unsignedOut, SourceLocation at) {
  OpBuilder &bld = g.builder();
  unsignedOut = false;
  bool af = isa<FloatType>(a), bf = isa<FloatType>(b);
  if (trueDiv && !af && !bf)
    return bld.getF32Type();
  if (af || bf) {
    if (af && bf) {
      if (aWeak)
        return b;
      if (bWeak)
        return a;
      unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
      if (a == b)
        return a;
      if (wa == wb) // f16 with bf16 (f32); two 8-bit float types (f16)
        return wa == 8 ? Type(bld.getF16Type()) : Type(bld.getF32Type());
      return wa > wb ? a : b;
    }
    Type f = af ? a : b;
    bool fWeak = af ? aWeak : bWeak;
    if (fWeak) // a float literal with an int tensor
      return bld.getF32Type();
    if (isFp8(f) && !(af ? bWeak : aWeak))
      return g.error(at,
                     "cannot mix " + typeText(f) + " with an integer tensor (cast one of them)");
    return f;
  }
  // Both integers (bools are 1-bit integers).
  if (aWeak && !b.isInteger(1)) {
    unsignedOut = bU;
    return b;
  }
  if (bWeak && !a.isInteger(1)) {
    unsignedOut = aU;
    return a;
  }
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa == wb) {
    unsignedOut = aU || bU;
    return a;
  }
  if (wa > wb) {
    unsignedOut = aU;
    return a;
  }
  unsignedOut = bU;
  return b;
}

bool isWeak(const V &v) { return v->kind == Val::Int || v->kind == Val::Float || v->kind == Val::Bool; }

/// Python semantics on two constexpr numbers.
absl::StatusOr<V> foldConstexpr(Generator &g, const std::string &op, const V &a, const V &b,
                                SourceLocation at) {
  bool isFloat = a->kind == Val::Float || b->kind == Val::Float;
  double x = a->kind == Val::Float ? a->f : double(a->i);
  double y = b->kind == Val::Float ? b->f : double(b->i);
  int64_t p = a->i, q = b->i;
  auto cmp = [&](bool r) { return makeBool(r); };
  if (op == "<")
    return cmp(isFloat ? x < y : p < q);
  if (op == "<=")
    return cmp(isFloat ? x <= y : p <= q);
  if (op == ">")
    return cmp(isFloat ? x > y : p > q);
  if (op == ">=")
    return cmp(isFloat ? x >= y : p >= q);
  if (op == "==")
    return cmp(isFloat ? x == y : p == q);
  if (op == "!=")
    return cmp(isFloat ? x != y : p != q);
  if (op == "/") {
    if (y == 0)
      return g.error(at, "division by zero in a constexpr expression");
    return makeFloat(x / y);
  }
  if (isFloat) {
    if (op == "+")
      return makeFloat(x + y);
    if (op == "-")
      return makeFloat(x - y);
    if (op == "*")
      return makeFloat(x * y);
    if (op == "**")
      return makeFloat(std::pow(x, y));
    if (op == "//" || op == "%") {
      if (y == 0)
        return g.error(at, "division by zero in a constexpr expression");
      double fl = std::floor(x / y);
      return makeFloat(op == "//" ? fl : x - fl * y);
    }
    return g.error(at, "operator '" + op + "' is not defined on floats");
  }
  bool bothBool = a->kind == Val::Bool && b->kind == Val::Bool;
  if (op == "&")
    return bothBool ? makeBool(p & q) : makeInt(p & q);
  if (op == "|")
    return bothBool ? makeBool(p | q) : makeInt(p | q);
  if (op == "^")
    return bothBool ? makeBool(p ^ q) : makeInt(p ^ q);
  // Python's integers do not overflow; tessel's constexprs are 64-bit: say so rather than wrap.
  auto overflow = [&]() {
    return g.error(at, "the constexpr '" + op + "' overflows 64-bit integers");
  };
  int64_t r = 0;
  if (op == "+") {
    if (__builtin_add_overflow(p, q, &r))
      return overflow();
    return makeInt(r);
  }
  if (op == "-") {
    if (__builtin_sub_overflow(p, q, &r))
      return overflow();
    return makeInt(r);
  }
  if (op == "*") {
    if (__builtin_mul_overflow(p, q, &r))
      return overflow();
    return makeInt(r);
  }
  if ((op == "<<" || op == ">>") && q < 0)
    return g.error(at, "negative shift count in a constexpr expression");
  if (op == "<<") {
    // Fits when the bits shifted out (and the new sign bit) all equal the sign.
    if (p != 0 && (q >= 63 || (p >> (63 - q)) != (p < 0 ? -1 : 0)))
      return overflow();
    return makeInt(int64_t(uint64_t(p) << (q >= 63 ? 0 : q)));
  }
  if (op == ">>")
    return makeInt(q >= 63 ? (p < 0 ? -1 : 0) : p >> q);
  if (op == "**") {
    if (q < 0)
      return makeFloat(std::pow(x, y));
    // By squaring: log2(q) steps, each checked.
    int64_t result = 1, base = p;
    for (int64_t e = q; e > 0; e >>= 1) {
      if ((e & 1) && __builtin_mul_overflow(result, base, &result))
        return overflow();
      if (e > 1 && __builtin_mul_overflow(base, base, &base))
        return overflow();
    }
    return makeInt(result);
  }
  if (op == "//" || op == "%") {
    if (q == 0)
      return g.error(at, "division by zero in a constexpr expression");
    if (p == std::numeric_limits<int64_t>::min() && q == -1)
      return overflow();
    int64_t d = p / q, m = p % q;
    if (m != 0 && ((m < 0) != (q < 0))) { // Python floors
      d -= 1;
      m += q;
    }
    return makeInt(op == "//" ? d : m);
  }
  return g.error(at, "operator '" + op + "' is not supported on constexprs");
}

} // namespace

absl::StatusOr<V> Generator::binary(const std::string &op, V a, V b, SourceLocation at) {
  if (a->isNumber() && b->isNumber())
    return foldConstexpr(*this, op, a, b, at);
  if (op == "==" || op == "!=") {
    if (a->kind == Val::None || b->kind == Val::None || a->kind == Val::Dtype ||
        a->kind == Val::Str) {
      bool eq = a->kind == b->kind &&
                (a->kind == Val::None || (a->kind == Val::Dtype && a->type == b->type &&
                                          a->isUnsigned == b->isUnsigned) ||
                 (a->kind == Val::Str && a->s == b->s));
      return makeBool(op == "==" ? eq : !eq);
    }
  }
  if (op == "@") {
    CallArgs args{{a, b}, {}, at};
    return callBuiltin("dot", args);
  }
  // Integer division by a constant zero is an error, as in Triton (a runtime zero is the
  // program's business).
  if ((op == "//" || op == "%") && (b->kind == Val::Int || b->kind == Val::Bool) && b->i == 0 &&
      !(a->kind == Val::Tensor && isa<FloatType>(getElementTypeOrSelf(a->value.getType()))))
    return error(at, "integer division by zero ('" + op + " 0')");
  bool aWeak = isWeak(a), bWeak = isWeak(b);
  ASSIGN_OR_RETURN(V ta, toTensor(a, at));
  ASSIGN_OR_RETURN(V tb, toTensor(b, at));
  Type ea = getElementTypeOrSelf(ta->value.getType()), eb = getElementTypeOrSelf(tb->value.getType());
  Location l = loc(at);

  // Pointer arithmetic.
  if (isa<tt::PointerType>(ea) || isa<tt::PointerType>(eb)) {
    if (isa<tt::PointerType>(eb) && !isa<tt::PointerType>(ea) && op == "+")
      std::swap(ta, tb), std::swap(ea, eb);
    if (!isa<tt::PointerType>(ea) || isa<tt::PointerType>(eb) || !isa<IntegerType>(eb) ||
        (op != "+" && op != "-"))
      return error(at, "pointers support only + and - of an integer offset");
    ASSIGN_OR_RETURN(auto pOff, broadcastPair(ta, tb, at));
    auto [p, off] = pOff;
    Value offset = off->value;
    if (op == "-")
      offset = arith::SubIOp::create(b_, l, constant(eb, 0, shapeOf(offset)), offset);
    return makeTensor(tt::AddPtrOp::create(b_, l, p->value.getType(), p->value, offset),
                      p->isUnsigned);
  }

  bool isCompare = op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
  bool resultUnsigned = false;
  ASSIGN_OR_RETURN(Type elem, promote(*this, ea, aWeak, ta->isUnsigned, eb, bWeak, tb->isUnsigned,
                                      op == "/", resultUnsigned, at));
  ASSIGN_OR_RETURN(auto xab, broadcastPair(ta, tb, at));
  auto [xa, xb] = xab;
  ASSIGN_OR_RETURN(xa, cast(xa, elem, resultUnsigned, at));
  ASSIGN_OR_RETURN(xb, cast(xb, elem, resultUnsigned, at));
  Value x = xa->value, y = xb->value;
  bool isFloat = isa<FloatType>(elem);

  if (isCompare) {
    if (isFloat) {
      arith::CmpFPredicate pred = op == "<"    ? arith::CmpFPredicate::OLT
                                  : op == "<=" ? arith::CmpFPredicate::OLE
                                  : op == ">"  ? arith::CmpFPredicate::OGT
                                  : op == ">=" ? arith::CmpFPredicate::OGE
                                  : op == "==" ? arith::CmpFPredicate::OEQ
                                               : arith::CmpFPredicate::UNE;
      return makeTensor(arith::CmpFOp::create(b_, l, pred, x, y));
    }
    bool u = resultUnsigned;
    arith::CmpIPredicate pred =
        op == "<"    ? (u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
        : op == "<=" ? (u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
        : op == ">"  ? (u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
        : op == ">=" ? (u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge)
        : op == "==" ? arith::CmpIPredicate::eq
                     : arith::CmpIPredicate::ne;
    return makeTensor(arith::CmpIOp::create(b_, l, pred, x, y));
  }
  Value r;
  if (op == "+")
    r = isFloat ? Value(arith::AddFOp::create(b_, l, x, y)) : Value(arith::AddIOp::create(b_, l, x, y));
  else if (op == "-")
    r = isFloat ? Value(arith::SubFOp::create(b_, l, x, y)) : Value(arith::SubIOp::create(b_, l, x, y));
  else if (op == "*")
    r = isFloat ? Value(arith::MulFOp::create(b_, l, x, y)) : Value(arith::MulIOp::create(b_, l, x, y));
  else if (op == "/")
    r = arith::DivFOp::create(b_, l, x, y);
  else if (op == "//") {
    if (isFloat)
      r = math::FloorOp::create(b_, l, arith::DivFOp::create(b_, l, x, y));
    else
      r = resultUnsigned ? Value(arith::DivUIOp::create(b_, l, x, y))
                         : Value(arith::DivSIOp::create(b_, l, x, y));
  } else if (op == "%") {
    if (isFloat)
      r = arith::RemFOp::create(b_, l, x, y);
    else
      r = resultUnsigned ? Value(arith::RemUIOp::create(b_, l, x, y))
                         : Value(arith::RemSIOp::create(b_, l, x, y));
  } else if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
    if (isFloat)
      return error(at, "operator '" + op + "' needs integer operands");
    if (op == "&")
      r = arith::AndIOp::create(b_, l, x, y);
    else if (op == "|")
      r = arith::OrIOp::create(b_, l, x, y);
    else if (op == "^")
      r = arith::XOrIOp::create(b_, l, x, y);
    else if (op == "<<")
      r = arith::ShLIOp::create(b_, l, x, y);
    else
      r = resultUnsigned ? Value(arith::ShRUIOp::create(b_, l, x, y))
                         : Value(arith::ShRSIOp::create(b_, l, x, y));
  } else if (op == "**") {
    if (!isFloat)
      return error(at, "'**' on integer tensors is not supported");
    r = math::PowFOp::create(b_, l, x, y);
  } else {
    return error(at, "operator '" + op + "' is not supported here");
  }
  return makeTensor(r, resultUnsigned);
}

absl::StatusOr<V> Generator::unary(const std::string &op, V a, SourceLocation at) {
  if (op == "not") {
    if (a->kind != Val::Tensor) {
      ASSIGN_OR_RETURN(bool truth, truthy(a, at));
      return makeBool(!truth);
    }
    ASSIGN_OR_RETURN(V t, cast(a, b_.getI1Type(), false, at));
    return makeTensor(arith::XOrIOp::create(b_, loc(at), t->value,
                                            constant(b_.getI1Type(), 1, shapeOf(t->value))));
  }
  if (a->isNumber()) {
    if (op == "-")
      return a->kind == Val::Float ? makeFloat(-a->f) : makeInt(-a->i);
    if (op == "+")
      return a->kind == Val::Bool ? makeInt(a->i) : a;
    if (op == "~") {
      if (a->kind == Val::Float)
        return error(at, "'~' needs an integer");
      return makeInt(~a->i);
    }
  }
  ASSIGN_OR_RETURN(V t, toTensor(a, at));
  Type elem = getElementTypeOrSelf(t->value.getType());
  if (op == "+")
    return t;
  if (op == "-")
    return binary("-", makeTensor(constant(elem, 0, shapeOf(t->value)), t->isUnsigned), t, at);
  if (op == "~") {
    if (!isa<IntegerType>(elem))
      return error(at, "'~' needs an integer tensor");
    return makeTensor(arith::XOrIOp::create(b_, loc(at), t->value,
                                            constant(elem, -1, shapeOf(t->value))),
                      t->isUnsigned);
  }
  return error(at, "unknown unary operator '" + op + "'");
}


absl::StatusOr<V> Generator::evalCompare(const Expr &e) {
  ASSIGN_OR_RETURN(V left, eval(*e.operands[0]));
  V result;
  for (size_t k = 0; k < e.ops.size(); ++k) {
    ASSIGN_OR_RETURN(V right, eval(*e.operands[k + 1]));
    const std::string &op = e.ops[k];
    V r;
    if (op == "is" || op == "is not") {
      bool same = left->kind == right->kind &&
                  (left->kind == Val::None || (left->kind == Val::Bool && left->i == right->i) ||
                   (left->kind == Val::Dtype && left->type == right->type));
      if (left->kind == Val::Tensor || right->kind == Val::Tensor)
        same = left->kind == Val::Tensor && right->kind == Val::Tensor &&
               left->value == right->value;
      r = makeBool(op == "is" ? same : !same);
    } else {
      ASSIGN_OR_RETURN(r, binary(op, left, right, e.loc));
    }
    if (result) {
      ASSIGN_OR_RETURN(result, binary("&", result, r, e.loc));
    } else {
      result = r;
    }
    left = right;
  }
  return result;
}

absl::StatusOr<V> Generator::evalBoolOp(const Expr &e) {
  bool isAnd = e.name == "and";
  ASSIGN_OR_RETURN(V acc, eval(*e.operands[0]));
  for (size_t k = 1; k < e.operands.size(); ++k) {
    if (acc->kind != Val::Tensor) {
      // Python short-circuit on compile-time values.
      ASSIGN_OR_RETURN(bool truth, truthy(acc, e.loc));
      if (truth != isAnd)
        return acc;
      ASSIGN_OR_RETURN(acc, eval(*e.operands[k]));
      continue;
    }
    ASSIGN_OR_RETURN(V next, eval(*e.operands[k]));
    ASSIGN_OR_RETURN(V a, cast(acc, b_.getI1Type(), false, e.loc));
    ASSIGN_OR_RETURN(V b, cast(next, b_.getI1Type(), false, e.loc));
    ASSIGN_OR_RETURN(acc, binary(isAnd ? "&" : "|", a, b, e.loc));
  }
  return acc;
}

} // namespace tessel::frontend
