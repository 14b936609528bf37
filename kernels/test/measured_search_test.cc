//===- measured_search_test.cc - the searches on timings measured on a real machine -*- C++ -*-===//
//
// data/matmul_f32_measured.jsonl: the median times of every point of the zoo's matmul space
// (f32, n = 1024 and 2048), measured by `sweep --kernels=matmul --dtypes=f32 --shapes=large
// --strategy=exhaustive` on the 2-core AVX-512 development VM (the run behind the README's tuned
// table). The evolutionary search, given a third of the evaluations, must land within 5% of
// the exhaustive optimum of these real timings in at least three runs of four, and clearly more
// often than random sampling with the same budget.
//
// data/matmul_bf16_gpu_measured.jsonl: every point of the zoo's matmul space for cuda (bf16,
// 2000 x 1500 x 1000: blocks, K step, num_warps, num_stages), measured once on an H200 by
// `sweep --target=cuda:sm_90 --build-only --kernels=matmul --dtypes=bf16 --strategy=exhaustive`,
// a pack's run and `sweep --ingest` (the records reduced to shape, config and median, or
// the error of a candidate that needs more shared memory than a block has: no time). Replayed
// here, the evolutionary search with a third of the evaluations must land within 5% of the
// exhaustive optimum in at least 90% of runs. data/matmul_bf16_sm90a_measured.jsonl: the same
// space built for sm_90a (wgmma, its groups in flight across K steps), measured on an H200 by
// `sweep --target=cuda:sm_90a --build-only --kernels=matmul --dtypes=bf16 --strategy=exhaustive
// --shard=I/2` (two calls), with the same bar. Both tables predate the knobs warp_m (the
// compiler's own grid of warps, warp_m 0) and persistent (one block a program, 0): they are
// replayed over the part of the space with both at 0, the points they hold.
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

/// Per shape ("M=..,N=..,K=.."), the measured seconds of each configuration (infinite for one
/// that did not compile or run: a record without a median), with `defaults` for the
/// parameters the records do not name (knobs added to the space since).
std::map<std::string, std::map<Point, double>> measured(const std::string &path,
                                                        const Point &defaults = {}) {
  std::string text;
  EXPECT_TRUE(tessel::runtime::ReadWholeFile(path, text)) << path;
  std::map<std::string, std::map<Point, double>> byShape;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    absl::StatusOr<Point> p = tessel::autotune::ParsePoint(j["config"].dump());
    EXPECT_TRUE(p.ok()) << p.status();
    if (p.ok())
      p->insert(defaults.begin(), defaults.end());
    if (p.ok())
      byShape[j["shape"].dump()][*p] = j.contains("median_seconds")
                                           ? j["median_seconds"].get<double>()
                                           : std::numeric_limits<double>::infinity();
  }
  return byShape;
}

/// `runs` evolutionary searches and as many random samplings, each with a third of the
/// space's evaluations, over measured times: how often each lands within 5% of the exhaustive
/// optimum, and their mean gaps to it.
struct Replayed {
  double optimum = 0;
  int within = 0, randomWithin = 0;
  double evoGap = 0, rndGap = 0;
};
Replayed replay(const tessel::autotune::Space &space, const std::vector<Point> &points,
                const std::map<Point, double> &times, int runs, unsigned seed) {
  auto cost = [&](const Point &p) {
    auto it = times.find(p);
    return it == times.end() ? std::numeric_limits<double>::infinity() : it->second;
  };
  Replayed r;
  r.optimum = tessel::autotune::ExhaustiveSearch(points, cost).bestCost;
  int budget = int(points.size()) / 3;
  for (int run = 0; run < runs; ++run) {
    auto evo = tessel::autotune::EvolutionarySearch(space, points, cost, budget, seed + run);
    EXPECT_LE(evo.evaluations, budget);
    r.within += evo.bestCost <= r.optimum * 1.05;
    r.evoGap += (evo.bestCost / r.optimum - 1) / runs;
    double rnd = tessel::autotune::RandomSearch(points, cost, budget, seed + 1000 + run).bestCost;
    r.randomWithin += rnd <= r.optimum * 1.05;
    r.rndGap += (rnd / r.optimum - 1) / runs;
  }
  return r;
}

