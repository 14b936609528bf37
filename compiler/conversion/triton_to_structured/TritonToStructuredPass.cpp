//===- TritonToStructuredPass.cpp - the triton-to-structured pass -*- C++ -*-===//
//
// 1. Loops: a pointer carried through scf.for whose base, strides and wrap-arounds do not
//    change is re-expressed by loop-carried index offsets.
// 2. Loads and stores through pointers with a structured form become tts.make_tptr +
//    tts.load/tts.store (masks as leading sub-blocks); scalar accesses are re-rooted at their
//    base pointer. What has no structured form stays, with a remark.
// 3. Pointer chains and loop-carried pointers left without users are removed.
//
//===----------------------------------------------------------------------===//

#include "compiler/analysis/AxisInfo.h"
#include "compiler/conversion/Passes.h"
#include "compiler/conversion/triton_to_structured/PtrAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tessel {
#define GEN_PASS_DEF_TRITONTOSTRUCTURED
#include "compiler/conversion/Passes.h.inc"
} // namespace tessel

using namespace mlir;
using namespace tessel;
namespace tt = tessel::tt;
namespace tts = tessel::tts;

namespace {

/// The values of a pointer state that may change from one iteration to the next.
SmallVector<OpFoldResult> carriedComponents(const PtrState &s) {
  SmallVector<OpFoldResult> c{s.offset.scalar};
  for (int64_t d = 0; d < s.offset.rank(); ++d)
    if (s.offset.wraps[d])
      c.push_back(s.offset.wrapOffsets[d]);
  c.append(s.blockOffsets.begin(), s.blockOffsets.end());
  return c;
}

/// `s` with its carried components replaced by `values` (in carriedComponents order).
PtrState withComponents(PtrState s, ValueRange values) {
  size_t k = 0;
  s.offset.scalar = values[k++];
  for (int64_t d = 0; d < s.offset.rank(); ++d)
    if (s.offset.wraps[d])
      s.offset.wrapOffsets[d] = values[k++];
  for (OpFoldResult &o : s.blockOffsets)
    o = values[k++];
  return s;
}

/// True when two states differ only in their carried components.
bool sameShape(const PtrState &a, const PtrState &b) {
  if (a.base != b.base || a.offset.shape != b.offset.shape || a.order != b.order)
    return false;
  for (int64_t d = 0; d < a.offset.rank(); ++d)
    if (!PtrAnalysis::same(a.offset.strides[d], b.offset.strides[d]) ||
        !PtrAnalysis::same(a.offset.wraps[d], b.offset.wraps[d]))
      return false;
  for (size_t d = 0; d < a.parentShape.size(); ++d)
    if (!PtrAnalysis::same(a.parentShape[d], b.parentShape[d]))
      return false;
  return true;
}

SmallVector<Value> materialize(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> values) {
  SmallVector<Value> out;
  for (OpFoldResult v : values)
    out.push_back(getValueOrCreateConstantIndexOp(b, loc, v));
  return out;
}

using tt::hasPointerElements;

class Structurer {
public:
  explicit Structurer(ModuleOp module) : module(module), analysis(module.getContext()) {}

