//===- Internal.h - helpers the evaluator and its built-ins share (internal) -*- C++ -*-===//

#ifndef TESSEL_RUNTIME_EXPR_INTERNAL_H
#define TESSEL_RUNTIME_EXPR_INTERNAL_H

#include "runtime/expr/Value.h"

#include "absl/status/statusor.h"

#include <string>
#include <vector>

namespace tessel::expr::internal {

/// Nesting of brackets and expressions, in tokens and in the parser.
inline constexpr int kMaxNesting = 200;
/// Elements of one list (range(), comprehensions, list arithmetic).
inline constexpr int64_t kMaxItems = 1 << 20;

/// "file:line:col: error: message" as an InvalidArgument status.
absl::Status Error(const Loc &loc, const std::string &message);
/// The items of a tuple, list, dict (its keys) or string; an error for anything else.
absl::StatusOr<std::vector<Value>> Iterate(const Value &v, const Loc &loc);
/// A binary operator on two values, with Python's semantics (overflow an error).
absl::StatusOr<Value> Arith(const std::string &op, const Value &a, const Value &b,
                            const Loc &loc);
/// A comparison operator (< <= > >= == != in, not in, is, is not).
absl::StatusOr<bool> Compare(const std::string &op, const Value &a, const Value &b,
                             const Loc &loc);

} // namespace tessel::expr::internal

#endif // TESSEL_RUNTIME_EXPR_INTERNAL_H
