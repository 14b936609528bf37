//===- Space.h - configuration spaces and sharding -*- C++ -*-===//
//
// A space is a set of named parameters, each with its candidate values (kernel constexprs such
// as BLOCK_M, lowering knobs such as the CPU register tile), and constraints that prune
// invalid points before anything is compiled. Points are enumerated in one deterministic order,
// so `--shard=I/N` splits them identically on every machine. A leaf (absl and JSON
// only): the kernel zoo's specs use it without depending on the autotuner; the search
// strategies (autotune/search/) choose which points to evaluate.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_SPACE_SPACE_H
#define TESSEL_AUTOTUNE_SPACE_SPACE_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tessel::autotune {

using Point = std::map<std::string, int64_t>;

struct Space {
  std::vector<std::pair<std::string, std::vector<int64_t>>> params;
  /// Each returns an empty string when `p` is valid, else why it is not.
  std::vector<std::function<std::string(const Point &)>> constraints;

  /// Every valid point, in a fixed order (the parameters' order, last varying fastest); a
  /// space without parameters has one point, the empty configuration.
  std::vector<Point> Enumerate() const;
  /// The values of parameter `name`, or null where the space has no such parameter.
  const std::vector<int64_t> *Values(const std::string &name) const;
  /// Why `p` is invalid ("" when valid): the constraints only.
  std::string Check(const Point &p) const;
  /// Why `p` is not a point of this space ("" when it is): a parameter missing, a name that is
  /// not a parameter, a value not among the parameter's values, or a constraint it breaks.
  std::string Validate(const Point &p) const;
};

/// Parses "I/N" (0 <= I < N).
absl::StatusOr<std::pair<int, int>> ParseShard(const std::string &text);

/// A configuration from its JSON text (records, bundle entries, tessel-bench's --config): an
/// object whose values are all integers.
absl::StatusOr<Point> ParsePoint(const std::string &json);
/// The JSON text of a configuration (keys sorted): what ParsePoint reads back.
std::string PointJson(const Point &p);
/// The points of shard `index` of `count`: every count-th point of the fixed order.
std::vector<Point> Shard(const std::vector<Point> &points, int index, int count);

/// Some parameters restricted to some of their values: "NAME=V|V,NAME=V" (sweep --where).
using Where = std::map<std::string, std::set<int64_t>>;
/// Parses "NAME=V|V,NAME=V": names once each, values integers.
absl::StatusOr<Where> ParseWhere(const std::string &text);
/// The points (of `space`) whose every restricted parameter has one of its listed values; an
/// error names a restricted parameter `space` does not have, or a value it never takes.
absl::StatusOr<std::vector<Point>> Restrict(const Space &space, const std::vector<Point> &points,
                                            const Where &where);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_SPACE_SPACE_H
