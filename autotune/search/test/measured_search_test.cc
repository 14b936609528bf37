//===- measured_search_test.cc - the searches on timings measured on a real machine -*- C++ -*-===//
//
// data/matmul_f32_measured.jsonl: the median times of every point of the zoo's matmul space
// (f32, n = 1024 and 2048), measured by `sweep --kernels=matmul --dtypes=f32 --shapes=large
// --strategy=exhaustive` on the 2-core AVX-512 development VM (the run behind the README's tuned
// table). The evolutionary search, given a third of the evaluations, must land within 5% of
// the exhaustive optimum of these real timings in at least three runs of four, and clearly more
// often than random sampling with the same budget.
//
//===----------------------------------------------------------------------===//

#include "autotune/search/Search.h"
#include "kernels/Zoo.h"
#include "runtime/Files.h"

#include "nlohmann/json.hpp"

#include "gtest/gtest.h"

#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <sstream>

namespace {

using tessel::autotune::Point;

/// Per shape ("M=..,N=..,K=.."), the measured seconds of each configuration.
std::map<std::string, std::map<Point, double>> measured() {
  std::string text;
  EXPECT_TRUE(tessel::runtime::ReadWholeFile("autotune/search/test/data/matmul_f32_measured.jsonl", text));
  std::map<std::string, std::map<Point, double>> byShape;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    absl::StatusOr<Point> p = tessel::autotune::ParsePoint(j["config"].dump());
    EXPECT_TRUE(p.ok()) << p.status();
    if (p.ok())
      byShape[j["shape"].dump()][*p] = j["median_seconds"].get<double>();
  }
  return byShape;
}

TEST(MeasuredSearch, EvolutionaryOnAThirdOfTheMatmulSpaceMostlyWithinFivePercent) {
  const tessel::zoo::Kernel *matmul = tessel::zoo::Find("matmul");
  ASSERT_NE(matmul, nullptr);
  std::vector<Point> points = matmul->cpu.space.Enumerate();
  auto data = measured();
  ASSERT_EQ(data.size(), 2u);
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  for (const auto &[shape, times] : data) {
    // Every point of the space was measured.
    ASSERT_EQ(times.size(), points.size()) << shape;
    auto cost = [&](const Point &p) {
      auto it = times.find(p);
      return it == times.end() ? std::numeric_limits<double>::infinity() : it->second;
    };
    double optimum = tessel::autotune::ExhaustiveSearch(points, cost).bestCost;
    int budget = int(points.size()) / 3, runs = 200, within = 0, randomWithin = 0;
    double evoGap = 0, rndGap = 0;
    for (int run = 0; run < runs; ++run) {
      auto evo = tessel::autotune::EvolutionarySearch(matmul->cpu.space, points, cost, budget,
                                                      seed + run);
      EXPECT_LE(evo.evaluations, budget);
      within += evo.bestCost <= optimum * 1.05;
      evoGap += evo.bestCost / optimum - 1;
      double rnd = tessel::autotune::RandomSearch(points, cost, budget, seed + 1000 + run).bestCost;
      randomWithin += rnd <= optimum * 1.05;
      rndGap += rnd / optimum - 1;
    }
    std::printf("%s: optimum %.3f ms; within 5%% in %d of %d runs (random sampling: %d), mean "
                "gap %.3f (random %.3f)\n",
                shape.c_str(), optimum * 1e3, within, runs, randomWithin, evoGap / runs,
                rndGap / runs);
    // Measured here: 94% of runs at n = 1024, 84% at 2048 (a noisy local optimum at 100 ms
    // traps the rest), against 56% and 33% for random sampling with the same budget.
    EXPECT_GE(within, runs * 3 / 4) << shape;
    EXPECT_GT(within, randomWithin + runs / 5) << shape;
  }
}

} // namespace
