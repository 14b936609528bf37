//===- ExpandFp8.cpp - conversions to and from 8-bit floats as integer arithmetic -*- C++ -*-===//
//
// LLVM has no 8-bit float types: after arith-emulate-unsupported-floats only arith.truncf to an
// fp8 type and arith.extf from one are left, and this pass writes them as operations on the bits
// (scalars, vectors or tensors alike).
//
// Narrowing, from a source with Ms mantissa bits and bias Bs to M bits and bias Bt, on the
// source's bits as an integer of its width (so every source is rounded once, exactly):
//   - a value in the target's normal range (exponent >= 1 - Bt): round away the low Ms - M
//     mantissa bits (to nearest even: add half minus one plus the lowest kept bit; a carry
//     moves to the exponent by itself), shift, rebias;
//   - below it (or a source subnormal): the value in units of the target's smallest subnormal,
//     rounded the same way; in the first binade that count is the encoding too;
//   - beyond the largest finite value (infinities too): that value (PTX's .satfinite, Triton's
//     cvt.rn.satfinite on NVIDIA); NaN: the format's NaN; FNUZ formats: zero is never negative.
// Widening is exact: through f32's bits (subnormals as integer times a power of two), then to
// the requested type (f16 and bf16 hold every fp8 value).
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace tessel {
#define GEN_PASS_DEF_EXPANDFP8
#include "compiler/conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// An 8-bit float format.
struct Fp8Format {
  int mantissa; ///< M: stored mantissa bits
  int bias;     ///< Bt
  bool fnuz;    ///< no infinities, no negative zero, NaN is 0x80
  bool ieee;    ///< infinities (exponent all ones, mantissa 0) and NaNs (mantissa not 0)
  uint8_t largest, nan; ///< positive largest finite encoding; the NaN produced
};

std::optional<Fp8Format> fp8Format(Type t) {
  if (isa<Float8E5M2Type>(t))
    return Fp8Format{2, 15, false, true, 0x7b, 0x7f};
  if (isa<Float8E4M3FNType>(t)) // NaN is S.1111.111 only
    return Fp8Format{3, 7, false, false, 0x7e, 0x7f};
  if (isa<Float8E5M2FNUZType>(t))
    return Fp8Format{2, 16, true, false, 0x7f, 0x80};
  if (isa<Float8E4M3FNUZType>(t))
    return Fp8Format{3, 8, true, false, 0x7f, 0x80};
  return std::nullopt;
}

/// A wider IEEE source: total bits, mantissa bits, bias.
struct SourceFormat {
  int width, mantissa, bias;
};

std::optional<SourceFormat> sourceFormat(Type t) {
  if (t.isF16())
    return SourceFormat{16, 10, 15};
  if (t.isBF16())
    return SourceFormat{16, 7, 127};
  if (t.isF32())
    return SourceFormat{32, 23, 127};
  if (t.isF64())
    return SourceFormat{64, 52, 1023};
  return std::nullopt;
}

/// `like`'s shape (none for a scalar) with element type `element`.
Type withElement(Type like, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(like))
    return shaped.clone(element);
  return element;
}

/// Builds integer arithmetic of one type (scalar, vector or tensor of iN).
struct Bits {
  ImplicitLocOpBuilder &b;
  Type type; ///< the integer type, shaped like the operand

