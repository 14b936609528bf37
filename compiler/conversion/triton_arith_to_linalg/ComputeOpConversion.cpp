//===- ComputeOpConversion.cpp - tt.dot/reduce/scan/... to linalg --*- C++ -*-===//

#include "compiler/conversion/triton_arith_to_linalg/TritonArithToLinalg.h"

#include "compiler/conversion/shape/ShapeBuilders.h"
#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace tt = tessel::tt;

namespace {

using tessel::emptyLike;

/// Clones the single block of a combine region with its arguments bound to `args`; returns the
/// values its terminator yields. With `reassociate`, floating-point ops may be reordered:
/// Triton leaves the order of a reduction unspecified, and vectorizing one needs it.
SmallVector<Value> inlineCombine(OpBuilder &b, Region &combine, ValueRange args,
                                 bool reassociate = false) {
  Block &block = combine.front();
  IRMapping mapping;
  mapping.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator()) {
    Operation *clone = b.clone(op, mapping);
    auto fastMath = dyn_cast<arith::ArithFastMathInterface>(clone);
    if (!reassociate || !fastMath)
      continue;
    arith::FastMathFlags flags = arith::FastMathFlags::reassoc;
    if (arith::FastMathFlagsAttr old = fastMath.getFastMathFlagsAttr())
      flags = flags | old.getValue();
    clone->setAttr(fastMath.getFastMathAttrName(),
                   arith::FastMathFlagsAttr::get(b.getContext(), flags));
  }
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

/// tt.dot -> linalg.matmul / linalg.batch_matmul accumulating into c; a constant splat
/// accumulator becomes a linalg.fill of a fresh tensor. A 2-D dot of f32 operands that allows
/// tf32 marks its matmul kTf32Attr (tf32x3 and ieee ask for f32 accuracy: no mark).
struct DotToMatmul : public OpRewritePattern<tt::DotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::DotOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Value acc = op.getC();
    Attribute splat;
    if (matchPattern(acc, m_Constant(&splat)))
      if (auto dense = dyn_cast<SplatElementsAttr>(splat)) {
        Value scalar = arith::ConstantOp::create(rewriter, loc, dense.getSplatValue<TypedAttr>());
        acc = linalg::FillOp::create(rewriter, loc, ValueRange{scalar},
                                     ValueRange{emptyLike(rewriter, loc, type)})
                  .getResult(0);
      }
    Value result;
    if (type.getRank() == 2) {
      auto matmul = linalg::MatmulOp::create(rewriter, loc, TypeRange{type},
                                             ValueRange{op.getA(), op.getB()}, ValueRange{acc});
      if (cast<RankedTensorType>(op.getA().getType()).getElementType().isF32() &&
          op.getInputPrecision() == tt::InputPrecision::TF32)
        matmul->setAttr(tessel::kTf32Attr, rewriter.getUnitAttr());
      result = matmul.getResult(0);
    } else
      result = linalg::BatchMatmulOp::create(rewriter, loc, TypeRange{type},
                                             ValueRange{op.getA(), op.getB()}, ValueRange{acc})
                   .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The neutral element of a combine region that is a single arith op applied to its two
/// block arguments (`add`, `max`, ...), or none for anything else.
std::optional<TypedAttr> combineIdentity(Region &combine) {
  Block &block = combine.front();
  if (block.getNumArguments() != 2 || !llvm::hasSingleElement(block.without_terminator()))
    return std::nullopt;
  Operation &op = block.front();
  Operation *terminator = block.getTerminator();
  if (op.getNumOperands() != 2 || op.getNumResults() != 1 || terminator->getNumOperands() != 1 ||
      terminator->getOperand(0) != op.getResult(0))
    return std::nullopt;
  Value a = block.getArgument(0), b = block.getArgument(1);
  if (!((op.getOperand(0) == a && op.getOperand(1) == b) ||
        (op.getOperand(0) == b && op.getOperand(1) == a)))
    return std::nullopt;
  // x + -0.0 == x for every x (also -0.0); +0.0 would turn a sum of -0.0s into +0.0.
  if (auto add = dyn_cast<arith::AddFOp>(op))
    return TypedAttr(FloatAttr::get(add.getType(), -0.0));
  return arith::getNeutralElement(&op);
}

/// tt.reduce -> linalg.reduce. When the combine region is one arith op with a neutral element
/// (sum, max, ...), accumulators start at that element and the whole axis is reduced, keeping
/// the reduced run aligned for vectorization. Otherwise the first slice along the axis
/// initializes the accumulators and the rest is reduced into them.
struct ReduceToLinalg : public OpRewritePattern<tt::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ReduceOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    ArrayRef<int64_t> shape = srcType.getShape();
    int64_t rank = srcType.getRank(), n = shape[axis];
    SmallVector<int64_t> reducedShape(shape);
    reducedShape.erase(reducedShape.begin() + axis);

