//===- Search.h - search strategies over a configuration space -*- C++ -*-===//
//
// Which points of a space to evaluate: exhaustive, random (without repetition), and
// evolutionary (mutation and crossover of the best points so far, never evaluating a point
// twice). The sweep calls these with an objective that compiles and measures a candidate.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_SEARCH_SEARCH_H
#define TESSEL_AUTOTUNE_SEARCH_SEARCH_H

#include "autotune/space/Space.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace tessel::autotune {

/// The cost of a point (lower is better); infinity for failures.
using Objective = std::function<double(const Point &)>;

struct SearchResult {
  Point best;
  double bestCost = 0;
  int evaluations = 0;
};

SearchResult ExhaustiveSearch(const std::vector<Point> &points, const Objective &cost);
/// The points RandomSearch evaluates, in its order: at most `budget` distinct points drawn
/// uniformly with `seed` (the sweep builds them in parallel before measuring them).
std::vector<Point> RandomSample(const std::vector<Point> &points, int budget, uint64_t seed);
/// Evaluates RandomSample(points, budget, seed).
SearchResult RandomSearch(const std::vector<Point> &points, const Objective &cost, int budget,
                          uint64_t seed);
/// At most `budget` distinct points: a random first population, then children that are valid
/// and not yet evaluated: three in four an adjacent neighbour of the best point that still has
/// an unevaluated one (hill climbing), the others a crossover of two of the best points with
/// one or two parameters mutated to a neighbouring value.
SearchResult EvolutionarySearch(const Space &space, const std::vector<Point> &points,
                                const Objective &cost, int budget, uint64_t seed);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_SEARCH_SEARCH_H
