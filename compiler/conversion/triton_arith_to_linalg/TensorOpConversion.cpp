//===- TensorOpConversion.cpp - tt shape ops and elementwise math --*- C++ -*-===//
//
// Tensors of numbers become linalg/tensor ops. Tensors of pointers are left alone: they are
// addresses, which structured-to-memref lowers.
//
//===----------------------------------------------------------------------===//

#include "compiler/conversion/triton_arith_to_linalg/TritonArithToLinalg.h"

#include "compiler/conversion/shape/ShapeBuilders.h"
#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
namespace tt = tessel::tt;

namespace {

using tessel::emptyLike;
using tt::hasPointerElements;

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// Any op with elementwise-mappable traits (arith, math, and the tt ops rewritten into them)
/// on ranked tensors of numbers -> linalg.generic applying the scalar op.
struct ElementwiseToGeneric : public RewritePattern {
  ElementwiseToGeneric(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!OpTrait::hasElementwiseMappableTraits(op) || op->getNumResults() == 0 ||
        op->getNumRegions() != 0)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType)
      return failure();
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || tensor.getShape() != resultType.getShape() || hasPointerElements(tensor))
        return failure();
    }
    Location loc = op->getLoc();
    int64_t rank = resultType.getRank();
    SmallVector<Value> inits;
    for (Type t : op->getResultTypes())
      inits.push_back(emptyLike(rewriter, loc, cast<RankedTensorType>(t)));
    SmallVector<AffineMap> maps(op->getNumOperands() + op->getNumResults(),
                                rewriter.getMultiDimIdentityMap(rank));
    auto generic = linalg::GenericOp::create(
        rewriter, loc, op->getResultTypes(), op->getOperands(), inits, maps,
        parallelIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Type> scalarTypes;
          for (Type t : op->getResultTypes())
            scalarTypes.push_back(getElementTypeOrSelf(t));
          OperationState state(l, op->getName(), args.take_front(op->getNumOperands()),
                               scalarTypes, op->getAttrs());
          Operation *scalar = b.create(state);
          linalg::YieldOp::create(b, l, scalar->getResults());
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct SplatToFill : public OpRewritePattern<tt::SplatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::SplatOp op, PatternRewriter &rewriter) const override {
    if (hasPointerElements(op.getType()))
      return failure();
    Value empty = emptyLike(rewriter, op.getLoc(), op.getType());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, ValueRange{op.getSrc()}, ValueRange{empty});
    return success();
  }
};

struct MakeRangeToGeneric : public OpRewritePattern<tt::MakeRangeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::MakeRangeOp op, PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    Value empty = emptyLike(rewriter, op.getLoc(), type);
    int32_t start = op.getStart();
    auto generic = linalg::GenericOp::create(
        rewriter, op.getLoc(), TypeRange{type}, ValueRange{}, ValueRange{empty},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(1)}, parallelIterators(1),
        [&](OpBuilder &b, Location loc, ValueRange) {
          Value index = linalg::IndexOp::create(b, loc, 0);
          Value i = arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
          Value offset = arith::ConstantIntOp::create(b, loc, start, 32);
          linalg::YieldOp::create(b, loc, ValueRange{arith::AddIOp::create(b, loc, i, offset)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct BroadcastToGeneric : public OpRewritePattern<tt::BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::BroadcastOp op, PatternRewriter &rewriter) const override {
    if (hasPointerElements(op.getType()))
      return failure();
    rewriter.replaceOp(op, tessel::buildBroadcast(rewriter, op.getLoc(), op.getSrc(),
                                                  op.getType()));
    return success();
  }
};

struct ExpandDimsToExpandShape : public OpRewritePattern<tt::ExpandDimsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ExpandDimsOp op, PatternRewriter &rewriter) const override {
    if (hasPointerElements(op.getType()))
      return failure();
    rewriter.replaceOp(op, tessel::buildExpandDims(rewriter, op.getLoc(), op.getSrc(),
                                                   op.getType(), op.getAxis()));
    return success();
  }
};

