//===- KernelFile.h - what a kernel file's host code says about its kernel -*- C++ -*-===//
//
// Reads a Triton kernel file as its users wrote it for Triton: the entry's parameters (which
// are tl.constexpr, which have defaults), and its decorators evaluated for one target as
// Triton evaluates them at import time: `@triton.autotune(configs=..., key=...)` (configs
// often built by host functions that branch on `is_cuda()`), `@triton.heuristics({...})`
// (lambdas called per configuration and shape), `@triton.jit`. Host code runs in tessel's
// small evaluator (runtime/expr) with `triton` and `torch` modules that answer for the target
// being tuned (docs/kernel-specs.md lists the answers); names are evaluated only when used,
// so host code the configs do not need (tests, benchmarks, torch calls) is never run.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_SPEC_KERNELFILE_H
#define TESSEL_KERNELS_SPEC_KERNELFILE_H

#include "runtime/expr/Eval.h"
#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessel::spec {

struct KernelParam {
  std::string name;
  expr::Loc loc;
  bool isConstexpr = false; ///< annotated tl.constexpr
  bool hasDefault = false;
};

/// One `triton.Config`: its meta-parameters and launch options (num_warps, num_stages, ...).
struct TritonConfig {
  std::vector<std::pair<std::string, expr::Value>> kwargs;
  std::map<std::string, expr::Value> options;
  expr::Loc loc;
};

/// The entry's decorators as evaluated for one target.
struct Decorators {
  bool autotuned = false;
  std::vector<TritonConfig> configs;
  std::vector<std::string> key;
  expr::Loc autotuneLoc;
  /// @triton.heuristics: name -> a function of the arguments dict.
  std::vector<std::pair<std::string, expr::Value>> heuristics;
  expr::Loc heuristicsLoc;
};

/// What host code sees of the target being tuned: `triton.runtime.driver.active.
/// get_current_target()` (backend "cuda" / "hip" / "cpu", arch, warp_size),
/// `torch.cuda.get_device_capability()`, `torch.cuda.is_available()`, `torch.version.hip`,
/// and the versions tessel implements (triton 3.6.0, torch 2.11.0).
expr::ScopePtr TargetModules(const Target &target);

/// The version strings host code reads (`triton.__version__`, `torch.__version__`).
inline constexpr const char *kTritonVersion = "3.6.0";
inline constexpr const char *kTorchVersion = "2.11.0";

class KernelFile {
public:
  /// Reads `text` (the file at `path`, named so in errors) and finds the @triton.jit function
  /// `entry`; an error names the file and the kernels it has.
  static absl::StatusOr<std::unique_ptr<KernelFile>> Read(const std::string &path,
                                                          const std::string &text,
                                                          const std::string &entry);
  const std::vector<KernelParam> &params() const { return params_; }
  const expr::Loc &entryLoc() const { return entryLoc_; }
  /// The entry's decorators, its host code evaluated for `target`.
  absl::StatusOr<Decorators> Evaluate(const Target &target) const;

private:
  struct Binding {
    enum class Kind { Def, Assign, Import, Kernel, Host } kind;
    size_t pos = 0;      ///< the statement's first token (Def, Assign)
    std::string module;  ///< Import: the dotted module
    std::string member;  ///< Import: `from module import member`; empty for `import module`
    std::string what;    ///< Host: what bound it
    expr::Loc loc;
  };
  KernelFile() = default;
  absl::Status Scan();
  size_t SkipStatement(size_t pos) const;
  expr::ScopePtr ModuleScope(const Target &target) const;

  std::string path_;
  std::vector<expr::Token> tokens_;
  std::map<std::string, Binding> bindings_;
  std::map<std::string, std::vector<size_t>> decorators_; ///< a function's '@' lines
  std::string entry_;
  expr::Loc entryLoc_;
  std::vector<KernelParam> params_;
};

} // namespace tessel::spec

#endif // TESSEL_KERNELS_SPEC_KERNELFILE_H
