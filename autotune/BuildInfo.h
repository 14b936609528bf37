//===- BuildInfo.h - does an artifact's recorded build match a configuration -*- C++ -*-===//
//
// Every artifact records how it was built (entry, constexprs, knobs; JSON the compiler writes).
// tessel-bench measures an artifact only for the configuration it was built for. The recorded
// text is untrusted (an artifact is a file anyone can edit): anything malformed is a reason,
// never an exception.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_BUILDINFO_H
#define TESSEL_AUTOTUNE_BUILDINFO_H

#include "kernels/Zoo.h"

#include <string>

namespace tessel::autotune {

/// Why the build info `info` is not `point` of `kernel` at `shape` ("" when it is): entry,
/// constexprs and the point's knobs must all agree.
std::string BuildInfoMismatch(const std::string &info, const zoo::Kernel &kernel,
                              const Point &point, const zoo::Shape &shape);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_BUILDINFO_H
