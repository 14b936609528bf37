//===- BuiltinsMath.cpp - tl.math / libdevice functions beyond the core set -*- C++ -*-===//
//
// asin, acos, atan, atan2, sinh, cosh, tan, asinh, acosh, atanh, cbrt, trunc, round, rint /
// nearbyint, log10, copysign and hypot (and libdevice's f-suffixed spellings), as math-dialect
// ops. Integers compute in f32, as Triton's math functions do; the backends approximate the
// transcendental ones with polynomials (cpu and cuda: tessel-cpu-approximate-math).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <map>
#include <set>

using namespace mlir;

namespace tessel::frontend {

namespace {
/// The unary math op `OpTy` on `v`.
template <typename OpTy> Value create(OpBuilder &b, Location l, Value v) {
  return OpTy::create(b, l, v);
}
} // namespace

absl::StatusOr<SmallVector<Value>> Generator::floatOperands(std::vector<V> ops,
                                                           SourceLocation at) {
  Type elem;
  for (V &o : ops) {
    ASSIGN_OR_RETURN(o, toTensor(o, at));
    Type e = elementOf(o->value);
    if (isa<FloatType>(e) && (!elem || e.getIntOrFloatBitWidth() > elem.getIntOrFloatBitWidth()))
      elem = e;
  }
  if (!elem)
    elem = b_.getF32Type();
  for (size_t k = 1; k < ops.size(); ++k) {
    ASSIGN_OR_RETURN(auto pair, broadcastPair(ops[0], ops[k], at));
    std::tie(ops[0], ops[k]) = pair;
  }
  SmallVector<Value> vals;
  for (V &o : ops) {
    ASSIGN_OR_RETURN(V converted, cast(o, elem, false, at));
    ASSIGN_OR_RETURN(V broadcast, broadcastTo(converted, shapeOf(ops[0]->value), at));
    vals.push_back(broadcast->value);
  }
  return vals;
}

absl::StatusOr<V> Generator::callMathBuiltin(const std::string &nameIn, CallArgs &args) {
  std::string name = nameIn;
  // libdevice spells the f32 versions with an f: asinf, atan2f, ...
  static const std::set<std::string> withF = {
      "asinf", "acosf", "atanf",  "atan2f", "sinhf",  "coshf", "tanf",  "asinhf", "acoshf",
      "atanhf", "cbrtf", "truncf", "roundf", "rintf", "nearbyintf", "log10f", "copysignf",
      "hypotf"};
  if (withF.count(name))
    name.pop_back();
  SourceLocation at = args.loc;
  Location l = loc(at);
  static const std::map<std::string, Value (*)(OpBuilder &, Location, Value)> unary = {
      {"asin", create<math::AsinOp>},   {"acos", create<math::AcosOp>},
      {"atan", create<math::AtanOp>},   {"sinh", create<math::SinhOp>},
      {"cosh", create<math::CoshOp>},   {"tan", create<math::TanOp>},
      {"asinh", create<math::AsinhOp>}, {"acosh", create<math::AcoshOp>},
      {"atanh", create<math::AtanhOp>}, {"cbrt", create<math::CbrtOp>},
      {"trunc", create<math::TruncOp>}, {"round", create<math::RoundOp>},
      {"rint", create<math::RoundEvenOp>}, {"nearbyint", create<math::RoundEvenOp>},
  };
  if (auto it = unary.find(name); it != unary.end() || name == "log10") {
    if (args.positional.size() != 1 || !args.keywords.empty())
      return error(at, name + "() takes one argument, x");
    ASSIGN_OR_RETURN(SmallVector<Value> xs, floatOperands({args.positional[0]}, at));
    Value x = xs[0];
    if (name == "log10") {
      // log(x) / ln(10), in the argument's type.
      Value ln = math::LogOp::create(b_, l, x);
      return makeTensor(arith::MulFOp::create(
          b_, l, ln, constant(elementOf(x), 0.43429448190325182765, shapeOf(x))));
    }
    return makeTensor(it->second(b_, l, x));
  }
  if (name == "atan2" || name == "copysign" || name == "hypot") {
    if (args.positional.size() != 2 || !args.keywords.empty())
      return error(at, name + "() takes two arguments");
    ASSIGN_OR_RETURN(SmallVector<Value> v,
                     floatOperands({args.positional[0], args.positional[1]}, at));
    if (name == "atan2")
      return makeTensor(math::Atan2Op::create(b_, l, v[0], v[1]));
    if (name == "copysign")
      return makeTensor(math::CopySignOp::create(b_, l, v[0], v[1]));
    // hypot = big * sqrt(1 + (small / big)^2): no overflow or underflow in the squares;
    // 0 when both are 0.
    Value ax = math::AbsFOp::create(b_, l, v[0]), ay = math::AbsFOp::create(b_, l, v[1]);
    Value big = arith::MaximumFOp::create(b_, l, ax, ay);
    Value small = arith::MinimumFOp::create(b_, l, ax, ay);
    Type elem = elementOf(big);
    Value zero = constant(elem, 0, shapeOf(big)), one = constant(elem, 1, shapeOf(big));
    Value isZero = arith::CmpFOp::create(b_, l, arith::CmpFPredicate::OEQ, big, zero);
    Value safeBig = arith::SelectOp::create(b_, l, isZero, one, big);
    Value ratio = arith::DivFOp::create(b_, l, small, safeBig);
    Value root = math::SqrtOp::create(b_, l, math::FmaOp::create(b_, l, ratio, ratio, one));
    Value h = arith::MulFOp::create(b_, l, big, root);
    return makeTensor(arith::SelectOp::create(b_, l, isZero, zero, h));
  }
  return nullptr;
}

} // namespace tessel::frontend
