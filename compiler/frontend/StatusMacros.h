//===- StatusMacros.h - early returns that propagate an absl::Status -*- C++ -*-===//
//
// The frontend reports every user error as an absl::Status (the lexer, the parser and the
// generator alike): a fallible function returns absl::Status or absl::StatusOr<T>, and its
// callers pass a failure up with these two macros.
//
//   RETURN_IF_ERROR(exec(block));             // an absl::Status-returning call
//   ASSIGN_OR_RETURN(V value, eval(expr));    // declares `value` from an absl::StatusOr<V>
//   ASSIGN_OR_RETURN(value, eval(expr));      // assigns an existing variable
//
// ASSIGN_OR_RETURN expands to several statements: not the body of an unbraced if/for. Its
// left-hand side must not contain a top-level comma (write `auto` rather than
// `std::pair<V, V>`, then unpack on the next line).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_STATUSMACROS_H
#define TESSEL_COMPILER_FRONTEND_STATUSMACROS_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <utility>

#define TESSEL_STATUS_CONCAT_INNER(a, b) a##b
#define TESSEL_STATUS_CONCAT(a, b) TESSEL_STATUS_CONCAT_INNER(a, b)

/// Returns the status of `expr` (an absl::Status) from the enclosing function when it fails.
#define RETURN_IF_ERROR(...)                                                                   \
  do {                                                                                         \
    absl::Status tessel_status_ = (__VA_ARGS__);                                               \
    if (!tessel_status_.ok())                                                                  \
      return tessel_status_;                                                                   \
  } while (false)

/// Evaluates `expr` (an absl::StatusOr<T>); on failure returns its status from the enclosing
/// function, else moves its value into `lhs` (a declaration or an lvalue).
#define ASSIGN_OR_RETURN(lhs, ...)                                                             \
  TESSEL_ASSIGN_OR_RETURN_IMPL(TESSEL_STATUS_CONCAT(tessel_statusor_, __COUNTER__), lhs,       \
                               __VA_ARGS__)

#define TESSEL_ASSIGN_OR_RETURN_IMPL(tmp, lhs, ...)                                            \
  auto tmp = (__VA_ARGS__);                                                                    \
  if (!tmp.ok())                                                                               \
    return std::move(tmp).status();                                                            \
  lhs = *std::move(tmp)

#endif // TESSEL_COMPILER_FRONTEND_STATUSMACROS_H
