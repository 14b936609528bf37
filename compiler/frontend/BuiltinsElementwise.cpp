//===- BuiltinsElementwise.cpp - builtins: dot and elementwise math -*- C++
//-*-===//
//
// dot and elementwise math: unary functions, pow, fma, softmax, division,
// maximum, clamp, where.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <functional>
#include <limits>
#include <set>

using namespace mlir;

namespace tessel::frontend {

absl::StatusOr<V> Generator::builtinDot(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "dot",
                                          {{"input", true},
                                           {"other", true},
                                           {"acc", false},
                                           {"input_precision", false},
                                           {"allow_tf32", false},
                                           {"max_num_imprecise_acc", false},
                                           {"out_dtype", false}}));
  ASSIGN_OR_RETURN(V a, p.tensor("input"));
  ASSIGN_OR_RETURN(V bv, p.tensor("other"));
  ArrayRef<int64_t> sa = shapeOf(a->value), sb = shapeOf(bv->value);
  if (sa.size() < 2 || sa.size() != sb.size() || sa.size() > 3)
    return error(at, "tl.dot takes two 2-D (or 3-D batched) tensors");
  size_t r = sa.size();
  if (sa[r - 1] != sb[r - 2])
    return error(at, "tl.dot: the inner dimensions differ (" + std::to_string(sa[r - 1]) +
                         " and " + std::to_string(sb[r - 2]) + ")");
  if (sa[r - 2] < 16 || sa[r - 1] < 16 || sb[r - 1] < 16)
    return error(at, "tl.dot needs every dimension to be at least 16");
  Type ea = elementOf(a->value), eb = elementOf(bv->value);
  if (ea != eb) {
    if (isa<FloatType>(ea) && isa<FloatType>(eb)) {
      Type wide = ea.getIntOrFloatBitWidth() >= eb.getIntOrFloatBitWidth() ? ea : eb;
      ASSIGN_OR_RETURN(a, cast(a, wide, false, at));
      ASSIGN_OR_RETURN(bv, cast(bv, wide, false, at));
      ea = wide;
    } else {
      return error(at, "tl.dot operands have different element types");
    }
  }
  SmallVector<int64_t> shape(sa.begin(), sa.end());
  shape[r - 1] = sb[r - 1];
  Type out = isa<IntegerType>(ea) ? Type(b_.getI32Type()) : Type(b_.getF32Type());
  if (V o = p.opt("out_dtype")) {
    ASSIGN_OR_RETURN(out, requireDtype(o, at, "out_dtype"));
  }
  Value acc;
  if (V c = p.opt("acc")) {
    ASSIGN_OR_RETURN(V cc, toTensor(c, at));
    if (shapeOf(cc->value) != ArrayRef<int64_t>(shape))
      return error(at, "tl.dot's acc has the wrong shape");
    acc = cc->value;
    out = elementOf(acc);
  } else {
    acc = constant(out, 0, shape);
  }
  tt::InputPrecision precision = tt::InputPrecision::TF32;
  if (V ip = p.opt("input_precision")) {
    if (ip->kind != Val::Str)
      return error(at, "input_precision must be a string");
    if (ip->s == "ieee")
      precision = tt::InputPrecision::IEEE;
    else if (ip->s == "tf32")
      precision = tt::InputPrecision::TF32;
    else if (ip->s == "tf32x3")
      precision = tt::InputPrecision::TF32x3;
    else
      return error(at, "unknown input_precision '" + ip->s + "'");
  } else if (V tf = p.opt("allow_tf32")) {
    ASSIGN_OR_RETURN(bool allow, truthy(tf, at));
    if (!allow)
      precision = tt::InputPrecision::IEEE;
  }
  auto dot = tt::DotOp::create(b_, l, acc.getType(), a->value, bv->value, acc, precision, 0);
  return makeTensor(dot);
}