struct ReshapeToCollapseExpand : public OpRewritePattern<tt::ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ReshapeOp op, PatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType(), type = op.getType();
    if (hasPointerElements(type))
      return failure();
    Value value = op.getSrc();
    auto allDims = [](int64_t rank) {
      ReassociationIndices all;
      for (int64_t d = 0; d < rank; ++d)
        all.push_back(d);
      return SmallVector<ReassociationIndices>{all};
    };
    if (srcType.getRank() != 1) {
      auto flat = RankedTensorType::get({srcType.getNumElements()}, srcType.getElementType());
      value = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), flat, value,
                                              allDims(srcType.getRank()));
    }
    if (type.getRank() != 1)
      value = tensor::ExpandShapeOp::create(rewriter, op.getLoc(), type, value,
                                            allDims(type.getRank()));
    rewriter.replaceOp(op, value);
    return success();
  }
};

struct TransToTranspose : public OpRewritePattern<tt::TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::TransOp op, PatternRewriter &rewriter) const override {
    if (hasPointerElements(op.getType()))
      return failure();
    Value empty = emptyLike(rewriter, op.getLoc(), op.getType());
    SmallVector<int64_t> perm(op.getOrder().begin(), op.getOrder().end());
    auto transpose =
        linalg::TransposeOp::create(rewriter, op.getLoc(), op.getSrc(), empty, perm);
    rewriter.replaceOp(op, transpose.getResults());
    return success();
  }
};

struct JoinToInsertSlices : public OpRewritePattern<tt::JoinOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::JoinOp op, PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    if (hasPointerElements(type))
      return failure();
    int64_t last = type.getRank() - 1;
    Value result = emptyLike(rewriter, op.getLoc(), type);
    // An array that outlives the loop (a ValueRange{...} of an initializer list would dangle
    // after the range's initialization and read the left operand twice).
    const Value parts[2] = {op.getLhs(), op.getRhs()};
    for (int64_t i = 0; i < 2; ++i) {
      tessel::AxisSlice s(rewriter, type.getShape(), last, i, 1);
      result = tensor::InsertSliceOp::create(rewriter, op.getLoc(), parts[i], result, s.offsets,
                                             s.sizes, s.strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitToExtractSlices : public OpRewritePattern<tt::SplitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::SplitOp op, PatternRewriter &rewriter) const override {
    RankedTensorType srcType = op.getSrc().getType();
    if (hasPointerElements(srcType))
      return failure();
    int64_t last = srcType.getRank() - 1;
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 2; ++i) {
      tessel::AxisSlice s(rewriter, srcType.getShape(), last, i, 1);
      parts.push_back(tensor::ExtractSliceOp::create(rewriter, op.getLoc(),
                                                     op.getOutLHS().getType(), op.getSrc(),
                                                     s.offsets, s.sizes, s.strides));
    }
    rewriter.replaceOp(op, parts);
    return success();
  }
};

