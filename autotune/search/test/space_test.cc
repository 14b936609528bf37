//===- space_test.cc - spaces, constraints, shards, search strategies -*- C++ -*-===//

#include "autotune/search/Search.h"

#include "gtest/gtest.h"

#include <algorithm>

#include <cmath>
#include <limits>
#include <random>
#include <set>

namespace {

using namespace tessel::autotune;

/// A GEMM kernel's space: block sizes, group size, and the CPU register tile, with the
/// constraints the zoo spec states (the tile fits in the block; the A and B tiles of one step
/// fit in 64 KiB of f32).
Space matmulSpace() {
  Space s;
  s.params = {{"BLOCK_M", {16, 32, 64, 128}}, {"BLOCK_N", {16, 32, 64, 128}},
              {"BLOCK_K", {16, 32, 64, 128}}, {"GROUP_M", {1, 4, 8}},
              {"TILE_M", {1, 2, 4, 8}},       {"TILE_N", {16, 32, 64}}};
  s.constraints.push_back([](const Point &p) {
    return p.at("TILE_M") <= p.at("BLOCK_M") && p.at("TILE_N") <= p.at("BLOCK_N")
               ? ""
               : "the register tile is larger than the block";
  });
  s.constraints.push_back([](const Point &p) {
    return (p.at("BLOCK_M") + p.at("BLOCK_N")) * p.at("BLOCK_K") * 4 <= 64 * 1024
               ? ""
               : "the A and B tiles exceed 64 KiB";
  });
  return s;
}

/// A deterministic stand-in for measured time on that space (a roofline-shaped model:
/// reuse grows with the block, register pressure and tile-buffer size cost beyond a point).
double modelTime(const Point &p) {
  double bm = p.at("BLOCK_M"), bn = p.at("BLOCK_N"), bk = p.at("BLOCK_K");
  double tm = p.at("TILE_M"), tn = p.at("TILE_N");
  double reuse = 1.0 / bm + 1.0 / bn;
  double regs = tm * tn / 16.0; // vector registers of accumulators
  double spill = regs > 24 ? (regs - 24) * 0.05 : 0;
  double perFma = 1.0 / std::min(4.0, tm * tn / 32.0 + 0.5);
  double cache = (bm + bn) * bk * 4 > 48 * 1024 ? 0.3 : 0;
  double group = p.at("GROUP_M") == 1 ? 0.05 : 0;
  return 1.0 + 8 * reuse + perFma + spill + cache + group + 0.02 * std::log2(bk);
}

TEST(Space, ConstraintsPruneBeforeAnythingRuns) {
  Space s = matmulSpace();
  std::vector<Point> points = s.Enumerate();
  EXPECT_GT(points.size(), 500u);
  EXPECT_LT(points.size(), 4u * 4 * 4 * 3 * 4 * 3);
  for (const Point &p : points)
    EXPECT_EQ(s.Check(p), "");
  EXPECT_EQ(s.Check({{"BLOCK_M", 16}, {"BLOCK_N", 16}, {"BLOCK_K", 16}, {"GROUP_M", 1},
                     {"TILE_M", 1}, {"TILE_N", 32}}),
            "the register tile is larger than the block");
  EXPECT_EQ(s.Enumerate(), points); // one fixed order
}

TEST(Space, ShardsPartitionThePoints) {
  std::vector<Point> points = matmulSpace().Enumerate();
  std::set<Point> seen;
  size_t total = 0;
  for (int i = 0; i < 3; ++i) {
    for (const Point &p : Shard(points, i, 3))
      EXPECT_TRUE(seen.insert(p).second);
    total += Shard(points, i, 3).size();
  }
  EXPECT_EQ(total, points.size());
  EXPECT_EQ(seen, std::set<Point>(points.begin(), points.end()));
  EXPECT_TRUE(ParseShard("2/3").ok());
  for (const char *bad : {"3/3", "-1/3", "1/0", "x/3", "1", "1/3x"})
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
}

TEST(Space, EvolutionaryReachesTheOptimumWithAThirdOfTheEvaluations) {
  Space s = matmulSpace();
  std::vector<Point> points = s.Enumerate();
  SearchResult all = ExhaustiveSearch(points, modelTime);
  EXPECT_EQ(all.evaluations, int(points.size()));
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  int budget = int(points.size()) / 3;
  // Over several independent runs: every one within 5% of the exhaustive optimum.
  for (int run = 0; run < 10; ++run) {
    SearchResult evo = EvolutionarySearch(s, points, modelTime, budget, seed + run);
    EXPECT_LE(evo.evaluations, budget);
    EXPECT_LE(evo.bestCost, all.bestCost * 1.05) << "run " << run;
    EXPECT_EQ(s.Check(evo.best), "");
  }
  SearchResult rnd = RandomSearch(points, modelTime, budget, seed);
  EXPECT_EQ(rnd.evaluations, budget);
  // Its best is one of the points it was given, at that point's cost.
  EXPECT_DOUBLE_EQ(rnd.bestCost, modelTime(rnd.best));
  EXPECT_NE(std::find(points.begin(), points.end(), rnd.best), points.end());
}

TEST(Space, EvolutionaryBeatsRandomOnASmallBudget) {
  // With a twentieth of the space to spend, the evolutionary search's best is on average
  // closer to the optimum than random sampling's (averaged over 20 runs of each).
  Space s = matmulSpace();
  std::vector<Point> points = s.Enumerate();
  double optimum = ExhaustiveSearch(points, modelTime).bestCost;
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  int budget = int(points.size()) / 20;
  double evoGap = 0, rndGap = 0;
  for (int run = 0; run < 20; ++run) {
    evoGap += EvolutionarySearch(s, points, modelTime, budget, seed + run).bestCost / optimum - 1;
    rndGap += RandomSearch(points, modelTime, budget, seed + 1000 + run).bestCost / optimum - 1;
  }
  std::printf("mean gap to the optimum: evolutionary %.4f, random %.4f\n", evoGap / 20,
              rndGap / 20);
  EXPECT_LT(evoGap, rndGap);
}

TEST(Space, ParsePointTakesAnObjectOfIntegers) {
  auto p = ParsePoint(R"({"BLOCK_M": 64, "knob.prefetch": 1})");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, (Point{{"BLOCK_M", 64}, {"knob.prefetch", 1}}));
  for (const char *bad : {"[1, 2]", "{\"BLOCK_M\": 1.5}", "{\"BLOCK_M\": \"64\"}", "{", ""})
    EXPECT_FALSE(ParsePoint(bad).ok()) << bad;
  EXPECT_NE(std::string(ParsePoint("{\"BLOCK_M\": 1.5}").status().message()).find("'BLOCK_M'"),
            std::string::npos);
}

TEST(Space, FailuresNeverWin) {
  Space s = matmulSpace();
  std::vector<Point> points = s.Enumerate();
  auto failing = [&](const Point &p) {
    return p.at("BLOCK_M") == 128 ? std::numeric_limits<double>::infinity() : modelTime(p);
  };
  SearchResult r = ExhaustiveSearch(points, failing);
  EXPECT_NE(r.best.at("BLOCK_M"), 128);
  EXPECT_TRUE(std::isfinite(r.bestCost));
}

} // namespace