    auto slice = [&](Value src, int64_t offset, int64_t size, Type resultType) {
      tessel::AxisSlice s(rewriter, shape, axis, offset, size);
      return tensor::ExtractSliceOp::create(rewriter, loc, cast<RankedTensorType>(resultType),
                                            src, s.offsets, s.sizes, s.strides)
          .getResult();
    };

    SmallVector<Value> inits, rests;
    std::optional<TypedAttr> identity;
    if (op.getSrcs().size() == 1)
      identity = combineIdentity(op.getCombineOp());
    if (identity && n > 1) {
      Value src = op.getSrcs().front();
      auto accType = RankedTensorType::get(reducedShape, srcType.getElementType());
      Value neutral = arith::ConstantOp::create(rewriter, loc, *identity);
      inits.push_back(linalg::FillOp::create(rewriter, loc, ValueRange{neutral},
                                             ValueRange{emptyLike(rewriter, loc, accType)})
                          .getResult(0));
      rests.push_back(src);
    }
    ValueRange sliced = op.getSrcs();
    if (!inits.empty())
      sliced = ValueRange{};
    for (Value src : sliced) {
      Type elem = cast<RankedTensorType>(src.getType()).getElementType();
      inits.push_back(slice(src, 0, 1, RankedTensorType::get(reducedShape, elem)));
      if (n > 1) {
        SmallVector<int64_t> restShape(shape);
        restShape[axis] = n - 1;
        rests.push_back(slice(src, 1, n - 1, RankedTensorType::get(restShape, elem)));
      }
    }
    SmallVector<Value> results = inits;
    if (n > 1) {
      size_t count = inits.size();
      auto reduce = linalg::ReduceOp::create(
          rewriter, loc, rests, inits, ArrayRef<int64_t>{axis},
          [&](OpBuilder &b, Location l, ValueRange args) {
            // linalg.reduce passes (inputs..., accumulators...); the combine region takes
            // (accumulators..., new values...).
            SmallVector<Value> combineArgs(args.drop_front(count));
            combineArgs.append(args.begin(), args.begin() + count);
            linalg::YieldOp::create(
                b, l, inlineCombine(b, op.getCombineOp(), combineArgs, /*reassociate=*/true));
          });
      results.assign(reduce.getResults().begin(), reduce.getResults().end());
    }
    if (reducedShape.empty())
      for (Value &r : results)
        r = tensor::ExtractOp::create(rewriter, loc, r, ValueRange{});
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Builds `for iv = lb to ub` loops around `body`, threading `iterArgs` through.
SmallVector<Value>
buildLoop(OpBuilder &b, Location loc, int64_t lb, int64_t ub, ValueRange iterArgs,
          function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> body) {
  Value lower = arith::ConstantIndexOp::create(b, loc, lb);
  Value upper = arith::ConstantIndexOp::create(b, loc, ub);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  auto loop = scf::ForOp::create(b, loc, lower, upper, step, iterArgs,
                                 [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
                                   scf::YieldOp::create(nb, l, body(nb, iv, args));
                                 });
  return SmallVector<Value>(loop.getResults());
}

/// tt.scan -> loops: for every position of the other dimensions, an inclusive scan along the
/// axis carrying the accumulators in scalars.
struct ScanToLoops : public OpRewritePattern<tt::ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::ScanOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    ArrayRef<int64_t> shape = srcType.getShape();
    int64_t rank = srcType.getRank(), axis = op.getAxis(), n = shape[axis];
    bool reverse = op.getReverse();
    SmallVector<Value> outs;
    for (Value src : op.getSrcs())
      outs.push_back(emptyLike(rewriter, loc, cast<RankedTensorType>(src.getType())));
    size_t count = outs.size();