struct CatToInsertSlices : public OpRewritePattern<tt::CatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::CatOp op, PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType(), partType = op.getLhs().getType();
    if (hasPointerElements(type) || type.getDimSize(0) != 2 * partType.getDimSize(0) ||
        type.getShape().drop_front() != partType.getShape().drop_front())
      return rewriter.notifyMatchFailure(op, "only concatenation along dimension 0");
    Value result = emptyLike(rewriter, op.getLoc(), type);
    int64_t rows = partType.getDimSize(0);
    const Value parts[2] = {op.getLhs(), op.getRhs()}; // not a dangling ValueRange{...}
    for (int64_t i = 0; i < 2; ++i) {
      tessel::AxisSlice s(rewriter, type.getShape(), 0, i * rows, rows);
      result = tensor::InsertSliceOp::create(rewriter, op.getLoc(), parts[i], result, s.offsets,
                                             s.sizes, s.strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// tt elementwise ops -> arith/math (then linalg through ElementwiseToGeneric)
//===----------------------------------------------------------------------===//

struct ClampFToArith : public OpRewritePattern<tt::ClampFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ClampFOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value result;
    if (op.getPropagateNan() == tt::PropagateNan::ALL) {
      result = arith::MaximumFOp::create(rewriter, loc, op.getX(), op.getMin());
      result = arith::MinimumFOp::create(rewriter, loc, result, op.getMax());
    } else {
      result = arith::MaxNumFOp::create(rewriter, loc, op.getX(), op.getMin());
      result = arith::MinNumFOp::create(rewriter, loc, result, op.getMax());
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PreciseSqrtToMath : public OpRewritePattern<tt::PreciseSqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::PreciseSqrtOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<math::SqrtOp>(op, op.getX());
    return success();
  }
};

struct PreciseDivToArith : public OpRewritePattern<tt::PreciseDivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::PreciseDivFOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, op.getX(), op.getY());
    return success();
  }
};

struct MulhiToArith : public OpRewritePattern<tt::MulhiUIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::MulhiUIOp op, PatternRewriter &rewriter) const override {
    auto mul = arith::MulUIExtendedOp::create(rewriter, op.getLoc(), op.getX(), op.getY());
    rewriter.replaceOp(op, mul.getHigh());
    return success();
  }
};

struct FpToFpToArith : public OpRewritePattern<tt::FpToFpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::FpToFpOp op, PatternRewriter &rewriter) const override {
    Type from = getElementTypeOrSelf(op.getSrc().getType());
    Type to = getElementTypeOrSelf(op.getType());
    if (from == to) {
      rewriter.replaceOp(op, op.getSrc());
      return success();
    }
    if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth()) {
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), op.getSrc());
      return success();
    }
    Value src = op.getSrc();
    if (to.getIntOrFloatBitWidth() == from.getIntOrFloatBitWidth()) { // through f32, exactly
      Type f32 = rewriter.getF32Type();
      if (auto shaped = dyn_cast<ShapedType>(src.getType()))
        f32 = shaped.clone(f32);
      src = arith::ExtFOp::create(rewriter, op.getLoc(), f32, src);
    }
    auto trunc = arith::TruncFOp::create(rewriter, op.getLoc(), op.getType(), src);
    if (op.getRounding() == tt::RoundingMode::RTZ)
      trunc.setRoundingmodeAttr(
          arith::RoundingModeAttr::get(getContext(), arith::RoundingMode::toward_zero));
    rewriter.replaceOp(op, trunc.getResult());
    return success();
  }
};

struct BitcastToArith : public OpRewritePattern<tt::BitcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::BitcastOp op, PatternRewriter &rewriter) const override {
    if (hasPointerElements(op.getType()) || hasPointerElements(op.getSrc().getType()))
      return failure();
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), op.getSrc());
    return success();
  }
};

/// The math-dialect meaning of a libdevice/ocml-style symbol such as `__nv_expf`, as a base
/// name (`exp`), or "" when unknown.
StringRef externBaseName(StringRef symbol) {
  for (StringRef prefix : {"__nv_", "__ocml_", "__imf_"})
    if (symbol.consume_front(prefix))
      break;
  for (StringRef suffix : {"_f32", "_f64", "_f16"})
    if (symbol.consume_back(suffix))
      return symbol;
  return symbol;
}

