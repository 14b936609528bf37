//===- AxisInfo.h - contiguity, divisibility and constancy of values -*- C++ -*-===//
//
// For every integer or pointer value (scalars count as rank 1), per dimension:
//   contiguity  - length of the runs of consecutive values (+1 each step) along the dimension,
//   divisibility - largest power of two dividing the first value of each run (in bytes for
//                  pointers),
//   constancy   - length of the runs of equal values along the dimension.
// Seeded from the tt.divisibility / tt.contiguity / tt.constancy attributes of kernel arguments
// and of ops (tl.multiple_of / tl.max_contiguous), propagated through scf control flow and the
// call graph (a callee's arguments get the meet of all its call sites).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_ANALYSIS_AXISINFO_H
#define TESSEL_COMPILER_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace tessel {

class AxisInfo {
public:
  /// The largest divisibility tracked (the divisibility of 0).
  static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

  AxisInfo() = default;
  AxisInfo(llvm::SmallVector<int64_t> contiguity, llvm::SmallVector<int64_t> divisibility,
           llvm::SmallVector<int64_t> constancy, std::optional<int64_t> constant = {});

  /// Nothing known about a value of this rank.
  static AxisInfo pessimistic(int64_t rank);
  /// The information of a value known to hold `value` everywhere in a `shape` tensor.
  static AxisInfo ofConstant(int64_t value, llvm::ArrayRef<int64_t> shape);
  /// Largest power of two dividing `value` (kMaxDivisibility for 0).
  static int64_t powerOfTwoDividing(int64_t value);

  /// What holds on both: per-dimension gcd.
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool isInitialized() const { return initialized; }
  int64_t getRank() const { return contiguity.size(); }
  int64_t getContiguity(int64_t d) const { return contiguity[d]; }
  int64_t getDivisibility(int64_t d) const { return divisibility[d]; }
  int64_t getConstancy(int64_t d) const { return constancy[d]; }
  llvm::ArrayRef<int64_t> getContiguity() const { return contiguity; }
  llvm::ArrayRef<int64_t> getDivisibility() const { return divisibility; }
  llvm::ArrayRef<int64_t> getConstancy() const { return constancy; }
  std::optional<int64_t> getConstantValue() const { return constant; }

  bool operator==(const AxisInfo &other) const {
    return initialized == other.initialized && contiguity == other.contiguity &&
           divisibility == other.divisibility && constancy == other.constancy &&
           constant == other.constant;
  }
  void print(llvm::raw_ostream &os) const;

private:
  bool initialized = false;
  llvm::SmallVector<int64_t> contiguity, divisibility, constancy;
  std::optional<int64_t> constant;
};

using AxisInfoLattice = mlir::dataflow::Lattice<AxisInfo>;

/// The sparse forward data-flow analysis computing AxisInfo; load it into a DataFlowSolver
/// together with DeadCodeAnalysis and SparseConstantPropagation.
class AxisInfoAnalysis : public mlir::dataflow::SparseForwardDataFlowAnalysis<AxisInfoLattice> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;

  mlir::LogicalResult visitOperation(mlir::Operation *op,
                                     llvm::ArrayRef<const AxisInfoLattice *> operands,
                                     llvm::ArrayRef<AxisInfoLattice *> results) override;
  void visitNonControlFlowArguments(mlir::Operation *op, const mlir::RegionSuccessor &successor,
                                    llvm::ArrayRef<AxisInfoLattice *> argLattices,
                                    unsigned firstIndex) override;
  void setToEntryState(AxisInfoLattice *lattice) override;
};

/// Runs the analysis over `module` (all functions, through calls); query with `lookup`.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(mlir::ModuleOp module);
  /// The information of `value`, or pessimistic if the analysis knows nothing of it.
  AxisInfo lookup(mlir::Value value) const;
  /// Whether the analysis converged (it fails on recursion or malformed IR).
  bool succeeded() const { return ok; }

private:
  mlir::DataFlowSolver solver;
  bool ok = false;
};

} // namespace tessel

#endif // TESSEL_COMPILER_ANALYSIS_AXISINFO_H
