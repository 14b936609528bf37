//===- FastExp.cpp - exp/exp2 on f32 for targets with a hardware ldexp -*- C++ -*-===//
//
// exp(x) = 2^k * e^r with k = round(x * log2 e) and |r| <= ln2 / 2:
//   x' = min(x, 89)                     NaN passes through; +inf clamps
//   t  = x' * log2e + 1.5 * 2^23        rounds x' * log2e to an integer kept in t's low bits
//   k  = t - 1.5 * 2^23                 as a float; bits(t) - bits(1.5 * 2^23) as an integer
//   r  = x' - k * ln2                   Cody-Waite: ln2 split into an exact high part and a rest
//   p  = 1 + r + r^2 * P(r)             P of degree 3 fitted for relative error (~1 ulp)
//   exp(x) = ldexp(p, k)                overflow to inf handled by ldexp; 0 where x < ln FLT_MIN
//                                       (denormal results flush to zero, as on NVIDIA)
// 15 vector instructions where AVX-512 has vscalefps for ldexp, against about 24 for MLIR's
// generic approximation (which builds 2^k by clamping k and shifting it into an exponent).
// The integer k comes from t's bits, so a NaN input never reaches a float-to-int conversion
// (poison in LLVM): it stays NaN through p and ldexp.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {


/// Replaces exp (`base2` false) or exp2 (`base2` true) of an f32 scalar.
template <typename OpT, bool base2>
struct FastExp : public OpRewritePattern<OpT> {
  FastExp(MLIRContext *ctx) : OpRewritePattern<OpT>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    // Scalars only (the math left after linalg becomes loops; LLVM vectorizes those loops):
    // the LLVM dialect's ldexp takes a scalar exponent operand.
    Type type = op.getType();
    if (!type.isF32())
      return failure();
    Type intType = rewriter.getI32Type();
    Location loc = op.getLoc();
    auto f = [&](double v) {
      return arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(float(v)))
          .getResult();
    };
    auto i = [&](int32_t v) {
      return arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(v)).getResult();
    };
    auto fma = [&](Value a, Value b, Value c) {
      return math::FmaOp::create(rewriter, loc, a, b, c).getResult();
    };
    auto select = [&](arith::CmpFPredicate pred, Value a, Value b, Value ifTrue, Value ifFalse) {
      Value cmp = arith::CmpFOp::create(rewriter, loc, pred, a, b);
      return arith::SelectOp::create(rewriter, loc, cmp, ifTrue, ifFalse).getResult();
    };

    Value input = op.getOperand(), x = input;
    // Below `lo` the result would be denormal: it is 0 (the select at the end, as Triton's
    // ex2.approx.ftz does; computing a denormal costs a microcode assist per vector, and on
    // AVX-512 the select is the zero-masking of vscalefps, so those lanes are not computed:
    // whatever x - k * ln2 gives there, down to NaN for -inf, never reaches the result).
    // Above `hi` it overflows to inf anyway: clamped, so that +inf gives inf and not NaN.
    // `x > hi ? hi : x` keeps NaN (one min instruction). ln FLT_MIN = -87.336544..., rounded
    // up: every result at or above it is a normal float.
    double lo = base2 ? -126.0 : -87.33654, hi = base2 ? 129.0 : 89.0;
    Value loC = f(lo), hiC = f(hi);
    x = select(arith::CmpFPredicate::OGT, x, hiC, hiC, x);

    Value magic = f(12582912.0); // 1.5 * 2^23
    Value t = base2 ? arith::AddFOp::create(rewriter, loc, x, magic).getResult()
                    : fma(x, f(1.44269504088896341), magic);
    Value k = arith::SubFOp::create(rewriter, loc, t, magic);
    Value r;
    if (base2) {
      // x - k is exact; e^r with r = (x - k) * ln2.
      r = arith::MulFOp::create(rewriter, loc, arith::SubFOp::create(rewriter, loc, x, k),
                                f(0.693147180559945309));
    } else {
      r = fma(k, f(-0.693359375), x);
      r = fma(k, f(2.12194440e-4), r);
    }
    // p = 1 + r + r^2 * (c2 + c3 r + c4 r^2 + c5 r^3), the c fitted for the least maximum
    // relative error on |r| <= ln2 / 2 (0.9 ulp before rounding): five FMAs.
    Value p = f(8.31247e-3);
    for (double c : {4.189055e-2, 1.6667116e-1, 4.9999229e-1, 1.0, 1.0})
      p = fma(p, r, f(c));

    Value bits = arith::BitcastOp::create(rewriter, loc, intType, t);
    Value ki = arith::SubIOp::create(rewriter, loc, bits, i(0x4B400000));
    Value result = LLVM::LoadExpOp::create(rewriter, loc, type, p, ki);
    rewriter.replaceOp(op, select(arith::CmpFPredicate::OLT, input, loC, f(0.0), result));
    return success();
  }
};

} // namespace

void tessel::populateFastExpPatterns(RewritePatternSet &patterns) {
  patterns.add<FastExp<math::ExpOp, false>, FastExp<math::Exp2Op, true>>(
      patterns.getContext());
}