struct ExternElementwiseToMath : public OpRewritePattern<tt::ExternElementwiseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ExternElementwiseOp op,
                                PatternRewriter &rewriter) const override {
    StringRef name = externBaseName(op.getSymbol());
    ValueRange in = op.getSrcs();
    Location loc = op.getLoc();
    // Single-precision names end in 'f' (expf); try the exact name first, then without it.
    auto build = [&](StringRef n) -> Value {
      auto unary = [&](auto tag) -> Value {
        using OpT = decltype(tag);
        return in.size() == 1 ? OpT::create(rewriter, loc, in[0]).getResult() : Value();
      };
      auto binary = [&](auto tag) -> Value {
        using OpT = decltype(tag);
        return in.size() == 2 ? OpT::create(rewriter, loc, in[0], in[1]).getResult() : Value();
      };
      return llvm::StringSwitch<std::function<Value()>>(n)
          .Case("exp", [&] { return unary(math::ExpOp()); })
          .Case("exp2", [&] { return unary(math::Exp2Op()); })
          .Case("expm1", [&] { return unary(math::ExpM1Op()); })
          .Case("log", [&] { return unary(math::LogOp()); })
          .Case("log2", [&] { return unary(math::Log2Op()); })
          .Case("log10", [&] { return unary(math::Log10Op()); })
          .Case("log1p", [&] { return unary(math::Log1pOp()); })
          .Case("sqrt", [&] { return unary(math::SqrtOp()); })
          .Case("rsqrt", [&] { return unary(math::RsqrtOp()); })
          .Case("cbrt", [&] { return unary(math::CbrtOp()); })
          .Case("sin", [&] { return unary(math::SinOp()); })
          .Case("cos", [&] { return unary(math::CosOp()); })
          .Case("tan", [&] { return unary(math::TanOp()); })
          .Case("asin", [&] { return unary(math::AsinOp()); })
          .Case("acos", [&] { return unary(math::AcosOp()); })
          .Case("atan", [&] { return unary(math::AtanOp()); })
          .Case("sinh", [&] { return unary(math::SinhOp()); })
          .Case("cosh", [&] { return unary(math::CoshOp()); })
          .Case("tanh", [&] { return unary(math::TanhOp()); })
          .Case("erf", [&] { return unary(math::ErfOp()); })
          .Case("floor", [&] { return unary(math::FloorOp()); })
          .Case("ceil", [&] { return unary(math::CeilOp()); })
          .Case("trunc", [&] { return unary(math::TruncOp()); })
          .Case("round", [&] { return unary(math::RoundOp()); })
          .Case("rint", [&] { return unary(math::RoundEvenOp()); })
          .Case("fabs", [&] { return unary(math::AbsFOp()); })
          .Case("abs", [&] { return unary(math::AbsFOp()); })
          .Case("pow", [&] { return binary(math::PowFOp()); })
          .Case("atan2", [&] { return binary(math::Atan2Op()); })
          .Case("fmin", [&] { return binary(arith::MinNumFOp()); })
          .Case("fmax", [&] { return binary(arith::MaxNumFOp()); })
          .Case("fmod", [&] { return binary(arith::RemFOp()); })
          .Case("fma", [&]() -> Value {
            return in.size() == 3 ? math::FmaOp::create(rewriter, loc, in[0], in[1], in[2])
                                        .getResult()
                                  : Value();
          })
          .Default([] { return Value(); })();
    };
    if (!isa<FloatType>(getElementTypeOrSelf(op.getType())))
      return rewriter.notifyMatchFailure(op, "only floating-point extern functions map to math");
    Value result = build(name);
    if (!result && name.ends_with("f"))
      result = build(name.drop_back());
    if (!result)
      return rewriter.notifyMatchFailure(op, "no math op for this extern function");
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tessel::populateTensorOpConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseToGeneric, SplatToFill, MakeRangeToGeneric, BroadcastToGeneric,
               ExpandDimsToExpandShape, ReshapeToCollapseExpand, TransToTranspose,
               JoinToInsertSlices, SplitToExtractSlices, CatToInsertSlices, ClampFToArith,
               PreciseSqrtToMath, PreciseDivToArith, MulhiToArith, FpToFpToArith,
               BitcastToArith, ExternElementwiseToMath>(patterns.getContext());
}
