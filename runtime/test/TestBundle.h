//===- TestBundle.h - vector-add bundles built for the runtime's tests -*- C++ -*-===//
//
// A CPU bundle with two vector-add entries (n = 1000 and n = 100000) compiled from the
// Triton-printed vadd, an artifact an attacker would swap in (same kernel, subtracts), and a
// run that tells which of the two was loaded. The tests link the compiler only to build these.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_TEST_TESTBUNDLE_H
#define TESSEL_RUNTIME_TEST_TESTBUNDLE_H

#include "runtime/Bundle.h"

#include "absl/status/statusor.h"

#include <functional>
#include <string>

namespace tessel::runtime::test {

/// The whole file at `path` ("" if unreadable), and the file written with `text`.
std::string read(const std::string &path);
void write(const std::string &path, const std::string &text);

/// A fresh bundle directory $TEST_TMPDIR/`name`; `edit` may change the manifest text before
/// it is written.
std::string makeBundle(const std::string &name,
                       const std::function<void(std::string &)> &edit = nullptr);

/// Replaces the first `from` in `text` by `to` (a test failure if there is none).
void replace(std::string &text, const std::string &from, const std::string &to);

/// Compiles vadd with its addition turned into a subtraction into `path`: an artifact with the
/// same kernel name and signature that computes something else (what an attacker would swap in).
std::string evilArtifact(const std::string &path);

/// Loads the bundle's n=1000 entry and runs it: true when it added (the verified artifact),
/// false when it subtracted (the swapped one); an error when it did not load.
absl::StatusOr<bool> loadsTheVerifiedKernel(const Bundle &bundle);

} // namespace tessel::runtime::test

#endif // TESSEL_RUNTIME_TEST_TESTBUNDLE_H