  void run() {
    // What AxisInfo proves about the pointers of each access, taken before the rewriting
    // replaces loop-carried values: the byte alignment of the tile's first element.
    {
      ModuleAxisInfo axis(module);
      if (axis.succeeded())
        module.walk([&](Operation *op) {
          if (!isa<tt::LoadOp, tt::StoreOp>(op))
            return;
          AxisInfo info = axis.lookup(op->getOperand(0));
          int64_t alignment = AxisInfo::kMaxDivisibility;
          for (int64_t d : info.getDivisibility())
            alignment = std::min(alignment, d);
          if (alignment >= kMinUsefulAlignment)
            alignments[op] = std::min<int64_t>(alignment, kMaxAlignment);
        });
    }
    // Outer control flow first, so inner ops see the structured states of outer values.
    SmallVector<Operation *> controlFlow;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<scf::ForOp, scf::IfOp>(op))
        controlFlow.push_back(op);
    });
    for (Operation *op : controlFlow) {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        structureLoop(loop);
      else
        structureIf(cast<scf::IfOp>(op));
    }

    SmallVector<Operation *> accesses;
    module.walk([&](Operation *op) {
      if (isa<tt::LoadOp, tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses)
      rewriteAccess(op);
  }

private:
  /// Re-expresses the pointer iter_args of `loop` by index iter_args.
  void structureLoop(scf::ForOp loop) {
    SmallVector<unsigned> positions;
    SmallVector<PtrState, 2> inits;
    for (auto [i, init] : llvm::enumerate(loop.getInitArgs())) {
      if (!hasPointerElements(init.getType()))
        continue;
      std::optional<PtrState> state = analysis.getPtr(init);
      if (!state) {
        loop->emitRemark() << "loop-carried pointer #" << i
                           << " left unstructured: " << analysis.lastFailure();
        continue;
      }
      if (!yieldKeepsShape(loop, i, *state)) {
        loop->emitRemark() << "loop-carried pointer #" << i
                           << " changes base, strides or wrap-around inside the loop";
        continue;
      }
      positions.push_back(i);
      inits.push_back(*state);
    }
    if (positions.empty())
      return;

    OpBuilder before(loop);
    SmallVector<Value> newInits;
    SmallVector<size_t> firstComponent;
    for (const PtrState &s : inits) {
      firstComponent.push_back(newInits.size());
      SmallVector<Value> c = materialize(before, loop.getLoc(), carriedComponents(s));
      newInits.append(c.begin(), c.end());
    }
    // A new loop carrying the old values plus the components; the body moves over.
    SmallVector<Value> allInits(loop.getInitArgs());
    allInits.append(newInits.begin(), newInits.end());
    auto newLoop = scf::ForOp::create(before, loop.getLoc(), loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep(), allInits);
    Block *oldBody = loop.getBody(), *newBody = newLoop.getBody();
    size_t numOld = loop.getNumRegionIterArgs();
    for (auto [oldArg, newArg] :
         llvm::zip(oldBody->getArguments(), newBody->getArguments().take_front(1 + numOld)))
      oldArg.replaceAllUsesWith(newArg);
    newBody->getOperations().splice(newBody->end(), oldBody->getOperations());
    ValueRange componentArgs = newBody->getArguments().drop_front(1 + numOld);
    for (auto [k, pos] : llvm::enumerate(positions)) {
      size_t n = carriedComponents(inits[k]).size();
      analysis.setPtr(newBody->getArgument(1 + pos),
                      withComponents(inits[k], componentArgs.slice(firstComponent[k], n)));
    }
    auto yield = cast<scf::YieldOp>(newBody->getTerminator());
    SmallVector<Value> yielded(yield.getOperands());
    OpBuilder atYield(yield);
    for (unsigned pos : positions) {
      // yieldKeepsShape checked this on a scratch analysis; the real one agrees.
      std::optional<PtrState> next = analysis.getPtr(yield.getOperand(pos));
      SmallVector<Value> c = materialize(atYield, yield.getLoc(), carriedComponents(*next));
      yielded.append(c.begin(), c.end());
    }
    scf::YieldOp::create(atYield, yield.getLoc(), yielded);
    yield.erase();
    for (auto [oldResult, newResult] :
         llvm::zip(loop.getResults(), newLoop.getResults().take_front(numOld)))
      oldResult.replaceAllUsesWith(newResult);
    loop.erase();
    ValueRange componentResults = newLoop.getResults().drop_front(numOld);
    for (auto [k, pos] : llvm::enumerate(positions)) {
      size_t n = carriedComponents(inits[k]).size();
      analysis.setPtr(newLoop.getResult(pos),
                      withComponents(inits[k], componentResults.slice(firstComponent[k], n)));
    }
  }

  /// Re-expresses pointer results of `ifOp` by index results, when both branches yield
  /// pointers of the same base, strides and wrap-arounds.
  void structureIf(scf::IfOp ifOp) {
    if (ifOp.getElseRegion().empty())
      return;
    auto thenYield = ifOp.thenYield(), elseYield = ifOp.elseYield();
    SmallVector<unsigned> positions;
    SmallVector<PtrState, 2> thenStates, elseStates;
    for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
      if (!hasPointerElements(result.getType()))
        continue;
      std::optional<PtrState> t = analysis.getPtr(thenYield.getOperand(i));
      std::optional<PtrState> e = t ? analysis.getPtr(elseYield.getOperand(i)) : std::nullopt;
      if (!t || !e || !sameShape(*t, *e)) {
        ifOp->emitRemark() << "pointer result #" << i
                           << " left unstructured: the branches differ in base, strides or "
                              "wrap-around, or have no structured form";
        continue;
      }
      positions.push_back(i);
      thenStates.push_back(*t);
      elseStates.push_back(*e);
    }
    if (positions.empty())
      return;
    SmallVector<Type> types(ifOp.getResultTypes());
    SmallVector<size_t> firstComponent;
    for (const PtrState &s : thenStates) {
      firstComponent.push_back(types.size() - ifOp.getNumResults());
      types.append(carriedComponents(s).size(), IndexType::get(ifOp.getContext()));
    }
    auto appendYields = [&](scf::YieldOp yield, ArrayRef<PtrState> states) {
      OpBuilder b(yield);
      SmallVector<Value> values(yield.getOperands());
      for (const PtrState &s : states) {
        SmallVector<Value> c = materialize(b, yield.getLoc(), carriedComponents(s));
        values.append(c.begin(), c.end());
      }
      scf::YieldOp::create(b, yield.getLoc(), values);
      yield.erase();
    };
    appendYields(thenYield, thenStates);
    appendYields(elseYield, elseStates);
    OpBuilder b(ifOp);
    auto newIf = scf::IfOp::create(b, ifOp.getLoc(), types, ifOp.getCondition(),
                                   /*withElseRegion=*/true);
    newIf.getThenRegion().takeBody(ifOp.getThenRegion());
    newIf.getElseRegion().takeBody(ifOp.getElseRegion());
    size_t numOld = ifOp.getNumResults();
    for (auto [oldResult, newResult] :
         llvm::zip(ifOp.getResults(), newIf.getResults().take_front(numOld)))
      oldResult.replaceAllUsesWith(newResult);
    ifOp.erase();
    ValueRange components = newIf.getResults().drop_front(numOld);
    for (auto [k, pos] : llvm::enumerate(positions)) {
      size_t n = carriedComponents(thenStates[k]).size();
      analysis.setPtr(newIf.getResult(pos),
                      withComponents(thenStates[k], components.slice(firstComponent[k], n)));
    }
  }

  /// Whether the value yielded for iter_arg `i` has the same base, strides and wrap-arounds
  /// as `init`, checked on a scratch analysis so that the real one caches nothing wrong.
  bool yieldKeepsShape(scf::ForOp loop, unsigned i, const PtrState &init) {
    PtrAnalysis scratch(loop.getContext());
    scratch.setPtr(loop.getRegionIterArg(i), init);
    // Outer loop-carried pointers the yield may use keep their real states.
    std::optional<PtrState> next = scratch.getPtr(loop.getYieldedValues()[i]);
    return next && sameShape(init, *next);
  }

  /// The base pointer moved by the state's scalar offset, as one tt.addptr.
  Value offsetBase(OpBuilder &b, Location loc, const PtrState &s) {
    if (PtrAnalysis::isZero(s.offset.scalar))
      return s.base;
    Value off = getValueOrCreateConstantIndexOp(b, loc, s.offset.scalar);
    off = arith::IndexCastOp::create(b, loc, b.getI64Type(), off);
    return tt::AddPtrOp::create(b, loc, s.base.getType(), s.base, off);
  }

  /// The tile pointer for access `op`, carrying `tessel.alignment` (bytes) when AxisInfo
  /// proved the first element aligned.
  Value makeTilePointer(OpBuilder &b, Operation *op, const PtrState &s, Type resultType) {
    Value tile = makeTilePointer(b, op->getLoc(), s, resultType);
    if (auto it = alignments.find(op); it != alignments.end())
      tile.getDefiningOp()->setAttr("tessel.alignment", b.getI64IntegerAttr(it->second));
    return tile;
  }

  Value makeTilePointer(OpBuilder &b, Location loc, const PtrState &s, Type resultType) {
    Value base = offsetBase(b, loc, s);
    SmallVector<OpFoldResult> offsets, parents;
    std::optional<ArrayRef<int32_t>> order;
    if (s.isBlockPointer()) {
      offsets = s.blockOffsets;
      parents = s.parentShape;
      order = ArrayRef<int32_t>(*s.order);
    } else {
      for (int64_t d = 0; d < s.offset.rank(); ++d) {
        bool wrap = static_cast<bool>(s.offset.wraps[d]);
        offsets.push_back(wrap ? s.offset.wrapOffsets[d] : b.getIndexAttr(0));
        parents.push_back(wrap ? s.offset.wraps[d] : b.getIndexAttr(0));
      }
    }
    SmallVector<Value> dynStrides, dynOffsets, dynParents;
    SmallVector<int64_t> staticStrides, staticOffsets, staticParents;
    dispatchIndexOpFoldResults(s.offset.strides, dynStrides, staticStrides);
    dispatchIndexOpFoldResults(offsets, dynOffsets, staticOffsets);
    dispatchIndexOpFoldResults(parents, dynParents, staticParents);
    return tts::MakeTensorPtrOp::create(
        b, loc, resultType, base, b.getDenseI64ArrayAttr(s.offset.shape), dynStrides,
        dynOffsets, dynParents, b.getDenseI64ArrayAttr(staticStrides),
        b.getDenseI64ArrayAttr(staticOffsets), b.getDenseI64ArrayAttr(staticParents),
        order ? b.getDenseI32ArrayAttr(*order) : DenseI32ArrayAttr());
  }

  /// Mask dims of a block-pointer access: the checked dimensions end at the parent's edge.
  SmallVector<OpFoldResult> boundaryMask(OpBuilder &b, Location loc, const PtrState &s,
                                         ArrayRef<int32_t> boundaryCheck) {
    if (boundaryCheck.empty())
      return {};
    SmallVector<OpFoldResult> dims;
    for (int64_t size : s.offset.shape)
      dims.push_back(b.getIndexAttr(size));
    for (int32_t d : boundaryCheck)
      dims[d] = PtrAnalysis::clamp(
          b, loc, PtrAnalysis::sub(b, loc, s.parentShape[d], s.blockOffsets[d]),
          s.offset.shape[d]);
    return dims;
  }

  void rewriteAccess(Operation *op) {
    Value ptr = op->getOperand(0);
    std::optional<PtrState> state = analysis.getPtr(ptr);
    if (!state) {
      op->emitRemark() << "left unstructured: " << analysis.lastFailure();
      return;
    }
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (tt::isScalarPointer(ptr.getType())) {
      // Re-root scalar accesses at their base so loop-carried scalar pointers can go.
      Value rooted = offsetBase(b, loc, *state);
      if (rooted != ptr)
        op->setOperand(0, rooted);
      return;
    }
    if (isa<tt::AtomicRMWOp, tt::AtomicCASOp>(op))
      return; // tensor atomics become per-element loops in structured-to-memref

    SmallVector<OpFoldResult> maskDims;
    Value other;
    if (auto load = dyn_cast<tt::LoadOp>(op)) {
      if (state->isBlockPointer()) {
        maskDims = boundaryMask(b, loc, *state, load.getBoundaryCheck());
        if (!maskDims.empty()) {
          Type elem = getElementTypeOrSelf(load.getType());
          auto fill = load.getPadding() == tt::PaddingOption::PAD_NAN
                          ? APFloat::getNaN(cast<FloatType>(elem).getFloatSemantics())
                          : APFloat(0.0);
          if (auto ft = dyn_cast<FloatType>(elem)) {
            bool lost;
            fill.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
            other = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, fill));
          } else {
            other = arith::ConstantOp::create(b, loc, b.getIntegerAttr(elem, 0));
          }
        }
      } else if (Value mask = load.getMask()) {
        std::optional<MaskState> m = analysis.getMask(mask);
        if (!m) {
          op->emitRemark() << "left unstructured: " << analysis.lastFailure();
          return;
        }
        maskDims = m->bounds;
        if (Value o = load.getOther()) {
          std::optional<Value> scalar = analysis.getScalarOther(o, b);
          if (!scalar) {
            op->emitRemark() << "left unstructured: " << analysis.lastFailure();
            return;
          }
          other = *scalar;
        }
      }
      Value tptr = makeTilePointer(b, op, *state, ptr.getType());
      SmallVector<Value> dynMask;
      SmallVector<int64_t> staticMask;
      dispatchIndexOpFoldResults(maskDims, dynMask, staticMask);
      auto newLoad = tts::LoadOp::create(b, loc, load.getType(), tptr, dynMask,
                                         b.getDenseI64ArrayAttr(staticMask), other);
      load.replaceAllUsesWith(newLoad.getResult());
      load.erase();
      return;
    }
    auto store = cast<tt::StoreOp>(op);
    if (state->isBlockPointer()) {
      maskDims = boundaryMask(b, loc, *state, store.getBoundaryCheck());
    } else if (Value mask = store.getMask()) {
      std::optional<MaskState> m = analysis.getMask(mask);
      if (!m) {
        op->emitRemark() << "left unstructured: " << analysis.lastFailure();
        return;
      }
      maskDims = m->bounds;
    }
    Value tptr = makeTilePointer(b, op, *state, ptr.getType());
    SmallVector<Value> dynMask;
    SmallVector<int64_t> staticMask;
    dispatchIndexOpFoldResults(maskDims, dynMask, staticMask);
    tts::StoreOp::create(b, loc, tptr, store.getValue(), dynMask,
                         b.getDenseI64ArrayAttr(staticMask));
    store.erase();
  }

  /// Alignments worth telling the backend about (bytes), and the most it can use.
  static constexpr int64_t kMinUsefulAlignment = 16, kMaxAlignment = 64;

  ModuleOp module;
  PtrAnalysis analysis;
  DenseMap<Operation *, int64_t> alignments;
};