  Value cst(int64_t v) const {
    Type element = getElementTypeOrSelf(type);
    auto attr = IntegerAttr::get(element, APInt(element.getIntOrFloatBitWidth(), uint64_t(v),
                                                /*isSigned=*/true, /*implicitTrunc=*/true));
    if (auto shaped = dyn_cast<ShapedType>(type))
      return arith::ConstantOp::create(b, DenseElementsAttr::get(shaped, Attribute(attr)));
    return arith::ConstantOp::create(b, attr);
  }
  Value add(Value x, Value y) const { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) const { return arith::SubIOp::create(b, x, y); }
  Value band(Value x, Value y) const { return arith::AndIOp::create(b, x, y); }
  Value bor(Value x, Value y) const { return arith::OrIOp::create(b, x, y); }
  Value shl(Value x, Value y) const { return arith::ShLIOp::create(b, x, y); }
  Value shr(Value x, Value y) const { return arith::ShRUIOp::create(b, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value select(Value c, Value x, Value y) const { return arith::SelectOp::create(b, c, x, y); }
  Value umin(Value x, Value y) const { return arith::MinUIOp::create(b, x, y); }
  /// `x` rounded to a multiple of 2^`k` and divided by it (k >= 1): to nearest even, else
  /// toward zero.
  Value roundShift(Value x, Value k, bool nearestEven) const {
    if (!nearestEven)
      return shr(x, k);
    Value one = cst(1);
    Value halfMinusOne = sub(shl(one, sub(k, one)), one);
    Value odd = band(shr(x, k), one);
    return shr(add(add(x, halfMinusOne), odd), k);
  }
};

struct TruncToFp8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rewriter) const override {
    Type to = getElementTypeOrSelf(op.getType());
    std::optional<Fp8Format> t = fp8Format(to);
    if (!t)
      return failure();
    // (arith.truncf is always to a narrower type: fp8 to fp8 arrives as extf then truncf.)
    std::optional<SourceFormat> s = sourceFormat(getElementTypeOrSelf(op.getIn().getType()));
    if (!s)
      return rewriter.notifyMatchFailure(op, "unsupported source type");
    bool nearestEven = true;
    if (auto mode = op.getRoundingmode()) {
      if (*mode == arith::RoundingMode::toward_zero)
        nearestEven = false;
      else if (*mode != arith::RoundingMode::to_nearest_even)
        return rewriter.notifyMatchFailure(op, "only to_nearest_even and toward_zero");
    }

    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type wideInt = withElement(op.getType(), b.getIntegerType(s->width));
    Bits w{b, wideInt};
    using P = arith::CmpIPredicate;
    const int Ms = s->mantissa, M = t->mantissa, Bs = s->bias, Bt = t->bias;
    const int64_t emin = 1 - Bt; // the target's smallest normal exponent

    Value bits = arith::BitcastOp::create(b, wideInt, op.getIn());
    Value signBit = w.shr(bits, w.cst(s->width - 1));
    Value abs = w.band(bits, w.cst(int64_t((uint64_t(1) << (s->width - 1)) - 1)));
    int64_t expAllOnes = (int64_t(1) << (s->width - 1 - Ms)) - 1;
    Value isNaN = w.cmp(P::ugt, abs, w.cst(expAllOnes << Ms));
    Value expField = w.shr(abs, w.cst(Ms));
    Value mant = w.band(abs, w.cst((int64_t(1) << Ms) - 1));
    Value expZero = w.cmp(P::eq, expField, w.cst(0));

    // In the target's normal range: round the mantissa, then rebias (the subtraction may add).
    Value normal = w.band(w.cmp(P::sge, expField, w.cst(emin + Bs)),
                          w.cmp(P::ne, expField, w.cst(0)));
    Value codeNormal = w.sub(w.roundShift(abs, w.cst(Ms - M), nearestEven),
                             w.cst(int64_t(Bs - Bt) * (int64_t(1) << M))); // Bs - Bt may be < 0
    // Below it: the value in units of 2^(emin - M), i.e. significand >> k with
    // k = (emin - M) - (max(exp, 1) - Bs - Ms), at most Ms + 2 (everything rounds to 0 beyond).
    Value sig = w.select(expZero, mant, w.bor(mant, w.cst(int64_t(1) << Ms)));
    Value expOrOne = w.select(expZero, w.cst(1), expField);
    Value k = w.sub(w.cst(emin - M + Bs + Ms), expOrOne);
    k = w.umin(k, w.cst(Ms + 2));
    Value codeSmall = w.roundShift(sig, k, nearestEven);

    Value code = w.select(normal, codeNormal, codeSmall);
    code = w.select(w.cmp(P::ugt, code, w.cst(t->largest)), w.cst(t->largest), code);

