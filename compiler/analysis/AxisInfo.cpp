//===- AxisInfo.cpp - contiguity, divisibility and constancy of values -*- C++ -*-===//

#include "compiler/analysis/AxisInfo.h"

#include "compiler/dialect/triton/TritonDialect.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace tessel;
namespace tt = tessel::tt;

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo::AxisInfo(SmallVector<int64_t> contiguity, SmallVector<int64_t> divisibility,
                   SmallVector<int64_t> constancy, std::optional<int64_t> constant)
    : initialized(true), contiguity(std::move(contiguity)),
      divisibility(std::move(divisibility)), constancy(std::move(constancy)),
      constant(constant) {}

AxisInfo AxisInfo::pessimistic(int64_t rank) {
  SmallVector<int64_t> ones(rank, 1);
  return AxisInfo(ones, ones, ones);
}

int64_t AxisInfo::powerOfTwoDividing(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  int64_t p = value & -value;
  return std::min<int64_t>(p < 0 ? -p : p, kMaxDivisibility);
}

AxisInfo AxisInfo::ofConstant(int64_t value, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> ones(shape.size(), 1);
  SmallVector<int64_t> div(shape.size(), powerOfTwoDividing(value));
  return AxisInfo(ones, div, SmallVector<int64_t>(shape), value);
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.isInitialized())
    return rhs;
  if (!rhs.isInitialized())
    return lhs;
  if (lhs.getRank() != rhs.getRank())
    return pessimistic(std::max(lhs.getRank(), rhs.getRank()));
  SmallVector<int64_t> cont, div, cnst;
  for (int64_t d = 0; d < lhs.getRank(); ++d) {
    cont.push_back(std::gcd(lhs.contiguity[d], rhs.contiguity[d]));
    div.push_back(std::gcd(lhs.divisibility[d], rhs.divisibility[d]));
    cnst.push_back(std::gcd(lhs.constancy[d], rhs.constancy[d]));
  }
  std::optional<int64_t> constant;
  if (lhs.constant && rhs.constant && *lhs.constant == *rhs.constant)
    constant = lhs.constant;
  return AxisInfo(cont, div, cnst, constant);
}

void AxisInfo::print(raw_ostream &os) const {
  if (!initialized) {
    os << "<uninitialized>";
    return;
  }
  auto list = [&](ArrayRef<int64_t> v) {
    os << "[";
    llvm::interleaveComma(v, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity);
  os << ", divisibility = ";
  list(divisibility);
  os << ", constancy = ";
  list(constancy);
  if (constant)
    os << ", constant = " << *constant;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {

/// Values the analysis describes: integers, indices and pointers (not block pointers), scalar
/// or tensor.
bool isTracked(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return isa<IntegerType, IndexType>(elem) || tt::isScalarPointer(elem);
}

SmallVector<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return SmallVector<int64_t>(tensor.getShape());
  return {1};
}

int64_t capMul(int64_t a, int64_t b) {
  if (a >= AxisInfo::kMaxDivisibility / std::max<int64_t>(b, 1))
    return AxisInfo::kMaxDivisibility;
  return a * b;
}

/// Element size in bytes of what a pointer-like type points to (1 otherwise).
int64_t pointeeBytes(Type type) {
  auto ptr = dyn_cast<tt::PointerType>(getElementTypeOrSelf(type));
  if (!ptr || !ptr.getPointeeType().isIntOrFloat())
    return 1;
  return std::max<int64_t>(1, ptr.getPointeeType().getIntOrFloatBitWidth() / 8);
}

/// Reads a hint attribute (integer, or dense integers per dimension) into `out`.
void applyHint(Attribute attr, SmallVectorImpl<int64_t> &out) {
  if (!attr)
    return;
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    for (int64_t &v : out)
      v = i.getInt();
    return;
  }
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    SmallVector<int64_t> values;
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(v.getSExtValue());
    for (size_t d = 0; d < out.size() && !values.empty(); ++d)
      out[d] = values[std::min(d, values.size() - 1)];
  }
}

