//===- GenericAtomics.cpp - memref.generic_atomic_rmw as a compare-and-swap loop -*- C++ -*-===//
//
// structured-to-memref lowers atomics without a memref.atomic_rmw kind (tt.atomic_cas) to
// memref.generic_atomic_rmw, whose body computes the new value from the current one. MLIR's
// LLVM lowering of that op needs identity-layout memrefs, and kernel arguments are strided
// views; here it becomes, on the element's address,
//   cur = atomic load; do { new = body(cur); (old, ok) = cmpxchg(addr, cur, new); cur = old }
//   while (!ok)
// yielding the value the memory held before the successful exchange.
//
//===----------------------------------------------------------------------===//

#include "compiler/backend/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

static void lowerGenericAtomics(ModuleOp module) {
  SmallVector<memref::GenericAtomicRMWOp> ops;
  module.walk([&](memref::GenericAtomicRMWOp op) { ops.push_back(op); });
  for (memref::GenericAtomicRMWOp op : ops) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Type elem = op.getResult().getType();
    // The element's address: aligned base + (offset + sum(index * stride)) elements.
    auto meta = memref::ExtractStridedMetadataOp::create(b, loc, op.getMemref());
    Value linear = meta.getOffset();
    for (auto [i, idx] : llvm::enumerate(op.getIndices()))
      linear = arith::AddIOp::create(b, loc, linear,
                                     arith::MulIOp::create(b, loc, idx, meta.getStrides()[i]));
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, op.getMemref());
    Type i64 = b.getI64Type();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Value baseInt = arith::IndexCastOp::create(b, loc, i64, base);
    Value basePtr = LLVM::IntToPtrOp::create(b, loc, ptrType, ValueRange{baseInt});
    Value addr = LLVM::GEPOp::create(b, loc, ptrType, elem, basePtr,
                                     ValueRange{arith::IndexCastOp::create(b, loc, i64, linear)});
    unsigned align = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
    Value start = LLVM::LoadOp::create(b, loc, elem, addr, align, false, false, false, false,
                                       LLVM::AtomicOrdering::monotonic);
    // CAS works on integers: floats travel as their bits.
    Type bitsType = b.getIntegerType(elem.getIntOrFloatBitWidth());
    auto toBits = [&](OpBuilder &nb, Value v) {
      return elem == bitsType ? v : Value(arith::BitcastOp::create(nb, loc, bitsType, v));
    };
    auto fromBits = [&](OpBuilder &nb, Value v) {
      return elem == bitsType ? v : Value(arith::BitcastOp::create(nb, loc, elem, v));
    };
    auto loop = scf::WhileOp::create(b, loc, TypeRange{elem}, ValueRange{start});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before = b.createBlock(&loop.getBefore(), {}, {elem}, {loc});
      Value cur = before->getArgument(0);
      IRMapping map;
      Block &body = op.getAtomicBody().front();
      map.map(body.getArgument(0), cur);
      for (Operation &inner : body.without_terminator())
        b.clone(inner, map);
      Value next = map.lookupOrDefault(body.getTerminator()->getOperand(0));
      auto xchg = LLVM::AtomicCmpXchgOp::create(b, loc, addr, toBits(b, cur), toBits(b, next),
                                                LLVM::AtomicOrdering::acq_rel,
                                                LLVM::AtomicOrdering::monotonic);
      Value old = fromBits(b, LLVM::ExtractValueOp::create(b, loc, xchg, ArrayRef<int64_t>{0}));
      Value ok = LLVM::ExtractValueOp::create(b, loc, xchg, ArrayRef<int64_t>{1});
      Value retry = arith::XOrIOp::create(
          b, loc, ok, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
      // Keep looping with the value seen; on success, `old` is the value before the exchange.
      scf::ConditionOp::create(b, loc, retry, ValueRange{old});
      Block *after = b.createBlock(&loop.getAfter(), {}, {elem}, {loc});
      scf::YieldOp::create(b, loc, after->getArguments());
    }
    op.getResult().replaceAllUsesWith(loop.getResult(0));
    op.erase();
  }
}

namespace tessel {
#define GEN_PASS_DEF_CPULOWERGENERICATOMICS
#include "compiler/backend/cpu/Passes.h.inc"
} // namespace tessel

namespace {
struct CpuLowerGenericAtomicsPass : tessel::impl::CpuLowerGenericAtomicsBase<CpuLowerGenericAtomicsPass> {
  using Base::Base;
  void runOnOperation() override {
    lowerGenericAtomics(getOperation());
  }
};
} // namespace