TEST(MeasuredSearch, EvolutionaryOnAThirdOfTheMatmulSpaceMostlyWithinFivePercent) {
  const tessel::zoo::Kernel *matmul = tessel::zoo::Find("matmul");
  ASSERT_NE(matmul, nullptr);
  // The space as it was measured: the register tile's columns were 32 or 64 then (16, for
  // CPUs without AVX-512, came later).
  tessel::autotune::Space space = matmul->cpu.space;
  for (auto &[name, values] : space.params)
    if (name == "knob.tile_n")
      values = {32, 64};
  std::vector<Point> points = space.Enumerate();
  auto data = measured("kernels/test/data/matmul_f32_measured.jsonl");
  ASSERT_EQ(data.size(), 2u);
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  for (const auto &[shape, times] : data) {
    // Every point of the space was measured.
    ASSERT_EQ(times.size(), points.size()) << shape;
    int runs = 200;
    Replayed r = replay(space, points, times, runs, seed);
    std::printf("%s: optimum %.3f ms; within 5%% in %d of %d runs (random sampling: %d), mean "
                "gap %.3f (random %.3f)\n",
                shape.c_str(), r.optimum * 1e3, r.within, runs, r.randomWithin, r.evoGap,
                r.rndGap);
    // Measured here: 94% of runs at n = 1024, 84% at 2048 (a noisy local optimum at 100 ms
    // traps the rest), against 56% and 33% for random sampling with the same budget.
    EXPECT_GE(r.within, runs * 3 / 4) << shape;
    EXPECT_GT(r.within, r.randomWithin + runs / 5) << shape;
  }
}

TEST(MeasuredSearch, EvolutionaryOnAThirdOfTheGpuMatmulSpaceWithinFivePercent) {
  const tessel::zoo::Kernel *matmul = tessel::zoo::Find("matmul");
  ASSERT_NE(matmul, nullptr);
  tessel::autotune::Space space = matmul->gpu.space;
  for (auto &[name, values] : space.params)
    if (name == "knob.warp_m" || name == "knob.persistent")
      values = {0};
  std::vector<Point> points = space.Enumerate();
  unsigned seed = std::random_device{}();
  std::printf("random seed %u\n", seed);
  for (const char *table : {"kernels/test/data/matmul_bf16_gpu_measured.jsonl",
                            "kernels/test/data/matmul_bf16_sm90a_measured.jsonl"}) {
  auto data = measured(table, {{"knob.warp_m", 0}, {"knob.persistent", 0}});
  ASSERT_EQ(data.size(), 1u) << table;
  for (const auto &[shape, times] : data) {
    // Every point of the space is in the table (measured, or failed to compile).
    ASSERT_EQ(times.size(), points.size()) << shape;
    int measuredPoints = 0;
    for (const auto &[p, t] : times)
      measuredPoints += t < std::numeric_limits<double>::infinity();
    ASSERT_GT(measuredPoints, int(points.size()) / 2) << shape;
    // Many runs: the bar (90%) is close to what the search reaches (measured: 93 to 95% over
    // 1000 runs; random sampling 53 to 54%).
    int runs = 1000;
    Replayed r = replay(space, points, times, runs, seed);
    std::printf("%s %s: %d points (%d measured), optimum %.4f ms; within 5%% in %d of %d runs "
                "(random sampling: %d)\n",
                table, shape.c_str(), int(points.size()), measuredPoints, r.optimum * 1e3,
                r.within, runs, r.randomWithin);
    EXPECT_GE(r.within, runs * 9 / 10) << table << " " << shape;
  }
  }
}

} // namespace