AxisInfo withHints(AxisInfo info, Operation *owner, std::function<Attribute(StringRef)> get) {
  Attribute div = get("tt.divisibility"), cont = get("tt.contiguity"),
            cnst = get("tt.constancy");
  if (!div && !cont && !cnst)
    return info;
  SmallVector<int64_t> c(info.getContiguity()), d(info.getDivisibility()),
      k(info.getConstancy());
  applyHint(div, d);
  applyHint(cont, c);
  applyHint(cnst, k);
  return AxisInfo(c, d, k, info.getConstantValue());
}

AxisInfo addLike(const AxisInfo &l, const AxisInfo &r, int64_t rhsScale, bool subtract) {
  SmallVector<int64_t> cont, div, cnst;
  for (int64_t d = 0; d < l.getRank(); ++d) {
    int64_t c = std::gcd(l.getContiguity(d), r.getConstancy(d));
    if (!subtract)
      c = std::max(c, std::gcd(l.getConstancy(d), r.getContiguity(d)));
    cont.push_back(c);
    div.push_back(std::gcd(l.getDivisibility(d), capMul(r.getDivisibility(d), rhsScale)));
    cnst.push_back(std::gcd(l.getConstancy(d), r.getConstancy(d)));
  }
  std::optional<int64_t> constant;
  if (l.getConstantValue() && r.getConstantValue())
    constant = subtract ? *l.getConstantValue() - *r.getConstantValue() * rhsScale
                        : *l.getConstantValue() + *r.getConstantValue() * rhsScale;
  return AxisInfo(cont, div, cnst, constant);
}