absl::StatusOr<V> Generator::builtinUnaryMath(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name, {{"x", true}}));
  ASSIGN_OR_RETURN(V x, p.tensor("x"));
  Type elem = elementOf(x->value);
  if (name == "abs") {
    if (isa<FloatType>(elem))
      return makeTensor(math::AbsFOp::create(b_, l, x->value));
    if (x->isUnsigned)
      return x;
    return makeTensor(math::AbsIOp::create(b_, l, x->value));
  }
  if (!isa<FloatType>(elem)) {
    ASSIGN_OR_RETURN(x, cast(x, b_.getF32Type(), false, at));
  }
  Value v = x->value;
  if (name == "exp" || name == "fast_expf")
    return makeTensor(math::ExpOp::create(b_, l, v));
  if (name == "exp2")
    return makeTensor(math::Exp2Op::create(b_, l, v));
  if (name == "log" || name == "fast_logf")
    return makeTensor(math::LogOp::create(b_, l, v));
  if (name == "log2")
    return makeTensor(math::Log2Op::create(b_, l, v));
  if (name == "sqrt")
    return makeTensor(math::SqrtOp::create(b_, l, v));
  if (name == "sqrt_rn")
    return makeTensor(tt::PreciseSqrtOp::create(b_, l, v));
  if (name == "rsqrt")
    return makeTensor(math::RsqrtOp::create(b_, l, v));
  if (name == "sin")
    return makeTensor(math::SinOp::create(b_, l, v));
  if (name == "cos")
    return makeTensor(math::CosOp::create(b_, l, v));
  if (name == "floor")
    return makeTensor(math::FloorOp::create(b_, l, v));
  if (name == "ceil")
    return makeTensor(math::CeilOp::create(b_, l, v));
  if (name == "erf")
    return makeTensor(math::ErfOp::create(b_, l, v));
  if (name == "tanh")
    return makeTensor(math::TanhOp::create(b_, l, v));
  if (name == "log1p")
    return makeTensor(math::Log1pOp::create(b_, l, v));
  if (name == "expm1")
    return makeTensor(math::ExpM1Op::create(b_, l, v));
  // sigmoid(x) = 1 / (1 + exp(-x)), as Triton's standard library writes it.
  ASSIGN_OR_RETURN(V negated, unary("-", x, at));
  V e = makeTensor(math::ExpOp::create(b_, l, negated->value));
  ASSIGN_OR_RETURN(V den, binary("+", makeFloat(1.0), e, at));
  return binary("/", makeFloat(1.0), den, at);
}

absl::StatusOr<V> Generator::builtinPowFma(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  bool isFma = name == "fma";
  std::vector<std::pair<std::string, bool>> params = {{"x", true}, {"y", true}};
  if (isFma)
    params.push_back({"z", true});
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name, params));
  ASSIGN_OR_RETURN(V x, p.tensor("x"));
  ASSIGN_OR_RETURN(V y, p.tensor("y"));
  std::vector<V> ops = {x, y};
  if (isFma) {
    ASSIGN_OR_RETURN(V z, p.tensor("z"));
    ops.push_back(z);
  }
  ASSIGN_OR_RETURN(SmallVector<Value> vals, floatOperands(ops, at));
  if (isFma)
    return makeTensor(math::FmaOp::create(b_, l, vals[0], vals[1], vals[2]));
  return makeTensor(math::PowFOp::create(b_, l, vals[0], vals[1]));
}

absl::StatusOr<V> Generator::builtinSoftmax(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  // Triton's standard library: exp(x - max) / sum(exp(x - max)) along `dim`
  // (the last one by default), kept broadcastable.
  ASSIGN_OR_RETURN(
      Params p,
      Params::Make(*this, args, "softmax",
                   {{"x", true}, {"dim", false}, {"keep_dims", false}, {"ieee_rounding", false}}));
  ASSIGN_OR_RETURN(V x, p.tensor("x"));
  int64_t rank = int64_t(shapeOf(x->value).size());
  if (rank == 0)
    return error(at, "tl.softmax needs a tensor");
  V dim = p.opt("dim") ? p.get("dim") : makeInt(rank - 1);
  CallArgs mx{{x}, {{"axis", dim}, {"keep_dims", makeBool(true)}}, at};
  ASSIGN_OR_RETURN(V maxima, callBuiltin("max", mx));
  ASSIGN_OR_RETURN(V z, binary("-", x, maxima, at));
  ASSIGN_OR_RETURN(
      V zf,
      cast(z, isa<FloatType>(elementOf(z->value)) ? elementOf(z->value) : Type(b_.getF32Type()),
           false, at));
  V num = makeTensor(math::ExpOp::create(b_, l, zf->value));
  CallArgs sm{{num}, {{"axis", dim}, {"keep_dims", makeBool(true)}}, at};
  ASSIGN_OR_RETURN(V den, callBuiltin("sum", sm));
  CallArgs dv{{num, den}, {}, at};
  if (p.opt("ieee_rounding"))
    dv.keywords.push_back({"ieee_rounding", p.get("ieee_rounding")});
  return callBuiltin("fdiv", dv);
}

absl::StatusOr<V> Generator::builtinDivision(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{"x", true},
                                           {"y", true},
                                           {"ieee_rounding", false},
                                           {"rounding", false}}));
  ASSIGN_OR_RETURN(V x, p.tensor("x"));
  ASSIGN_OR_RETURN(V y, p.tensor("y"));
  bool precise = name == "div_rn";
  if (!precise && p.opt("ieee_rounding")) {
    ASSIGN_OR_RETURN(precise, truthy(p.get("ieee_rounding"), at));
  }
  if (!precise)
    return binary("/", x, y, at);
  ASSIGN_OR_RETURN(auto xy, broadcastPair(x, y, at));
  auto [xa, ya] = xy;
  Type elem = elementOf(xa->value);
  if (!isa<FloatType>(elem) || elementOf(ya->value) != elem)
    return error(at, "tl." + name + " needs two floats of one type");
  return makeTensor(tt::PreciseDivFOp::create(b_, l, xa->value, ya->value));
}

