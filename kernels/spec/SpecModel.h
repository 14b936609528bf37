//===- SpecModel.h - a spec kernel's model for one target (internal) -*- C++ -*-===//
//
// What SpecKernel.cpp builds from a spec for one target and SpecProblem.cpp runs problems of:
// the shape-bound values expressions see (Bind), the constexprs of a configuration (with the
// heuristics) and the grid, and the helpers on dtypes both use.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_SPEC_SPECMODEL_H
#define TESSEL_KERNELS_SPEC_SPECMODEL_H

#include "kernels/Zoo.h"
#include "kernels/spec/SpecData.h"
#include "runtime/expr/Eval.h"

#include "absl/status/statusor.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace tessel::spec::model {

using expr::Loc;
using expr::Value;

absl::Status Error(const Loc &loc, const std::string &message);
bool Has(const std::vector<std::string> &names, const std::string &name);
double PhysicalMemoryBytes();
/// The bytes of one element of a dtype the spec reader admitted.
size_t DtypeBytes(const std::string &d);
/// Triton's pointer spelling of a dtype: f32 -> fp32, bf16 -> bf16, i8 -> i8.
std::string TritonType(const std::string &d);
/// Default relative tolerances against the reference configuration's outputs.
double DefaultTolerance(const std::string &d);
/// The element type of a tensor argument for the swept `dtype`.
std::string ElementType(const ArgSpec &a, const std::string &dtype);
/// A tensor argument's value in expressions, with row-major strides (in elements).
Value TensorValue(const std::vector<int64_t> &shape, const std::string &dtype);

/// Everything of one (shape, dtype) expressions see: the dims, each tensor (shape, strides),
/// each scalar argument's value, and stride(t, i).
struct Bound {
  expr::ScopePtr scope;
  std::vector<std::vector<int64_t>> tensorShapes; ///< per argument (empty for scalars)
  std::vector<Value> scalars;                     ///< per argument (None for tensors)
};

/// `allocatable`: tensors past 2^40 elements are an error (they are about to be allocated);
/// false for counting bytes and FLOPs, where a huge shape is a huge number.
absl::StatusOr<Bound> Bind(const SpecData &data, const expr::ScopePtr &base,
                           const zoo::Shape &shape, const std::string &dtype,
                           bool allocatable = true);

/// The value of a constexpr as the frontend reads it, a Python literal: "128", "True",
/// "1.5", "'leaky_relu'".
std::string ConstexprText(const Value &v);

/// What MakeKernel knows about the kernel for one target, shared by its functions.
struct Model {
  std::shared_ptr<const SpecData> data;
  Target target;
  std::vector<std::pair<std::string, Value>> heuristics;
  std::set<std::string> metaParams; ///< the space's non-knob parameters
  std::map<std::string, double> tolerance;
  /// Python's built-ins and the target's `triton` and `torch`: what expressions see first.
  expr::ScopePtr base;
  /// The C++ reference that checks runs, or none (then a reference configuration does).
  zoo::Reference reference;
  /// Serializes evaluation (see Constexprs).
  mutable std::recursive_mutex mutex;

  /// The constexprs of `point` at `shape` (config meta-parameters, constexpr arguments,
  /// heuristics in order, each seeing the ones before, as Triton's heuristics do).
  absl::StatusOr<std::map<std::string, std::string>>
  Constexprs(const zoo::Point &point, const zoo::Shape &shape, const std::string &dtype,
             std::map<std::string, Value> *values = nullptr) const;
  /// The launch grid of `config` at `shape`: the spec's grid expression (or a lambda of
  /// META, as Triton users write grids) over the dims, arguments and meta-parameters.
  absl::StatusOr<runtime::Grid> Grid(const zoo::Point &config, const zoo::Shape &shape,
                                     const std::string &dtype) const;
};

/// A problem of the model's kernel at `shape` in `dtype`: fresh inputs drawn from `seed`,
/// outputs poisoned, checked by the C++ reference or against a reference configuration.
absl::StatusOr<std::unique_ptr<zoo::Problem>> MakeProblem(std::shared_ptr<const Model> model,
                                                         const zoo::Shape &shape,
                                                         const std::string &dtype,
                                                         uint64_t seed);

} // namespace tessel::spec::model

#endif // TESSEL_KERNELS_SPEC_SPECMODEL_H
