//===- ExpandNarrowFloats.cpp - conversions to and from narrow floats as integer arithmetic -*- C++ -*-===//
//
// LLVM has no 8-bit float types, and on CPUs without the instructions for them it turns
// conversions to bf16 and f16 (and from f16) into compiler-rt calls (__truncsfbf2,
// __truncsfhf2, __extendhfsf2, __truncdfhf2, ...) that a kernel's shared object cannot count on
// finding. After arith-emulate-unsupported-floats only arith.truncf to such a type and
// arith.extf from it are left, and this pass writes the selected ones as operations on the bits
// (scalars, vectors or tensors alike), which LLVM then vectorizes like any integer code.
//
// Narrowing, from a source with Ms mantissa bits and bias Bs to M bits and bias Bt, on the
// source's bits as an integer of its width (so every source is rounded once, exactly):
//   - a value in the target's normal range (exponent >= 1 - Bt): round away the low Ms - M
//     mantissa bits (to nearest even: add half minus one plus the lowest kept bit; a carry
//     moves to the exponent by itself), shift, rebias;
//   - below it (or a source subnormal): the value in units of the target's smallest subnormal,
//     rounded the same way; in the first binade that count is the encoding too;
//   - beyond the largest finite value: 8-bit floats saturate to it, infinities too (PTX's
//     .satfinite, Triton's cvt.rn.satfinite on NVIDIA); f16 and bf16 follow IEEE (infinity
//     when rounding to nearest, the largest finite value toward zero; infinity stays
//     infinity); NaN: the format's quiet NaN; FNUZ formats: zero is never negative.
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
#define GEN_PASS_DEF_EXPANDNARROWFLOATS
#include "compiler/conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;

namespace {

/// A narrow float format a conversion can be expanded to or from.
struct NarrowFormat {
  int width;    ///< total bits
  int mantissa; ///< M: stored mantissa bits
  int bias;     ///< Bt
  bool fnuz;    ///< no infinities, no negative zero, NaN is the sign bit alone
  bool ieee;    ///< infinities (exponent all ones, mantissa 0) and NaNs (mantissa not 0)
  bool saturate; ///< out-of-range values (infinities too) become the largest finite value
  uint64_t largest, nan; ///< positive largest finite encoding; the NaN produced
};

/// Which narrow types a run of the pass expands (8-bit floats always).
struct Selection {
  bool f16 = false, bf16 = false, fromF64 = false;
};

std::optional<NarrowFormat> fp8Format(Type t) {
  if (isa<Float8E5M2Type>(t))
    return NarrowFormat{8, 2, 15, false, true, true, 0x7b, 0x7f};
  if (isa<Float8E4M3FNType>(t)) // NaN is S.1111.111 only
    return NarrowFormat{8, 3, 7, false, false, true, 0x7e, 0x7f};
  if (isa<Float8E5M2FNUZType>(t))
    return NarrowFormat{8, 2, 16, true, false, true, 0x7f, 0x80};
  if (isa<Float8E4M3FNUZType>(t))
    return NarrowFormat{8, 3, 8, true, false, true, 0x7f, 0x80};
  return std::nullopt;
}

std::optional<NarrowFormat> sixteenBitFormat(Type t) {
  if (t.isF16())
    return NarrowFormat{16, 10, 15, false, true, false, 0x7bff, 0x7e00};
  if (t.isBF16())
    return NarrowFormat{16, 7, 127, false, true, false, 0x7f7f, 0x7fc0};
  return std::nullopt;
}

/// The format of a conversion's narrow side `narrow` whose other side is `wide`, when
/// `selection` expands that conversion.
std::optional<NarrowFormat> selectedFormat(Type narrow, Type wide, const Selection &selection) {
  if (std::optional<NarrowFormat> f = fp8Format(narrow))
    return f;
  bool expand = (narrow.isF16() && selection.f16) || (narrow.isBF16() && selection.bf16) ||
                (wide.isF64() && selection.fromF64);
  if (!expand)
    return std::nullopt;
  return sixteenBitFormat(narrow);
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

struct TruncToNarrow : OpRewritePattern<arith::TruncFOp> {
  TruncToNarrow(MLIRContext *context, Selection selection)
      : OpRewritePattern(context), selection(selection) {}
  Selection selection;

  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rewriter) const override {
    Type to = getElementTypeOrSelf(op.getType());
    Type from = getElementTypeOrSelf(op.getIn().getType());
    std::optional<NarrowFormat> t = selectedFormat(to, from, selection);
    if (!t)
      return failure();
    // (arith.truncf is always to a narrower type: fp8 to fp8 arrives as extf then truncf.)
    std::optional<SourceFormat> s = sourceFormat(from);
    if (!s || s->width <= t->width)
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
    Value largest = w.cst(int64_t(t->largest));
    Value overflow = largest;
    if (!t->saturate) {
      // IEEE: to nearest, beyond the largest finite value is infinity; toward zero it is the
      // largest finite value, except for an infinity.
      int64_t targetExpAllOnes = (int64_t(1) << (t->width - 1 - M)) - 1;
      Value inf = w.cst(targetExpAllOnes << M);
      overflow = nearestEven
                     ? inf
                     : w.select(w.cmp(P::eq, abs, w.cst(expAllOnes << Ms)), inf, largest);
    }
    code = w.select(w.cmp(P::ugt, code, largest), overflow, code);

    Type narrowInt = withElement(op.getType(), b.getIntegerType(t->width));
    Bits n{b, narrowInt};
    Value codeN = arith::TruncIOp::create(b, narrowInt, code);
    Value signN = n.shl(arith::TruncIOp::create(b, narrowInt, signBit), n.cst(t->width - 1));
    Value signedN = n.bor(codeN, signN);
    if (t->fnuz) // no negative zero
      signedN = n.select(n.cmp(P::eq, codeN, n.cst(0)), n.cst(0), signedN);
    Value result = n.select(isNaN, n.cst(int64_t(t->nan)), signedN);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), result);
    return success();
  }
};