AxisInfo transfer(Operation *op, ArrayRef<AxisInfo> in, Type resultType) {
  SmallVector<int64_t> shape = shapeOf(resultType);
  int64_t rank = shape.size();
  auto pess = AxisInfo::pessimistic(rank);
  auto allInit = llvm::all_of(in, [](const AxisInfo &i) { return i.isInitialized(); });

  Attribute constant;
  if (matchPattern(op->getResult(0), m_Constant(&constant))) {
    if (auto i = dyn_cast<IntegerAttr>(constant))
      return AxisInfo::ofConstant(i.getInt(), shape);
    if (auto splat = dyn_cast<SplatElementsAttr>(constant))
      if (isa<IntegerType, IndexType>(splat.getElementType()))
        return AxisInfo::ofConstant(splat.getSplatValue<APInt>().getSExtValue(), shape);
    return pess;
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(op))
    return AxisInfo({shape[0]}, {AxisInfo::powerOfTwoDividing(range.getStart())}, {1});
  if (!allInit || in.empty())
    return pess;

  if (isa<tt::SplatOp>(op)) {
    const AxisInfo &s = in[0];
    return AxisInfo(SmallVector<int64_t>(rank, 1),
                    SmallVector<int64_t>(rank, s.getDivisibility(0)), shape,
                    s.getConstantValue());
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(op)) {
    const AxisInfo &s = in[0];
    SmallVector<int64_t> c(s.getContiguity()), d(s.getDivisibility()), k(s.getConstancy());
    int64_t axis = expand.getAxis();
    c.insert(c.begin() + axis, 1);
    d.insert(d.begin() + axis, *llvm::min_element(s.getDivisibility()));
    k.insert(k.begin() + axis, 1);
    return AxisInfo(c, d, k, s.getConstantValue());
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(op)) {
    const AxisInfo &s = in[0];
    ArrayRef<int64_t> srcShape = bcast.getSrc().getType().getShape();
    SmallVector<int64_t> c(s.getContiguity()), d(s.getDivisibility()), k(s.getConstancy());
    for (int64_t i = 0; i < rank; ++i)
      if (srcShape[i] == 1 && shape[i] != 1) {
        c[i] = 1;
        k[i] = shape[i];
      }
    return AxisInfo(c, d, k, s.getConstantValue());
  }
  if (auto trans = dyn_cast<tt::TransOp>(op)) {
    const AxisInfo &s = in[0];
    SmallVector<int64_t> c, d, k;
    for (int32_t src : trans.getOrder()) {
      c.push_back(s.getContiguity(src));
      d.push_back(s.getDivisibility(src));
      k.push_back(s.getConstancy(src));
    }
    return AxisInfo(c, d, k, s.getConstantValue());
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
          arith::IndexCastUIOp>(op))
    return in[0];
  if (isa<tt::AddPtrOp>(op))
    return addLike(in[0], in[1], pointeeBytes(resultType), /*subtract=*/false);
  if (isa<arith::AddIOp>(op))
    return addLike(in[0], in[1], 1, false);
  if (isa<arith::SubIOp>(op))
    return addLike(in[0], in[1], 1, true);
  if (isa<arith::MulIOp>(op)) {
    const AxisInfo &l = in[0], &r = in[1];
    SmallVector<int64_t> c, d, k;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t cont = 1;
      if (r.getConstantValue() == 1)
        cont = l.getContiguity(i);
      else if (l.getConstantValue() == 1)
        cont = r.getContiguity(i);
      c.push_back(cont);
      d.push_back(capMul(l.getDivisibility(i), r.getDivisibility(i)));
      k.push_back(std::gcd(l.getConstancy(i), r.getConstancy(i)));
    }
    std::optional<int64_t> value;
    if (l.getConstantValue() && r.getConstantValue())
      value = *l.getConstantValue() * *r.getConstantValue();
    return AxisInfo(c, d, k, value);
  }
  if (isa<arith::DivSIOp, arith::DivUIOp>(op)) {
    const AxisInfo &l = in[0], &r = in[1];
    SmallVector<int64_t> c(rank, 1), d, k;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t div = 1;
      if (std::optional<int64_t> rc = r.getConstantValue();
          rc && *rc > 0 && l.getDivisibility(i) % *rc == 0)
        div = l.getDivisibility(i) / *rc;
      d.push_back(div);
      k.push_back(std::gcd(l.getConstancy(i), r.getConstancy(i)));
    }
    return AxisInfo(c, d, k);
  }
  if (isa<arith::RemSIOp, arith::RemUIOp>(op)) {
    const AxisInfo &l = in[0], &r = in[1];
    SmallVector<int64_t> c, d, k;
    for (int64_t i = 0; i < rank; ++i) {
      c.push_back(std::gcd(l.getContiguity(i), r.getDivisibility(i)));
      d.push_back(std::gcd(l.getDivisibility(i), r.getDivisibility(i)));
      k.push_back(std::gcd(l.getConstancy(i), r.getConstancy(i)));
    }
    return AxisInfo(c, d, k);
  }
  if (isa<arith::CmpIOp, arith::SelectOp, arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
          arith::MaxUIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    // Equal inputs give equal outputs: constancy survives, the rest does not.
    SmallVector<int64_t> k(rank, std::numeric_limits<int64_t>::max());
    SmallVector<int64_t> d(rank, AxisInfo::kMaxDivisibility);
    for (const AxisInfo &i : in) {
      if (i.getRank() != rank)
        continue; // the scalar condition of a select
      for (int64_t x = 0; x < rank; ++x) {
        k[x] = std::gcd(k[x], i.getConstancy(x));
        d[x] = std::gcd(d[x], i.getDivisibility(x));
      }
    }
    bool keepsDivisibility = isa<arith::SelectOp, arith::MinSIOp, arith::MaxSIOp,
                                 arith::MinUIOp, arith::MaxUIOp>(op);
    if (!keepsDivisibility)
      d.assign(rank, 1);
    return AxisInfo(SmallVector<int64_t>(rank, 1), d, k);
  }
  return pess;
}

} // namespace