    // Recursively loop over the non-axis dimensions, collecting their indices.
    std::function<SmallVector<Value>(OpBuilder &, int64_t, SmallVector<Value> &, ValueRange)>
        nest = [&](OpBuilder &b, int64_t dim, SmallVector<Value> &indices,
                   ValueRange tensors) -> SmallVector<Value> {
      if (dim == rank) {
        auto at = [&](OpBuilder &bb, int64_t pos) {
          SmallVector<Value> idx(indices);
          idx[axis] = arith::ConstantIndexOp::create(bb, loc, pos);
          return idx;
        };
        int64_t first = reverse ? n - 1 : 0;
        SmallVector<Value> acc, cur(tensors);
        SmallVector<Value> firstIdx = at(b, first);
        for (size_t i = 0; i < count; ++i) {
          acc.push_back(tensor::ExtractOp::create(b, loc, op.getSrcs()[i], firstIdx));
          cur[i] = tensor::InsertOp::create(b, loc, acc[i], cur[i], firstIdx);
        }
        SmallVector<Value> carried(acc);
        carried.append(cur);
        SmallVector<Value> done = buildLoop(
            b, loc, 1, n, carried, [&](OpBuilder &lb, Value iv, ValueRange args) {
              Value pos = iv;
              if (reverse) {
                Value last = arith::ConstantIndexOp::create(lb, loc, n - 1);
                pos = arith::SubIOp::create(lb, loc, last, iv);
              }
              SmallVector<Value> idx(indices);
              idx[axis] = pos;
              SmallVector<Value> combineArgs(args.take_front(count));
              for (size_t i = 0; i < count; ++i)
                combineArgs.push_back(tensor::ExtractOp::create(lb, loc, op.getSrcs()[i], idx));
              SmallVector<Value> next = inlineCombine(lb, op.getCombineOp(), combineArgs);
              SmallVector<Value> yielded(next);
              for (size_t i = 0; i < count; ++i)
                yielded.push_back(
                    tensor::InsertOp::create(lb, loc, next[i], args[count + i], idx));
              return yielded;
            });
        return SmallVector<Value>(done.begin() + count, done.end());
      }
      if (dim == axis) {
        indices[dim] = Value();
        return nest(b, dim + 1, indices, tensors);
      }
      return buildLoop(b, loc, 0, shape[dim], tensors,
                       [&](OpBuilder &lb, Value iv, ValueRange args) {
                         indices[dim] = iv;
                         return nest(lb, dim + 1, indices, args);
                       });
    };
    SmallVector<Value> indices(rank);
    rewriter.replaceOp(op, nest(rewriter, 0, indices, outs));
    return success();
  }
};

