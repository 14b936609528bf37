//===- GroupedAccess.cpp - loop iterations taken in groups of consecutive elements -*- C++ -*-===//
//
// Part of tessel-cuda-map-programs (BlockMapping.h). A thread that runs V consecutive
// iterations of a loop's innermost dimension at once touches V consecutive elements of each
// buffer; where those groups start aligned to their bytes, LLVM makes each group's accesses
// one vector access (ld.global.v4, st.shared.v4, ...). ThreadTiles.cpp gives kept tiles such
// groups; MapPrograms.cpp spreads other loops (a tile copied from shared memory to global
// memory: a matmul's epilogue) so.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cuda/BlockMapping.h"
#include "compiler/backend/GpuKernels.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tessel::cuda {

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      indices[d] = linear;
      break;
    }
    Value size = arith::ConstantIndexOp::create(b, loc, shape[d]);
    indices[d] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  return indices;
}

scf::IfOp guardOfBody(Block *body) {
  if (body->getOperations().size() < 2)
    return {};
  auto guard = dyn_cast<scf::IfOp>(*std::prev(body->end(), 2));
  if (!guard || guard.getNumResults() != 0 || !guard.getElseRegion().empty())
    return {};
  for (Operation &op : llvm::make_range(body->begin(), guard->getIterator()))
    if (!isMemoryEffectFree(&op))
      return {};
  return guard;
}

bool followsInduction(Value value, Value inner, Operation *loop) {
  if (value == inner)
    return true;
  Operation *def = value.getDefiningOp();
  return def && loop->isAncestor(def) && llvm::any_of(def->getOperands(), [&](Value operand) {
           return followsInduction(operand, inner, loop);
         });
}

bool rowsOfWholeGroups(MemRefType type, int64_t v) {
  SmallVector<int64_t> strides;
  int64_t offset;
  auto multipleOfV = [&](int64_t x) { return !ShapedType::isDynamic(x) && x % v == 0; };
  return succeeded(type.getStridesAndOffset(strides, offset)) && !strides.empty() &&
         strides.back() == 1 && multipleOfV(offset) &&
         llvm::all_of(ArrayRef(strides).drop_back(), multipleOfV);
}

/// Whether `value` is a known multiple of `v` (a power of two, so wrapping products and sums
/// and casts keep it one): a constant, a product with one, or an integer argument of the
/// kernel whose divisibility (Triton's specialization, kArgDivisibilityAttr, checked at
/// launch) is.
static bool knownMultiple(Value value, int64_t v) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return *c % v == 0;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getFunctionBody().front())
      return false;
    auto d = func->getAttrOfType<DenseI64ArrayAttr>(kArgDivisibilityAttr);
    return d && arg.getArgNumber() < d.size() && d[arg.getArgNumber()] % v == 0;
  }
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(
          def))
    return knownMultiple(def->getOperand(0), v);
  if (isa_and_nonnull<arith::MulIOp>(def))
    return knownMultiple(def->getOperand(0), v) || knownMultiple(def->getOperand(1), v);
  if (isa_and_nonnull<arith::AddIOp>(def))
    return knownMultiple(def->getOperand(0), v) && knownMultiple(def->getOperand(1), v);
  return false;
}

bool groupsAligned(Value memref, ValueRange indices, Value inner, int64_t v,
                   SmallVectorImpl<Value> *runtimeStrides) {
  assert(llvm::isPowerOf2_64(uint64_t(v)) && "knownMultiple needs v a power of two");
  if (indices.empty() || indices.back() != inner)
    return false;
  auto multipleOfV = [&](int64_t x) { return !ShapedType::isDynamic(x) && x % v == 0; };
  // Unit innermost stride; the others multiples of v, or dynamic (known multiples of v, or
  // tested at run time: below).
  auto stridesOk = [&](MemRefType type) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
        strides.back() != 1)
      return false;
    return llvm::all_of(ArrayRef(strides).drop_back(), [&](int64_t s) {
      return multipleOfV(s) || ShapedType::isDynamic(s);
    });
  };
  auto type = cast<MemRefType>(memref.getType());
  if (!type.getElementType().isIntOrFloat() || !stridesOk(type))
    return false;
  int64_t rank = type.getRank();
  int64_t bytes = v * llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
  Value at = memref;
  while (auto view = at.getDefiningOp<memref::SubViewOp>()) {
    // Offsets in a dimension whose stride is a multiple of v move by multiples of v; the
    // innermost offset must be one itself. Unit steps of one rank: each dimension's stride
    // is the same all the way down.
    ArrayRef<int64_t> offsets = view.getStaticOffsets();
    if (!stridesOk(view.getSourceType()) || !multipleOfV(offsets.back()) ||
        view.getSourceType().getRank() != rank ||
        !llvm::all_of(view.getStaticStrides(), [](int64_t s) { return s == 1; }))
      return false;
    at = view.getSource();
  }
  auto assume = at.getDefiningOp<memref::AssumeAlignmentOp>();
  if (!assume || assume.getAlignment() % bytes != 0 || !stridesOk(assume.getType()))
    return false;
  // The dynamic strides: operands of the reinterpret_cast the aligned view is.
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(assume.getType().getStridesAndOffset(strides, offset)))
    return false;
  auto cast = assume.getMemref().getDefiningOp<memref::ReinterpretCastOp>();
  SmallVector<Value> tested;
  for (auto [d, stride] : llvm::enumerate(ArrayRef(strides).drop_back())) {
    if (!ShapedType::isDynamic(stride))
      continue;
    if (!cast || int64_t(cast.getMixedStrides().size()) != rank)
      return false;
    auto value = dyn_cast<Value>(cast.getMixedStrides()[d]);
    if (!value)
      return false;
    if (knownMultiple(value, v))
      continue;
    if (!runtimeStrides)
      return false;
    tested.push_back(value);
  }
  for (Value value : tested)
    if (!llvm::is_contained(*runtimeStrides, value))
      runtimeStrides->push_back(value);
  return true;
}

