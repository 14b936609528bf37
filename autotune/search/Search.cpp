//===- Search.cpp - search strategies over a configuration space -*- C++ -*-===//

#include "autotune/search/Search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

namespace tessel::autotune {

namespace {

/// Evaluates each point at most once.
class Evaluator {
public:
  explicit Evaluator(const Objective &cost) : cost_(cost) {}
  double operator()(const Point &p) {
    auto it = seen_.find(p);
    if (it != seen_.end())
      return it->second;
    double c = cost_(p);
    seen_.emplace(p, c);
    if (!result.evaluations || c < result.bestCost) {
      result.best = p;
      result.bestCost = c;
    }
    ++result.evaluations;
    return c;
  }
  bool evaluated(const Point &p) const { return seen_.count(p) != 0; }
  SearchResult result;

private:
  const Objective &cost_;
  std::map<Point, double> seen_;
};

} // namespace

SearchResult ExhaustiveSearch(const std::vector<Point> &points, const Objective &cost) {
  Evaluator eval(cost);
  for (const Point &p : points)
    eval(p);
  return eval.result;
}

std::vector<Point> RandomSample(const std::vector<Point> &points, int budget, uint64_t seed) {
  std::vector<Point> order = points;
  std::mt19937_64 gen(seed);
  std::shuffle(order.begin(), order.end(), gen);
  if (budget >= 0 && order.size() > size_t(budget))
    order.resize(size_t(budget));
  return order;
}

SearchResult RandomSearch(const std::vector<Point> &points, const Objective &cost, int budget,
                          uint64_t seed) {
  Evaluator eval(cost);
  for (const Point &p : RandomSample(points, budget, seed))
    eval(p);
  return eval.result;
}

SearchResult EvolutionarySearch(const Space &space, const std::vector<Point> &points,
                                const Objective &cost, int budget, uint64_t seed) {
  Evaluator eval(cost);
  if (points.empty() || budget <= 0)
    return eval.result;
  std::mt19937_64 gen(seed);
  std::set<Point> valid(points.begin(), points.end());
  // First population: a random tenth of the budget (at least 4 points).
  std::vector<Point> order = points;
  std::shuffle(order.begin(), order.end(), gen);
  int initial = std::max(4, budget / 10);
  std::vector<std::pair<double, Point>> population;
  for (int k = 0; k < initial && k < int(order.size()) && eval.result.evaluations < budget; ++k)
    population.push_back({eval(order[k]), order[k]});
  auto neighbour = [&](Point p) {
    // Move one parameter to an adjacent value.
    const auto &param = space.params[gen() % space.params.size()];
    const std::vector<int64_t> &values = param.second;
    auto it = std::find(values.begin(), values.end(), p[param.first]);
    size_t at = it == values.end() ? 0 : size_t(it - values.begin());
    if (gen() % 2 && at + 1 < values.size())
      ++at;
    else if (at > 0)
      --at;
    p[param.first] = values[at];
    return p;
  };
  int stale = 0;
  while (eval.result.evaluations < budget && eval.result.evaluations < int(points.size()) &&
         stale < 1000) {
    std::sort(population.begin(), population.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    size_t parents = std::max<size_t>(2, population.size() / 4);
    const Point &a = population[gen() % std::min(parents, population.size())].second;
    const Point &b = population[gen() % std::min(parents, population.size())].second;
    // Three children in four: an unevaluated neighbour (one parameter moved to an adjacent value)
    // of the best point that still has one: hill climbing that, once the best point's
    // neighbourhood is spent, goes on from the next best instead of stopping at a local optimum.
    std::vector<Point> steps;
    if (gen() % 4)
      for (size_t i = 0; i < population.size() && steps.empty(); ++i) {
        const Point &from = population[i].second;
        for (const auto &[name, values] : space.params) {
          auto it = std::find(values.begin(), values.end(), from.at(name));
          for (int d : {-1, 1}) {
            long at = long(it - values.begin()) + d;
            if (it == values.end() || at < 0 || at >= long(values.size()))
              continue;
            Point step = from;
            step[name] = values[size_t(at)];
            if (valid.count(step) && !eval.evaluated(step))
              steps.push_back(step);
          }
        }
      }
    Point child;
    if (!steps.empty()) {
      child = steps[gen() % steps.size()];
    } else {
      for (const auto &param : space.params)
        child[param.first] = gen() % 2 ? a.at(param.first) : b.at(param.first);
      for (int m = 0, mutations = 1 + int(gen() % 2); m < mutations; ++m)
        child = neighbour(child);
    }
    if (!valid.count(child) || eval.evaluated(child)) {
      ++stale;
      continue;
    }
    stale = 0;
    population.push_back({eval(child), child});
  }
  // Out of new neighbours: spend what is left of the budget at random.
  for (const Point &p : order) {
    if (eval.result.evaluations >= budget)
      break;
    if (!eval.evaluated(p))
      eval(p);
  }
  return eval.result;
}

} // namespace tessel::autotune
