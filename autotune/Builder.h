//===- Builder.h - compiles a sweep's candidates, through the compile cache -*- C++ -*-===//
//
// The builder half of the autotuner (the runner, tessel-bench, measures): a candidate is a zoo
// kernel at one dtype, shape and configuration, compiled for a Target from the kernel's
// source. Artifacts go through runtime/CompileCache, keyed by the source, entry,
// constexprs, signature, every knob, the target and the compiler version: a candidate built
// before (by this sweep, an earlier one or a resumed one) is not built again, and an edited
// source or a new compiler builds anew. Needs the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_BUILDER_H
#define TESSEL_AUTOTUNE_BUILDER_H

#include "autotune/space/Space.h"
#include "compiler/pipeline/Compiler.h"
#include "kernels/Zoo.h"
#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessel::autotune {

/// The compiler version records, bundles and cache keys carry.
using tessel::kCompilerVersion;

/// A kernel's source as the sweep compiles it, read once: every candidate sees the same text.
struct KernelSource {
  std::string path, text;
  bool readable = false;
};

/// The source of every zoo kernel by name, each file read once: kernels/..., or the copy under
/// TESSEL_ZOO_DIR (to tune edited copies of the zoo's sources).
std::map<std::string, KernelSource> ReadZooSources();

struct Candidate {
  const zoo::Kernel *kernel = nullptr;
  std::string dtype;
  zoo::Shape shape;
  Point point;
  /// A spec kernel's candidates are checked against the outputs of a reference configuration
  /// of the same kernel (the space's first point that compiles), run first on the same inputs.
  std::string referenceArtifact;
  Point referencePoint;
};

/// A built candidate: the artifact's path, or why it did not compile; the seconds it took.
struct Built {
  absl::StatusOr<std::string> artifact = absl::UnknownError("not built");
  double seconds = 0;
};

class Builder {
public:
  /// Artifacts for `target` cached in `cacheDirectory`.
  Builder(Target target, std::string cacheDirectory);

  /// Compiles `candidate` from `source` (or finds it in the cache).
  Built Build(const Candidate &candidate, const KernelSource &source) const;

  /// Builds `candidates` on up to `workers` threads (0: one per core, at most 8); a candidate
  /// not started when `stop()` turns true gets DeadlineExceeded.
  std::vector<Built> BuildAll(const std::vector<Candidate> &candidates,
                              const std::map<std::string, KernelSource> &sources,
                              const std::function<bool()> &stop = {}, unsigned workers = 0) const;

  const Target &target() const { return target_; }

  /// Builds GPU candidates by running `compiler` (tessel-compile) in a child process, so that
  /// an LLVM abort or a hang in one candidate is that candidate's compile error, not the end of
  /// the sweep. Empty (the default): in this process.
  void setCompiler(std::string compiler);

private:
  absl::Status compileInChild(const Candidate &c, const KernelSource &source,
                              const frontend::KernelSpec &spec, const CompileOptions &options,
                              const std::string &path) const;

  /// What the cache key calls the compiler: its version and this build of it.
  std::string compilerIdentity() const;

  std::string compiler_, compilerDigest_;
  Target target_;
  std::string cacheDirectory_;
  std::string toolchain_; ///< "/ptxas=..." for the cache key, or empty
};

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_BUILDER_H
