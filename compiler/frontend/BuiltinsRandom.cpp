//===- BuiltinsRandom.cpp - tl.umulhi and Triton's Philox random numbers -*- C++ -*-===//
//
// tl.randint / randint4x / rand / rand4x / randn / randn4x / philox and their helpers, as
// Triton defines them: Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as
// 1, 2, 3", SC'11) keyed by the seed (low and high 32 bits) with counter (the offset's low
// 32 bits, its high 32 bits (0 for 32-bit offsets), 0, 0), as Triton 3.6's randint4x builds
// it; tl.philox called on 64-bit counters runs Philox-4x64. Integers come out unsigned; a
// uniform float is the integer, read as signed and folded onto [0, 2^31), times a scale just
// below 2^-31 (2^-63 for 64 bits); a normal is the first of a Box-Muller pair. Same seed and
// offsets, same bits as Triton.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <set>

using namespace mlir;

namespace tessel::frontend {
namespace {

/// Philox's multipliers and key increments for words of 32 and 64 bits.
struct PhiloxConstants {
  uint64_t roundA, roundB, keyA, keyB;
};
constexpr PhiloxConstants kPhilox32 = {0xD2511F53u, 0xCD9E8D57u, 0x9E3779B9u, 0xBB67AE85u};
constexpr PhiloxConstants kPhilox64 = {0xD2E7470EE14C6C93ull, 0xCA5A826395121157ull,
                                       0x9E3779B97F4A7C15ull, 0xBB67AE8584CAA73Bull};

constexpr int kDefaultRounds = 10;

} // namespace

/// An unsigned integer constant of `width` bits (exact for 64-bit values).
static V unsignedConstant(Generator &g, unsigned width, uint64_t value, SourceLocation at) {
  OpBuilder &b = g.builder();
  Type t = b.getIntegerType(width);
  Value c = arith::ConstantOp::create(b, g.loc(at), IntegerAttr::get(t, APInt(width, value)));
  return makeTensor(c, /*isUnsigned=*/true);
}

absl::StatusOr<V> Generator::umulhi(V x, V y, SourceLocation at) {
  // A constexpr operand takes the other's type; both must then be integers of one width.
  if (x->isConstexpr() && !y->isConstexpr()) {
    ASSIGN_OR_RETURN(V yt, toTensor(y, at));
    ASSIGN_OR_RETURN(x, cast(x, elementOf(yt->value), y->isUnsigned, at));
  }
  if (y->isConstexpr() && !x->isConstexpr()) {
    ASSIGN_OR_RETURN(V xt, toTensor(x, at));
    ASSIGN_OR_RETURN(y, cast(y, elementOf(xt->value), x->isUnsigned, at));
  }
  ASSIGN_OR_RETURN(V a, toTensor(x, at));
  ASSIGN_OR_RETURN(V c, toTensor(y, at));
  auto ta = dyn_cast<IntegerType>(elementOf(a->value));
  auto tc = dyn_cast<IntegerType>(elementOf(c->value));
  if (!ta || !tc || ta != tc)
    return error(at, "tl.umulhi takes two integers of one type, got " + describe(a) + " and " +
                         describe(c));
  ASSIGN_OR_RETURN(auto ac, broadcastPair(a, c, at));
  auto [l, r] = ac;
  unsigned width = ta.getWidth();
  Type wide = b_.getIntegerType(2 * width);
  Location where = loc(at);
  auto widen = [&](Value v) {
    return arith::ExtUIOp::create(b_, where, withElement(v.getType(), wide), v).getResult();
  };
  Value product = arith::MulIOp::create(b_, where, widen(l->value), widen(r->value));
  Value shift = constant(wide, width, shapeOf(product));
  Value high = arith::ShRUIOp::create(b_, where, product, shift);
  return makeTensor(arith::TruncIOp::create(b_, where, l->value.getType(), high), x->isUnsigned);
}

absl::StatusOr<V> Generator::philox(V seed, std::array<V, 4> counter, int rounds,
                                     SourceLocation at) {
  ASSIGN_OR_RETURN(V c0, toTensor(counter[0], at));
  auto counterType = dyn_cast<IntegerType>(elementOf(c0->value));
  if (!counterType || (counterType.getWidth() != 32 && counterType.getWidth() != 64))
    return error(at,
                 "Philox counters (the offsets) are 32- or 64-bit integers, got " + describe(c0));
  ASSIGN_OR_RETURN(V s, toTensor(seed, at));
  if (!isa<IntegerType>(elementOf(s->value)) || !shapeOf(s->value).empty())
    return error(at, "the random seed must be an integer scalar, got " + describe(s));
  if (rounds <= 0)
    return error(at, "n_rounds must be positive, got " + std::to_string(rounds));
  unsigned width = counterType.getWidth();
  Type word = b_.getIntegerType(width);
  ASSIGN_OR_RETURN(V seed64, cast(s, b_.getI64Type(), /*toUnsigned=*/true, at));
  V k0, k1;
  if (width == 32) {
    ASSIGN_OR_RETURN(k0, cast(seed64, word, true, at));
    ASSIGN_OR_RETURN(V seedHigh, binary(">>", seed64, unsignedConstant(*this, 64, 32, at), at));
    ASSIGN_OR_RETURN(k1, cast(seedHigh, word, true, at));
  } else {
    k0 = seed64;
    k1 = unsignedConstant(*this, 64, 0, at);
  }
  std::array<V, 4> c;
  for (int i = 0; i < 4; ++i) {
    ASSIGN_OR_RETURN(c[i], cast(counter[i], word, /*toUnsigned=*/true, at, /*bitcast=*/true));
  }
  const PhiloxConstants &p = width == 32 ? kPhilox32 : kPhilox64;
  V roundA = unsignedConstant(*this, width, p.roundA, at);
  V roundB = unsignedConstant(*this, width, p.roundB, at);
  V keyA = unsignedConstant(*this, width, p.keyA, at);
  V keyB = unsignedConstant(*this, width, p.keyB, at);
  for (int r = 0; r < rounds; ++r) {
    // One round: two multiplications, their high halves mixed with the other words and the
    // key, then the key bumped by the Weyl constants.
    ASSIGN_OR_RETURN(V hi0, umulhi(roundA, c[0], at));
    ASSIGN_OR_RETURN(V lo0, binary("*", roundA, c[0], at));
    ASSIGN_OR_RETURN(V hi1, umulhi(roundB, c[2], at));
    ASSIGN_OR_RETURN(V lo1, binary("*", roundB, c[2], at));
    ASSIGN_OR_RETURN(V mix0, binary("^", hi1, c[1], at));
    ASSIGN_OR_RETURN(V word0, binary("^", mix0, k0, at));
    ASSIGN_OR_RETURN(V mix2, binary("^", hi0, c[3], at));
    ASSIGN_OR_RETURN(V word2, binary("^", mix2, k1, at));
    c = {word0, lo1, word2, lo0};
    ASSIGN_OR_RETURN(k0, binary("+", k0, keyA, at));
    ASSIGN_OR_RETURN(k1, binary("+", k1, keyB, at));
  }
  for (V &v : c) { // every word has the counters' shape, even where the key is a scalar
    ASSIGN_OR_RETURN(V counterShape, toTensor(c0, at));
    ASSIGN_OR_RETURN(v, broadcastTo(v, shapeOf(counterShape->value), at));
  }
  return makeTuple({c[0], c[1], c[2], c[3]});
}

absl::StatusOr<V> Generator::uniformFromBits(V x, SourceLocation at) {
  ASSIGN_OR_RETURN(V bits, toTensor(x, at));
  auto t = dyn_cast<IntegerType>(elementOf(bits->value));
  if (!t || (t.getWidth() != 32 && t.getWidth() != 64))
    return error(at, "uint_to_uniform_float takes 32- or 64-bit integers, got " + describe(bits));
  bool wide = t.getWidth() == 64;
  // Signed, folded onto [0, 2^(n-1)) (x < 0: -x - 1), times the largest scale that keeps the
  // product below 1 after rounding.
  ASSIGN_OR_RETURN(V s, cast(bits, t, /*toUnsigned=*/false, at, /*bitcast=*/true));
  V zero = makeTensor(constant(t, 0, {}), false);
  ASSIGN_OR_RETURN(V negative, binary("<", s, zero, at));
  ASSIGN_OR_RETURN(V negated, unary("-", s, at));
  ASSIGN_OR_RETURN(V folded, binary("-", negated, makeTensor(constant(t, 1, {}), false), at));
  CallArgs pick{{negative, folded, s}, {}, at};
  ASSIGN_OR_RETURN(V nonNegative, callBuiltin("where", pick));
  return binary("*", nonNegative, makeFloat(wide ? 1.0842020432385337e-19 : 4.6566127342e-10),
                at);
}

absl::StatusOr<V> Generator::normalPair(V u1, V u2, SourceLocation at) {
  CallArgs floor{{makeFloat(1.0e-7), u1}, {}, at};
  ASSIGN_OR_RETURN(V u, callBuiltin("maximum", floor));
  ASSIGN_OR_RETURN(V theta, binary("*", makeFloat(6.283185307179586), u2, at));
  CallArgs logArgs{{u}, {}, at};
  ASSIGN_OR_RETURN(V logU, callBuiltin("log", logArgs));
  ASSIGN_OR_RETURN(V minusTwoLog, binary("*", makeFloat(-2.0), logU, at));
  CallArgs sqrtArgs{{minusTwoLog}, {}, at};
  ASSIGN_OR_RETURN(V radius, callBuiltin("sqrt", sqrtArgs));
  CallArgs cosArgs{{theta}, {}, at}, sinArgs{{theta}, {}, at};
  ASSIGN_OR_RETURN(V cosTheta, callBuiltin("cos", cosArgs));
  ASSIGN_OR_RETURN(V first, binary("*", radius, cosTheta, at));
  ASSIGN_OR_RETURN(V sinTheta, callBuiltin("sin", sinArgs));
  ASSIGN_OR_RETURN(V second, binary("*", radius, sinTheta, at));
  return makeTuple({first, second});
}

absl::StatusOr<V> Generator::callRandomBuiltin(const std::string &name, CallArgs &args) {
  SourceLocation at = args.loc;
  auto rounds = [&](const V &v) -> absl::StatusOr<int> {
    if (v && v->kind != Val::None) {
      ASSIGN_OR_RETURN(int64_t n, requireInt(v, at, "n_rounds"));
      return int(n);
    }
    return kDefaultRounds;
  };
  std::string fn = "tl." + name;
  if (name == "umulhi") {
    ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, fn, {{"x", true}, {"y", true}}));
    return umulhi(p.get("x"), p.get("y"), at);
  }
  if (name == "philox") {
    ASSIGN_OR_RETURN(Params p,
                     Params::Make(*this, args, fn, {{"seed", true}, {"c0", true}, {"c1", true},
                                                    {"c2", true}, {"c3", true},
                                                    {"n_rounds", false}}));
    ASSIGN_OR_RETURN(int n, rounds(p.get("n_rounds")));
    return philox(p.get("seed"), {p.get("c0"), p.get("c1"), p.get("c2"), p.get("c3")}, n, at);
  }
  if (name == "uint_to_uniform_float") {
    ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, fn, {{"x", true}}));
    return uniformFromBits(p.get("x"), at);
  }
  if (name == "pair_uniform_to_normal") {
    ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, fn, {{"u1", true}, {"u2", true}}));
    return normalPair(p.get("u1"), p.get("u2"), at);
  }
  static const std::set<std::string> seeded = {"randint", "randint4x", "rand",
                                                "rand4x",  "randn",     "randn4x"};
  if (!seeded.count(name))
    return nullptr;
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, fn,
                                          {{"seed", true}, {"offset", true}, {"n_rounds", false}}));
  ASSIGN_OR_RETURN(V offset, toTensor(p.get("offset"), at));
  if (!isa<IntegerType>(elementOf(offset->value)))
    return error(at, "tl." + name + " takes integer offsets, got " + describe(offset));
  // Counter (low 32 bits, high 32 bits, 0, 0) of 32-bit words, whatever the offsets' width.
  Type word = b_.getI32Type();
  ASSIGN_OR_RETURN(V low, cast(offset, word, /*toUnsigned=*/true, at));
  ASSIGN_OR_RETURN(V zero, binary("*", low, makeInt(0), at));
  V high = zero;
  if (elementOf(offset->value).getIntOrFloatBitWidth() > 32) {
    ASSIGN_OR_RETURN(V shifted, binary(">>", offset, makeInt(32), at));
    ASSIGN_OR_RETURN(high, cast(shifted, word, /*toUnsigned=*/true, at));
  }
  ASSIGN_OR_RETURN(int n, rounds(p.get("n_rounds")));
  ASSIGN_OR_RETURN(V words, philox(p.get("seed"), {low, high, zero, zero}, n, at));
  if (name == "randint")
    return words->items[0];
  if (name == "randint4x")
    return words;
  if (name == "rand")
    return uniformFromBits(words->items[0], at);
  std::vector<V> u;
  for (const V &w : words->items) {
    ASSIGN_OR_RETURN(V uniform, uniformFromBits(w, at));
    u.push_back(uniform);
  }
  if (name == "rand4x")
    return makeTuple(u);
  ASSIGN_OR_RETURN(V first, normalPair(u[0], u[1], at));
  if (name == "randn")
    return first->items[0];
  ASSIGN_OR_RETURN(V second, normalPair(u[2], u[3], at));
  return makeTuple({first->items[0], first->items[1], second->items[0], second->items[1]});
}

} // namespace tessel::frontend
