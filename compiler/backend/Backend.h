//===- Backend.h - the seam between the structured lowering and a target -*- C++ -*-===//
//
// A Backend takes the structured lowering's output (func.func kernels over memrefs, linalg
// and scf, with the six trailing program-id / grid arguments triton-arith-to-linalg adds) to
// the artifacts of one target kind. What the trailing arguments mean is the backend's: the CPU
// backend keeps them as arguments and its launch entry point fills them per program; a GPU
// backend maps them to block ids and grid sizes.
//
// Each backend declares its knobs (name, allowed values, default, a one-line doc) and validates
// a knob map against them, lists the artifact kinds it emits (the one the runtime loads is
// "artifact"), and emits them. Backends are looked up by target kind in Registry.h.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_BACKEND_BACKEND_H
#define TESSEL_COMPILER_BACKEND_BACKEND_H

#include "runtime/target/Target.h"

#include "mlir/IR/BuiltinOps.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessel {

/// Knob values by name (a sweep configuration's "knob.<name>" entries, tessel-compile's
/// --knob NAME=VALUE). A knob left out takes its default.
using KnobMap = std::map<std::string, int64_t>;

/// A kernel argument's type as runtime signatures spell it: "ptr:f32" for a memref of f32,
/// "i32", "f32", ... for scalars.
std::string launchTypeName(mlir::Type type);

/// One lowering knob of a backend.
struct KnobInfo {
  std::string name;
  /// Allowed values: `values` when not empty, else every integer in [min, max].
  int64_t min = 0, max = 0;
  std::vector<int64_t> values;
  int64_t defaultValue = 0;
  std::string doc;

  bool allows(int64_t value) const;
  /// "0..16" or "{0, 16, 32}".
  std::string allowedText() const;
};

/// One kind of output a backend emits (tessel-compile --emit NAME).
struct ArtifactKind {
  std::string name;
  std::string doc;
  /// Written to CompileOptions::outputPath by the backend (a linked shared object) rather than
  /// returned as bytes.
  bool writesFile = false;
};

/// What to emit, for which target, with which knobs.
/// The module attribute (a string of JSON) the compiler records what an artifact is compiled
/// from in; backends put it into the artifact (cpu: the exported string `__tessel_build_info`,
/// the runtime's kBuildInfoSymbol) and drop the attribute.
inline constexpr const char *kBuildInfoAttr = "tessel.build_info";

struct EmitRequest {
  Target target;
  KnobMap knobs;
  std::string artifact;
  /// Where a file artifact is written.
  std::string outputPath;
  /// GPU backends: the toolkit's root (ptxas, libdevice); empty: found automatically; "none":
  /// use none (PTX only).
  std::string toolkit;
};

class Backend {
public:
  virtual ~Backend() = default;

  virtual TargetKind kind() const = 0;
  virtual const std::vector<KnobInfo> &knobs() const = 0;
  virtual const std::vector<ArtifactKind> &artifactKinds() const = 0;

  /// An error for a target this backend cannot build for (an unknown CPU name, ...).
  virtual absl::Status validateTarget(const Target &target) const = 0;

  /// `target` as records and bundles write it: its architecture and the features a machine
  /// needs to run what was built for it (cpu: this machine's CPU flags, or those of the named
  /// CPU).
  virtual Target describeTarget(const Target &target) const = 0;

  /// Every knob of `knobs` is one of this backend's and in range; the error names the knob and
  /// its allowed values. Cross-knob rules are the backend's to add.
  virtual absl::Status validateKnobs(const KnobMap &knobs) const;

  /// `knobs` with every knob this backend declares, defaults filled in.
  KnobMap withDefaults(const KnobMap &knobs) const;

  /// Lowers the structured pipeline's output in `module` and emits `request.artifact` (one of
  /// artifactKinds()) for a request whose target and knobs were validated
  /// (compiler/pipeline's validateCompileOptions does that before any work). Returns the bytes, or for a kind that writes a file, the output path.
  /// Diagnostics go to the module's context; the status says what failed.
  virtual absl::StatusOr<std::string> emit(mlir::ModuleOp module,
                                           const EmitRequest &request) const = 0;

  /// What besides tessel itself determines this backend's artifacts (an external assembler's
  /// version, ...), for the compile cache key: a new toolchain must not be served old output.
  virtual std::string toolchainIdentity() const { return ""; }

  /// The artifact kind named `name`, or an error listing them.
  absl::StatusOr<ArtifactKind> findArtifactKind(const std::string &name) const;
};

} // namespace tessel

#endif // TESSEL_COMPILER_BACKEND_BACKEND_H