/// tt.histogram -> a loop counting each in-range (and unmasked) value.
struct HistogramToLoop : public OpRewritePattern<tt::HistogramOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::HistogramOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elem = type.getElementType();
    Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(elem, 0));
    Value one = arith::ConstantOp::create(rewriter, loc, rewriter.getIntegerAttr(elem, 1));
    Value hist = linalg::FillOp::create(rewriter, loc, ValueRange{zero},
                                        ValueRange{emptyLike(rewriter, loc, type)})
                     .getResult(0);
    int64_t n = op.getSrc().getType().getDimSize(0);
    int64_t bins = type.getDimSize(0);
    SmallVector<Value> result = buildLoop(
        rewriter, loc, 0, n, ValueRange{hist}, [&](OpBuilder &b, Value iv, ValueRange args) {
          Value v = tensor::ExtractOp::create(b, loc, op.getSrc(), ValueRange{iv});
          Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
          Value lo = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, idx,
                                           arith::ConstantIndexOp::create(b, loc, 0));
          Value hi = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx,
                                           arith::ConstantIndexOp::create(b, loc, bins));
          Value ok = arith::AndIOp::create(b, loc, lo, hi);
          if (Value mask = op.getMask())
            ok = arith::AndIOp::create(b, loc, ok,
                                       tensor::ExtractOp::create(b, loc, mask, ValueRange{iv}));
          auto ifOp = scf::IfOp::create(
              b, loc, ok,
              [&](OpBuilder &tb, Location l) {
                Value old = tensor::ExtractOp::create(tb, l, args[0], ValueRange{idx});
                Value inc = arith::AddIOp::create(tb, l, old, one);
                scf::YieldOp::create(
                    tb, l, ValueRange{tensor::InsertOp::create(tb, l, inc, args[0], idx)});
              },
              [&](OpBuilder &eb, Location l) { scf::YieldOp::create(eb, l, args[0]); });
          return SmallVector<Value>{ifOp.getResult(0)};
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tt.gather -> linalg.generic reading src at the index taken from `indices`.
struct GatherToGeneric : public OpRewritePattern<tt::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::GatherOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), axis = op.getAxis();
    Value src = op.getSrc();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getIndices()},
        ValueRange{emptyLike(rewriter, loc, type)},
        SmallVector<AffineMap>(2, rewriter.getMultiDimIdentityMap(rank)),
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> idx;
          for (int64_t d = 0; d < rank; ++d)
            idx.push_back(d == axis
                              ? arith::IndexCastOp::create(b, l, b.getIndexType(), args[0])
                                    .getResult()
                              : linalg::IndexOp::create(b, l, d).getResult());
          linalg::YieldOp::create(b, l, ValueRange{tensor::ExtractOp::create(b, l, src, idx)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

/// tt.assert -> cf.assert on the conjunction of all elements (reported with the message).
struct AssertToCf : public OpRewritePattern<tt::AssertOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tt::AssertOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value cond = op.getCondition();
    if (auto type = dyn_cast<RankedTensorType>(cond.getType())) {
      Value trueVal = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
      auto scalarType = RankedTensorType::get({}, rewriter.getI1Type());
      Value init = linalg::FillOp::create(rewriter, loc, ValueRange{trueVal},
                                          ValueRange{emptyLike(rewriter, loc, scalarType)})
                       .getResult(0);
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < type.getRank(); ++d)
        dims.push_back(d);
      auto all = linalg::ReduceOp::create(
          rewriter, loc, ValueRange{cond}, ValueRange{init}, dims,
          [](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(b, l, ValueRange{arith::AndIOp::create(b, l, args[0], args[1])});
          });
      cond = tensor::ExtractOp::create(rewriter, loc, all.getResult(0), ValueRange{});
    }
    rewriter.replaceOpWithNewOp<cf::AssertOp>(op, cond, op.getMessage());
    return success();
  }
};

/// `x / splat(s)` and `x / broadcast(t)` on f32 (or narrower) tensors -> the reciprocal of the
/// small operand, splatted or broadcast, times x: one division per row instead of one per
/// element. Triton's `/` on f32 is its approximate division (NVIDIA: div.full.f32, <= 2 ulp);
/// x * (1/y) stays within that. IEEE division (tl.div_rn, fdiv(ieee_rounding=True)) is
/// tt.precise_divf and is not touched; neither is f64.
struct DivideByBroadcastToReciprocal : public OpRewritePattern<arith::DivFOp> {
  DivideByBroadcastToReciprocal(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(arith::DivFOp op, PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getElementType().isF32() && !type.getElementType().isF16() &&
                     !type.getElementType().isBF16())
      return failure();
    Operation *divisor = op.getRhs().getDefiningOp();
    if (!divisor || !isa<tt::SplatOp, tt::BroadcastOp>(divisor))
      return failure();
    Location loc = op.getLoc();
    Value small = divisor->getOperand(0);
    Value one = arith::ConstantOp::create(
        rewriter, loc, small.getType(),
        isa<RankedTensorType>(small.getType())
            ? TypedAttr(DenseElementsAttr::get(cast<ShapedType>(small.getType()),
                                               rewriter.getFloatAttr(type.getElementType(), 1.0)))
            : TypedAttr(rewriter.getFloatAttr(type.getElementType(), 1.0)));
    Value reciprocal = arith::DivFOp::create(rewriter, loc, one, small, op.getFastmathAttr());
    Operation *spread = rewriter.clone(*divisor);
    spread->setOperand(0, reciprocal);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), spread->getResult(0),
                                               op.getFastmathAttr());
    return success();
  }
};

} // namespace

void tessel::populateComputeOpConversionPatterns(RewritePatternSet &patterns) {
  patterns.add<DotToMatmul, ReduceToLinalg, ScanToLoops, HistogramToLoop, GatherToGeneric,
               AssertToCf, DivideByBroadcastToReciprocal>(patterns.getContext());
}