LogicalResult AxisInfoAnalysis::visitOperation(Operation *op,
                                               ArrayRef<const AxisInfoLattice *> operands,
                                               ArrayRef<AxisInfoLattice *> results) {
  if (op->getNumResults() == 0)
    return success();
  SmallVector<AxisInfo> in;
  for (const AxisInfoLattice *l : operands)
    in.push_back(l->getValue());
  for (auto [result, lattice] : llvm::zip(op->getResults(), results)) {
    if (!isTracked(result.getType()))
      continue;
    AxisInfo info = transfer(op, in, result.getType());
    info = withHints(info, op, [&](StringRef name) { return op->getAttr(name); });
    propagateIfChanged(lattice, lattice->join(info));
  }
  return success();
}

void AxisInfoAnalysis::visitNonControlFlowArguments(Operation *op,
                                                    const RegionSuccessor &successor,
                                                    ArrayRef<AxisInfoLattice *> argLattices,
                                                    unsigned firstIndex) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    // The induction variable: lb + k * step.
    const AxisInfo &lb = getLatticeElementFor(getProgramPointAfter(op), loop.getLowerBound())
                             ->getValue();
    const AxisInfo &step =
        getLatticeElementFor(getProgramPointAfter(op), loop.getStep())->getValue();
    AxisInfo iv = AxisInfo::pessimistic(1);
    if (lb.isInitialized() && step.isInitialized())
      iv = AxisInfo({1}, {std::gcd(lb.getDivisibility(0), step.getDivisibility(0))}, {1});
    AxisInfoLattice *ivLattice = argLattices.front();
    propagateIfChanged(ivLattice, ivLattice->join(iv));
    return;
  }
  SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(op, successor, argLattices,
                                                              firstIndex);
}

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  Value value = lattice->getAnchor();
  Type type = value.getType();
  AxisInfo info = AxisInfo::pessimistic(shapeOf(type).size());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
        func && arg.getOwner()->isEntryBlock())
      info = withHints(info, func, [&](StringRef name) {
        return func.getArgAttr(arg.getArgNumber(), name);
      });
  }
  propagateIfChanged(lattice, lattice->join(info));
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfo
//===----------------------------------------------------------------------===//

/// Reports a call cycle; the analyses over the call graph need an acyclic one.
static bool rejectRecursion(ModuleOp module) {
  DenseMap<Operation *, int> state; // 0 unvisited, 1 on stack, 2 done
  SymbolTable symbols(module);
  bool cyclic = false;
  std::function<void(Operation *)> visit = [&](Operation *fn) {
    state[fn] = 1;
    fn->walk([&](CallOpInterface call) {
      if (cyclic)
        return;
      auto sym = dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
      if (!sym)
        return;
      Operation *callee = symbols.lookup(sym.getRootReference());
      if (!callee)
        return;
      if (state[callee] == 1) {
        call->emitError() << "recursive call to '" << sym.getRootReference().getValue()
                          << "': tessel's analyses need an acyclic call graph";
        cyclic = true;
        return;
      }
      if (state[callee] == 0)
        visit(callee);
    });
    state[fn] = 2;
  };
  for (Operation &op : module.getOps())
    if (isa<FunctionOpInterface>(op) && state[&op] == 0 && !cyclic)
      visit(&op);
  return cyclic;
}

ModuleAxisInfo::ModuleAxisInfo(ModuleOp module) {
  if (rejectRecursion(module))
    return;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AxisInfoAnalysis>();
  ok = mlir::succeeded(solver.initializeAndRun(module));
}

AxisInfo ModuleAxisInfo::lookup(Value value) const {
  if (const auto *lattice = solver.lookupState<AxisInfoLattice>(value))
    if (lattice->getValue().isInitialized())
      return lattice->getValue();
  return AxisInfo::pessimistic(shapeOf(value.getType()).size());
}
