//===- SpecData.h - a kernel spec as read from its TOML file (internal) -*- C++ -*-===//
//
// What Spec.cpp reads from the TOML file and SpecKernel.cpp turns into a zoo::Kernel: the
// expressions parsed (each with its place in the spec), nothing evaluated yet.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_SPEC_SPECDATA_H
#define TESSEL_KERNELS_SPEC_SPECDATA_H

#include "kernels/Zoo.h"
#include "kernels/spec/KernelFile.h"
#include "runtime/expr/Syntax.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessel::spec {

/// An argument of the kernel as the spec gives it.
struct ArgSpec {
  std::string name;
  expr::Loc loc;
  bool tensor = false;
  // A tensor: its dtype ("{dtype}": the swept one), its shape's expressions, role, init.
  std::string dtype;
  std::vector<expr::NodePtr> shape;
  std::string shapeText; ///< as written between the brackets: "M, K"
  enum class Role { In, Out, InOut } role = Role::In;
  /// How inputs are drawn: normal(mean, std), uniform(lo, hi), randint(lo, hi), zeros, ones,
  /// const(v); the name and its (evaluated) parameters.
  std::string init = "normal";
  std::vector<double> initArgs = {0.0, 1.0};
  // A scalar: its value's expression, Triton type (i32, i64, fp32; "" inferred), promised
  // divisibility (16 or 0) and whether it is baked in as a constexpr.
  expr::NodePtr value;
  std::string valueText; ///< as written
  std::string type;
  int divisible = 0;
  bool constexpr_ = false;
};

/// A configuration space the spec gives for one target kind (else the file's configs).
struct SpaceSpec {
  std::vector<std::pair<std::string, std::vector<int64_t>>> params;
  std::vector<expr::NodePtr> constraints;
  expr::Loc loc;
};

/// Named sets of shapes for one target kind: "default", "large", ....
using ShapeSets = std::map<std::string, std::vector<zoo::Shape>>;

struct SpecData {
  std::string path, name, sha256;
  std::string sourcePath, sourceText, sourceSha256, entry;
  std::vector<std::string> dims;
  std::map<std::string, std::vector<std::string>> dtypes; ///< "cpu" / "gpu"
  std::map<std::string, ShapeSets> shapes;                ///< "cpu" / "gpu"
  expr::Loc shapesLoc;                                    ///< the [shapes] table
  std::map<std::string, SpaceSpec> spaces;                ///< "cpu" / "gpu"
  std::vector<ArgSpec> args;                              ///< the kernel's order
  expr::NodePtr grid, flops, bytes;
  std::string gridText; ///< as written
  /// "gemm" (with gemmDims), "copy" or "none".
  std::string baseline = "copy";
  std::vector<expr::NodePtr> gemmDims;
  std::map<std::string, double> tolerance; ///< per dtype; defaults in SpecKernel.cpp
  /// A C++ reference checks the runs (the zoo's), by its registered name; "" for none.
  std::string reference;
  expr::Loc referenceLoc;
  std::unique_ptr<KernelFile> file;
};

/// Reads and checks the TOML file at `path` (and the kernel file's parameters).
/// `sourceOverride`: read instead of the kernel file the spec names, when not empty.
absl::StatusOr<std::shared_ptr<SpecData>> ReadSpecData(const std::string &path,
                                                       const std::string &sourceOverride = "");

/// The zoo kernel of `data` for `target` (see LoadSpec).
absl::StatusOr<zoo::Kernel> MakeKernel(std::shared_ptr<const SpecData> data,
                                       const Target &target, const std::vector<std::string> &knobs,
                                       std::vector<std::string> *notes,
                                       const zoo::References *references);

} // namespace tessel::spec

#endif // TESSEL_KERNELS_SPEC_SPECDATA_H
