//===- Spec.h - kernel specs: a user's kernel file plus a short TOML file, tuned -*- C++ -*-===//
//
// A kernel spec (docs/kernel-specs.md) names a Triton kernel file and its entry, the problem
// dims and the shapes to tune for, the kernel's arguments by their Python names (tensors as
// `dtype[dim expr, ...]` with a role and initial values, scalars as expressions of the dims or
// of strides), the launch grid as the Python expression Triton users write, FLOP and byte
// counts, the baseline, and the configuration space: the kernel file's own
// `@triton.autotune` configs (with `@triton.heuristics` applied per point and shape) unless the
// spec gives parameters and constraints. LoadSpec reads one into a zoo::Kernel for one
// target, so the sweep, tessel-bench, records, reports and bundles treat it like any kernel.
// Every error names the spec's (or the kernel file's) file:line:col.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_SPEC_SPEC_H
#define TESSEL_KERNELS_SPEC_SPEC_H

#include "kernels/Zoo.h"
#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <set>
#include <string>
#include <vector>

namespace tessel::spec {

/// Reads the spec at `path` (and the kernel file it names) into a kernel tuned for `target`.
/// `knobs`: the target backend's knob names; a launch option of a triton.Config (num_warps,
/// num_stages, ...) that is one becomes the parameter "knob.NAME", others are dropped with a
/// note in `notes`. The kernel's name is its entry's unless the spec sets `name`.
/// `source`, when not empty, is read instead of the file the spec names (a packed copy).
/// `references`: the C++ references a spec's `reference` key may name (the zoo's).
absl::StatusOr<zoo::Kernel> LoadSpec(const std::string &path, const Target &target,
                                     const std::vector<std::string> &knobs,
                                     std::vector<std::string> *notes = nullptr,
                                     const std::string &source = "",
                                     const zoo::References *references = nullptr);

/// The spec files of `path`: the file itself, or a folder's *.toml files (sorted).
absl::StatusOr<std::vector<std::string>> SpecFiles(const std::string &path);

} // namespace tessel::spec

#endif // TESSEL_KERNELS_SPEC_SPEC_H
