//===- Space.cpp - configuration spaces and sharding -*- C++ -*-===//

#include "autotune/space/Space.h"

#include "runtime/target/JsonDepth.h"

#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace tessel::autotune {

std::string Space::Check(const Point &p) const {
  for (const auto &c : constraints)
    if (std::string why = c(p); !why.empty())
      return why;
  return "";
}

const std::vector<int64_t> *Space::Values(const std::string &name) const {
  auto param = std::find_if(params.begin(), params.end(),
                            [&](const auto &p) { return p.first == name; });
  return param == params.end() ? nullptr : &param->second;
}

std::string Space::Validate(const Point &p) const {
  for (const auto &[name, values] : params) {
    auto it = p.find(name);
    if (it == p.end())
      return "the configuration lacks " + name;
    if (std::find(values.begin(), values.end(), it->second) == values.end()) {
      std::string allowed;
      for (int64_t v : values)
        allowed += (allowed.empty() ? "" : ", ") + std::to_string(v);
      return name + " = " + std::to_string(it->second) + " is not one of its values (" + allowed +
             ")";
    }
  }
  for (const auto &[name, value] : p)
    if (!Values(name))
      return name + " is not a parameter of this kernel's space";
  return Check(p);
}

std::vector<Point> Space::Enumerate() const {
  std::vector<Point> out;
  if (params.empty()) // nothing to vary: one configuration, the empty one
    return Check(Point()).empty() ? std::vector<Point>{Point()} : out;
  std::vector<size_t> idx(params.size(), 0);
  while (true) {
    Point p;
    for (size_t k = 0; k < params.size(); ++k) {
      if (params[k].second.empty())
        return out;
      p[params[k].first] = params[k].second[idx[k]];
    }
    if (Check(p).empty())
      out.push_back(p);
    size_t k = params.size();
    while (k > 0) {
      --k;
      if (++idx[k] < params[k].second.size())
        break;
      idx[k] = 0;
      if (k == 0)
        return out;
    }
  }
}

absl::StatusOr<std::pair<int, int>> ParseShard(const std::string &text) {
  size_t slash = text.find('/');
  if (slash == std::string::npos)
    return absl::InvalidArgumentError("--shard takes I/N, got '" + text + "'");
  char *end = nullptr;
  long i = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() + slash)
    return absl::InvalidArgumentError("--shard takes I/N, got '" + text + "'");
  long n = std::strtol(text.c_str() + slash + 1, &end, 10);
  if (*end != 0 || n <= 0 || i < 0 || i >= n || n > 1000000)
    return absl::InvalidArgumentError("--shard takes I/N with 0 <= I < N, got '" + text + "'");
  return std::make_pair(int(i), int(n));
}

absl::StatusOr<Point> ParsePoint(const std::string &json) {
  if (std::string why = JsonNestingProblem(json, 2); !why.empty())
    return absl::InvalidArgumentError("a configuration is a flat JSON object: " + why);
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object())
    return absl::InvalidArgumentError("a configuration is a JSON object, got '" + json + "'");
  Point p;
  for (auto it = parsed.begin(); it != parsed.end(); ++it) {
    if (!it.value().is_number_integer())
      return absl::InvalidArgumentError("configuration values are integers; '" + it.key() +
                                        "' is " + it.value().dump());
    p[it.key()] = it.value().get<int64_t>();
  }
  return p;
}

std::string PointJson(const Point &p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto &[k, v] : p)
    j[k] = v;
  return j.dump();
}

absl::StatusOr<Where> ParseWhere(const std::string &text) {
  Where where;
  auto bad = [&](const std::string &why) {
    return absl::InvalidArgumentError("--where takes NAME=V|V,NAME=V (" + why + "), got '" + text +
                                      "'");
  };
  for (absl::string_view term : absl::StrSplit(text, ',')) {
    size_t eq = term.find('=');
    if (eq == absl::string_view::npos || eq == 0 || eq + 1 == term.size())
      return bad("'" + std::string(term) + "' is not NAME=VALUES");
    std::string name(term.substr(0, eq));
    if (where.count(name))
      return bad(name + " is restricted twice");
    std::set<int64_t> &values = where[name];
    for (absl::string_view item : absl::StrSplit(term.substr(eq + 1), '|')) {
      std::string value(item);
      char *end = nullptr;
      errno = 0;
      long long x = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != 0 || errno == ERANGE)
        return bad("'" + value + "' is not an integer");
      values.insert(int64_t(x));
    }
  }
  return where;
}

absl::StatusOr<std::vector<Point>> Restrict(const Space &space, const std::vector<Point> &points,
                                            const Where &where) {
  for (const auto &[name, values] : where) {
    const std::vector<int64_t> *allowed = space.Values(name);
    if (!allowed)
      return absl::InvalidArgumentError("--where: the space has no parameter '" + name + "'");
    for (int64_t value : values)
      if (std::find(allowed->begin(), allowed->end(), value) == allowed->end())
        return absl::InvalidArgumentError("--where: " + name + " never takes " +
                                          std::to_string(value) + " in this space");
  }
  std::vector<Point> out;
  for (const Point &p : points) {
    bool keep = true;
    for (const auto &[name, values] : where) {
      auto it = p.find(name);
      keep &= it != p.end() && values.count(it->second);
    }
    if (keep)
      out.push_back(p);
  }
  return out;
}

std::vector<Point> Shard(const std::vector<Point> &points, int index, int count) {
  std::vector<Point> out;
  for (size_t k = index; k < points.size(); k += count)
    out.push_back(points[k]);
  return out;
}

} // namespace tessel::autotune