    Type byte = withElement(op.getType(), b.getI8Type());
    Bits n{b, byte};
    Value code8 = arith::TruncIOp::create(b, byte, code);
    Value sign8 = n.shl(arith::TruncIOp::create(b, byte, signBit), n.cst(7));
    Value signed8 = n.bor(code8, sign8);
    if (t->fnuz) // no negative zero
      signed8 = n.select(n.cmp(P::eq, code8, n.cst(0)), n.cst(0), signed8);
    Value result = n.select(isNaN, n.cst(t->nan), signed8);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), result);
    return success();
  }
};

struct ExtFromFp8 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rewriter) const override {
    std::optional<Fp8Format> t = fp8Format(getElementTypeOrSelf(op.getIn().getType()));
    if (!t)
      return failure();
    Type to = getElementTypeOrSelf(op.getType());
    if (!sourceFormat(to))
      return rewriter.notifyMatchFailure(op, "unsupported result type");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    using P = arith::CmpIPredicate;
    const int M = t->mantissa, E = 7 - M;
    const int64_t emin = 1 - t->bias;
    Type byte = withElement(op.getType(), b.getI8Type());
    Type word = withElement(op.getType(), b.getI32Type());
    Type f32 = withElement(op.getType(), b.getF32Type());
    Bits i{b, word};

    Value code = arith::ExtUIOp::create(b, word, arith::BitcastOp::create(b, byte, op.getIn()));
    Value sign = i.shl(i.shr(code, i.cst(7)), i.cst(31));
    Value expField = i.band(i.shr(code, i.cst(M)), i.cst((1 << E) - 1));
    Value mant = i.band(code, i.cst((1 << M) - 1));
    // Normal: rebias the exponent, widen the mantissa.
    Value normal = i.bor(i.shl(i.add(expField, i.cst(127 - t->bias)), i.cst(23)),
                         i.shl(mant, i.cst(23 - M)));
    // Subnormal: mantissa * 2^(emin - M), exact in f32.
    TypedAttr scale = b.getF32FloatAttr(std::ldexp(1.0f, int(emin - M)));
    if (auto shaped = dyn_cast<ShapedType>(f32))
      scale = DenseElementsAttr::get(shaped, scale);
    Value small = arith::MulFOp::create(b, arith::UIToFPOp::create(b, f32, mant),
                                        arith::ConstantOp::create(b, scale));
    Value smallBits = arith::BitcastOp::create(b, word, small);
    Value magnitude = i.select(i.cmp(P::eq, expField, i.cst(0)), smallBits, normal);
    Value bits = i.bor(magnitude, sign);
    // Special encodings.
    Value nan = i.cst(0x7fc00000);
    if (t->fnuz) {
      bits = i.select(i.cmp(P::eq, code, i.cst(0x80)), nan, bits);
    } else if (t->ieee) {
      Value top = i.cmp(P::eq, expField, i.cst((1 << E) - 1));
      Value inf = i.bor(sign, i.cst(0x7f800000));
      bits = i.select(top, i.select(i.cmp(P::eq, mant, i.cst(0)), inf, nan), bits);
    } else { // S.1111.111
      bits = i.select(i.cmp(P::eq, i.band(code, i.cst(0x7f)), i.cst(0x7f)), nan, bits);
    }
    Value wide = arith::BitcastOp::create(b, f32, bits);
    if (to.isF32())
      rewriter.replaceOp(op, wide);
    else if (to.getIntOrFloatBitWidth() > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), wide);
    else // f16, bf16: exact
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

struct ExpandFp8Pass : tessel::impl::ExpandFp8Base<ExpandFp8Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<TruncToFp8, ExtFromFp8>(&getContext());
    // Only the conversions change: no folding, constant merging or region simplification, so
    // a kernel without 8-bit floats comes out as it went in.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    // What could not be expanded is an error here, not an LLVM translation failure later.
    WalkResult r = getOperation()->walk([](Operation *op) {
      bool fp8 = false;
      if (isa<arith::TruncFOp>(op))
        fp8 = fp8Format(getElementTypeOrSelf(op->getResult(0).getType())).has_value();
      if (isa<arith::ExtFOp>(op))
        fp8 = fp8Format(getElementTypeOrSelf(op->getOperand(0).getType())).has_value();
      if (!fp8)
        return WalkResult::advance();
      op->emitError("this 8-bit float conversion is not supported (rounding mode or type)");
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