absl::StatusOr<V> Generator::builtinMaximumMinimum(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, name,
                                          {{"x", true}, {"y", true}, {"propagate_nan", false}}));
  V x = p.get("x"), y = p.get("y");
  if (x->isNumber() && y->isNumber()) {
    ASSIGN_OR_RETURN(V lt, binary("<", x, y, at));
    bool less = lt->i;
    return (name == "maximum") == less ? y : x;
  }
  // The comparison picks the common type; then select the op on it.
  ASSIGN_OR_RETURN(V sum, binary("+", x, y, at)); // result type only; folded away when unused
  Type elem = elementOf(sum->value);
  bool u = sum->isUnsigned;
  if (Operation *dead = sum->value.getDefiningOp())
    dead->erase();
  ASSIGN_OR_RETURN(V xc, cast(x, elem, u, at));
  ASSIGN_OR_RETURN(V yc, cast(y, elem, u, at));
  ASSIGN_OR_RETURN(auto xy, broadcastPair(xc, yc, at));
  auto [xa, ya] = xy;
  bool nanAll = false;
  if (V pn = p.opt("propagate_nan")) {
    if (pn->kind == Val::Int) {
      nanAll = pn->i != 0;
    } else {
      ASSIGN_OR_RETURN(nanAll, truthy(pn, at));
    }
  }
  Value r;
  if (isa<FloatType>(elem))
    r = name == "maximum" ? (nanAll ? Value(arith::MaximumFOp::create(b_, l, xa->value, ya->value))
                                    : Value(arith::MaxNumFOp::create(b_, l, xa->value, ya->value)))
                          : (nanAll ? Value(arith::MinimumFOp::create(b_, l, xa->value, ya->value))
                                    : Value(arith::MinNumFOp::create(b_, l, xa->value, ya->value)));
  else if (name == "maximum")
    r = u ? Value(arith::MaxUIOp::create(b_, l, xa->value, ya->value))
          : Value(arith::MaxSIOp::create(b_, l, xa->value, ya->value));
  else
    r = u ? Value(arith::MinUIOp::create(b_, l, xa->value, ya->value))
          : Value(arith::MinSIOp::create(b_, l, xa->value, ya->value));
  return makeTensor(r, u);
}

absl::StatusOr<V> Generator::builtinClamp(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  ASSIGN_OR_RETURN(
      Params p,
      Params::Make(*this, args, "clamp",
                   {{"x", true}, {"min", true}, {"max", true}, {"propagate_nan", false}}));
  CallArgs lo{{p.get("x"), p.get("min")}, {}, at};
  ASSIGN_OR_RETURN(V r, callBuiltin("maximum", lo));
  CallArgs hi{{r, p.get("max")}, {}, at};
  return callBuiltin("minimum", hi);
}

absl::StatusOr<V> Generator::builtinWhere(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  Location l = loc(at);
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "where",
                                          {{"condition", true}, {"x", true}, {"y", true}}));
  ASSIGN_OR_RETURN(V c, cast(p.get("condition"), b_.getI1Type(), false, at));
  V x = p.get("x"), y = p.get("y");
  auto isPointer = [&](const V &v) {
    return v->kind == Val::Tensor && isa<tt::PointerType>(elementOf(v->value));
  };
  V xc, yc;
  bool u = false;
  if (isPointer(x) || isPointer(y)) {
    // Pointers: both of one type (no promotion between pointers).
    if (!isPointer(x) || !isPointer(y) || elementOf(x->value) != elementOf(y->value))
      return error(at, "tl.where on pointers takes two pointers of one type, got " +
                           describe(x) + " and " + describe(y));
    xc = x, yc = y;
    u = x->isUnsigned; // the pointee's signedness (*u32) travels with the
                       // pointer
  } else {
    ASSIGN_OR_RETURN(V folded, binary("+", x, y, at)); // two numbers fold first
    ASSIGN_OR_RETURN(V sum, toTensor(folded, at));        // the common type
    Type elem = elementOf(sum->value);
    u = sum->isUnsigned;
    if (Operation *dead = sum->value.getDefiningOp())
      dead->erase();
    ASSIGN_OR_RETURN(xc, cast(x, elem, u, at));
    ASSIGN_OR_RETURN(yc, cast(y, elem, u, at));
  }
  ASSIGN_OR_RETURN(auto cx, broadcastPair(c, xc, at));
  auto [c1, x1] = cx;
  ASSIGN_OR_RETURN(auto cy, broadcastPair(c1, yc, at));
  auto [c2, y1] = cy;
  ASSIGN_OR_RETURN(auto xy, broadcastPair(x1, y1, at));
  auto [x2, y2] = xy;
  ASSIGN_OR_RETURN(V cc, broadcastTo(c2, shapeOf(x2->value), at));
  return makeTensor(arith::SelectOp::create(b_, l, cc->value, x2->value, y2->value), u);
}

} // namespace tessel::frontend