/// Breaks the cycle that keeps a loop-carried pointer alive once nothing reads it: the yield
/// passes the iter_arg through unchanged, so canonicalization can drop it. Returns whether
/// anything changed.
bool releaseDeadCarriedPointers(ModuleOp module) {
  bool changed = false;
  module.walk([&](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
      if (!hasPointerElements(arg.getType()) || !loop.getResult(i).use_empty())
        continue;
      // Every transitive user must be side-effect free and end in this yield operand.
      SmallVector<Value> worklist{arg};
      DenseSet<Operation *> seen;
      bool onlyFeedsYield = true;
      while (!worklist.empty() && onlyFeedsYield) {
        Value v = worklist.pop_back_val();
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          if (user == yield.getOperation()) {
            onlyFeedsYield &= use.getOperandNumber() == i;
            continue;
          }
          if (!isPure(user) || user->getNumRegions() != 0) {
            onlyFeedsYield = false;
            break;
          }
          if (seen.insert(user).second)
            worklist.append(user->getResults().begin(), user->getResults().end());
        }
      }
      if (onlyFeedsYield && yield.getOperand(i) != arg) {
        yield->setOperand(i, arg);
        changed = true;
      }
    }
  });
  return changed;
}

struct TritonToStructuredPass
    : public tessel::impl::TritonToStructuredBase<TritonToStructuredPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Structurer(module).run();
    RewritePatternSet patterns(&getContext());
    scf::ForOp::getCanonicalizationPatterns(patterns, &getContext());
    scf::IfOp::getCanonicalizationPatterns(patterns, &getContext());
    getContext().getLoadedDialect<scf::SCFDialect>()->getCanonicalizationPatterns(patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // An outer loop's pointer is released only once the inner loops stop carrying it: one
    // round per nesting level.
    bool changed = true;
    for (int round = 0; changed && round < 16; ++round) {
      changed = releaseDeadCarriedPointers(module);
      if (failed(applyPatternsGreedily(module, frozen)))
        module.emitWarning("triton-to-structured cleanup did not converge");
    }
  }
};

} // namespace