struct ExtFromNarrow : OpRewritePattern<arith::ExtFOp> {
  ExtFromNarrow(MLIRContext *context, Selection selection)
      : OpRewritePattern(context), selection(selection) {}
  Selection selection;

  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rewriter) const override {
    Type to = getElementTypeOrSelf(op.getType());
    std::optional<NarrowFormat> t =
        selectedFormat(getElementTypeOrSelf(op.getIn().getType()), to, selection);
    if (!t)
      return failure();
    if (!sourceFormat(to))
      return rewriter.notifyMatchFailure(op, "unsupported result type");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    using P = arith::CmpIPredicate;
    const int W = t->width, M = t->mantissa, E = W - 1 - M;
    const int64_t emin = 1 - t->bias;
    Type narrowInt = withElement(op.getType(), b.getIntegerType(W));
    Type word = withElement(op.getType(), b.getI32Type());
    Type f32 = withElement(op.getType(), b.getF32Type());
    Bits i{b, word};

    Value code =
        arith::ExtUIOp::create(b, word, arith::BitcastOp::create(b, narrowInt, op.getIn()));
    Value bits;
    if (W == 16 && t->bias == 127) {
      // bf16 is the top half of an f32.
      bits = i.shl(code, i.cst(16));
    } else {
      Value sign = i.shl(i.shr(code, i.cst(W - 1)), i.cst(31));
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
      bits = i.bor(magnitude, sign);
      // Special encodings.
      Value nan = i.cst(0x7fc00000);
      if (t->fnuz) {
        bits = i.select(i.cmp(P::eq, code, i.cst(int64_t(1) << (W - 1))), nan, bits);
      } else if (t->ieee) {
        Value top = i.cmp(P::eq, expField, i.cst((1 << E) - 1));
        Value inf = i.bor(sign, i.cst(0x7f800000));
        bits = i.select(top, i.select(i.cmp(P::eq, mant, i.cst(0)), inf, nan), bits);
      } else { // S.1111.111
        int64_t magnitudeMask = (int64_t(1) << (W - 1)) - 1;
        bits = i.select(i.cmp(P::eq, i.band(code, i.cst(magnitudeMask)), i.cst(magnitudeMask)),
                        nan, bits);
      }
    }
    Value wide = arith::BitcastOp::create(b, f32, bits);
    if (to.isF32())
      rewriter.replaceOp(op, wide);
    else if (to.getIntOrFloatBitWidth() > 32)
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), wide);
    else // f16, bf16 from an 8-bit float: exact
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide);
    return success();
  }
};

struct ExpandNarrowFloatsPass
    : tessel::impl::ExpandNarrowFloatsBase<ExpandNarrowFloatsPass> {
  using ExpandNarrowFloatsBase::ExpandNarrowFloatsBase;

  void runOnOperation() override {
    Selection selection;
    selection.f16 = f16;
    selection.bf16 = bf16;
    selection.fromF64 = fromF64;
    RewritePatternSet patterns(&getContext());
    patterns.add<TruncToNarrow, ExtFromNarrow>(&getContext(), selection);
    // Only the conversions change: no folding, constant merging or region simplification, so
    // a kernel without such conversions comes out as it went in.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    // What could not be expanded is an error here, not an LLVM translation failure (or a
    // library call the artifact cannot resolve) later.
    WalkResult r = getOperation()->walk([&](Operation *op) {
      bool selected = false;
      if (isa<arith::TruncFOp, arith::ExtFOp>(op)) {
        Type in = getElementTypeOrSelf(op->getOperand(0).getType());
        Type out = getElementTypeOrSelf(op->getResult(0).getType());
        selected = isa<arith::TruncFOp>(op) ? selectedFormat(out, in, selection).has_value()
                                            : selectedFormat(in, out, selection).has_value();
      }
      if (!selected)
        return WalkResult::advance();
      op->emitError("this narrow float conversion is not supported (rounding mode or type)");
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