/// The lanes' copies of a load or store as one vector access at lane 0's indices (the lanes'
/// elements consecutive, the first aligned to `alignment` bytes). False for other ops.
static bool packAccess(OpBuilder &b, Operation &op, MutableArrayRef<IRMapping> maps,
                       int64_t alignment) {
  Location loc = op.getLoc();
  int64_t lanes = maps.size();
  auto at = [&](ValueRange indices) {
    SmallVector<Value> mapped;
    for (Value index : indices)
      mapped.push_back(maps[0].lookupOrDefault(index));
    return mapped;
  };
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    auto type = VectorType::get({lanes}, load.getType());
    Value vector = vector::LoadOp::create(b, loc, type, maps[0].lookupOrDefault(load.getMemRef()),
                                          at(load.getIndices()), /*nontemporal=*/false,
                                          llvm::MaybeAlign(alignment));
    for (int64_t lane = 0; lane < lanes; ++lane)
      maps[lane].map(load.getResult(), vector::ExtractOp::create(b, loc, vector, lane));
    return true;
  }
  if (auto store = dyn_cast<memref::StoreOp>(op)) {
    SmallVector<Value> elements;
    for (int64_t lane = 0; lane < lanes; ++lane)
      elements.push_back(maps[lane].lookupOrDefault(store.getValueToStore()));
    auto type = VectorType::get({lanes}, store.getValueToStore().getType());
    Value vector = vector::FromElementsOp::create(b, loc, type, elements);
    vector::StoreOp::create(b, loc, vector, maps[0].lookupOrDefault(store.getMemRef()),
                            at(store.getIndices()), /*nontemporal=*/false,
                            llvm::MaybeAlign(alignment));
    return true;
  }
  return false;
}

void cloneGroup(OpBuilder &b, Location loc, Block *body, scf::IfOp guard,
                MutableArrayRef<IRMapping> maps,
                llvm::function_ref<void(OpBuilder &, llvm::iterator_range<Block::iterator>,
                                        IRMapping &, int64_t)>
                    cloneLane,
                llvm::function_ref<int64_t(Operation &)> packAlignment) {
  int64_t lanes = maps.size();
  // Op by op, every lane's copy of it: the lanes' loads side by side, then their stores
  // (iterations of a parallel loop are independent, so their accesses may be reordered so).
  auto sideBySide = [&](OpBuilder &at, llvm::iterator_range<Block::iterator> ops) {
    for (Operation &op : ops) {
      if (int64_t alignment = packAlignment ? packAlignment(op) : 0;
          alignment && packAccess(at, op, maps, alignment))
        continue;
      for (int64_t lane = 0; lane < lanes; ++lane)
        cloneLane(at, llvm::make_range(op.getIterator(), std::next(op.getIterator())),
                  maps[lane], lane);
    }
  };
  if (!guard) {
    sideBySide(b, llvm::make_range(body->begin(), std::prev(body->end())));
    return;
  }
  // The tests of the group's elements, and the group's accesses under all of them.
  Value all;
  SmallVector<Value> tests;
  for (int64_t lane = 0; lane < lanes; ++lane) {
    for (Operation &op : llvm::make_range(body->begin(), guard->getIterator()))
      b.clone(op, maps[lane]);
    tests.push_back(maps[lane].lookupOrDefault(guard.getCondition()));
    all = all ? arith::AndIOp::create(b, loc, all, tests.back()).getResult() : tests.back();
  }
  Block *guarded = guard.thenBlock();
  auto guardedOps = llvm::make_range(guarded->begin(), std::prev(guarded->end()));
  auto whole = scf::IfOp::create(b, loc, all, /*withElseRegion=*/true);
  OpBuilder fast(whole.thenBlock()->getTerminator());
  sideBySide(fast, guardedOps);
  OpBuilder slow(whole.elseBlock()->getTerminator());
  for (int64_t lane = 0; lane < lanes; ++lane) {
    auto one = scf::IfOp::create(slow, loc, tests[lane], /*withElseRegion=*/false);
    OpBuilder at(one.thenBlock()->getTerminator());
    cloneLane(at, guardedOps, maps[lane], lane);
  }
}

} // namespace tessel::cuda
