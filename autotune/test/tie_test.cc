//===- tie_test.cc - the bundle's choice among equally fast configurations is stable -===//
//
// Recorded-timing style records of one group, re-drawn with fresh noise and shuffled each
// trial: configurations of the same speed tie and the tie rule picks the same one every time
// (fewest warps, then stages, then the smaller tiles, then the text); a really slower one is
// never in the tie set, whatever the noise.

#include "autotune/Report.h"
#include "autotune/space/Space.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>
#include <set>

namespace {

using tessel::autotune::Record;
using tessel::autotune::Summarize;
using tessel::autotune::TieRule;

struct Config {
  const char *json;
  double seconds; ///< its true median
};

// Four configurations of one speed and two slower ones; the rule's choice is the third.
const Config kConfigs[] = {
    {R"({"BLOCK_M":128,"BLOCK_N":128,"knob.num_stages":3,"knob.num_warps":8})", 1.0e-3},
    {R"({"BLOCK_M":128,"BLOCK_N":128,"knob.num_stages":3,"knob.num_warps":4})", 1.0e-3},
    {R"({"BLOCK_M":64,"BLOCK_N":128,"knob.num_stages":2,"knob.num_warps":4})", 1.0e-3},
    {R"({"BLOCK_M":128,"BLOCK_N":128,"knob.num_stages":2,"knob.num_warps":4})", 1.0e-3},
    {R"({"BLOCK_M":32,"BLOCK_N":32,"knob.num_stages":1,"knob.num_warps":1})", 1.2e-3},
    {R"({"BLOCK_M":256,"BLOCK_N":256,"knob.num_stages":4,"knob.num_warps":16})", 1.5e-3},
};

/// One sweep's records: every configuration measured 40 times with fresh noise of at most
/// `noise` (relative), in a shuffled order.
std::vector<Record> sweep(std::mt19937_64 &rng, double noise) {
  std::vector<Record> out;
  std::uniform_real_distribution<double> jitter(-noise, noise);
  for (const Config &c : kConfigs) {
    Record r;
    r.kernel = "gemm";
    r.dtype = "f32";
    r.shape = {{"M", 512}, {"N", 512}, {"K", 512}};
    r.status = "ok";
    auto point = tessel::autotune::ParsePoint(c.json);
    EXPECT_TRUE(point.ok()) << c.json;
    r.configJson = tessel::autotune::PointJson(*point);
    for (int i = 0; i < 40; ++i)
      r.samples.push_back(c.seconds * (1 + jitter(rng)));
    std::vector<double> sorted = r.samples;
    std::sort(sorted.begin(), sorted.end());
    r.medianSeconds = (sorted[19] + sorted[20]) / 2;
    out.push_back(r);
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

std::string canonical(const char *json) {
  return tessel::autotune::PointJson(*tessel::autotune::ParsePoint(json));
}

TEST(Ties, SameWinnerAndTieSetFromReNoisedShuffledRecords) {
  std::mt19937_64 rng(std::random_device{}());
  const std::set<std::string> expectedTies = {canonical(kConfigs[0].json), canonical(kConfigs[1].json),
                                              canonical(kConfigs[2].json), canonical(kConfigs[3].json)};
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Record> records = sweep(rng, 0.003);
    auto groups = Summarize(records, TieRule{/*percent=*/2});
    ASSERT_EQ(groups.size(), 1u);
    ASSERT_NE(groups[0].best, nullptr);
    EXPECT_EQ(groups[0].best->configJson, canonical(kConfigs[2].json)) << "trial " << trial;
    std::set<std::string> ties;
    for (const Record *r : groups[0].ties)
      ties.insert(r->configJson);
    EXPECT_EQ(ties, expectedTies) << "trial " << trial;
    EXPECT_EQ(groups[0].ties.front(), groups[0].best);
  }
}

TEST(Ties, TheUTestNeverTiesARealDifference) {
  std::mt19937_64 rng(std::random_device{}());
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Record> records = sweep(rng, 0.003);
    auto groups = Summarize(records, TieRule{});
    ASSERT_EQ(groups.size(), 1u);
    for (const Record *r : groups[0].ties) {
      EXPECT_NE(r->configJson, canonical(kConfigs[4].json)) << "a 20% slower config tied";
      EXPECT_NE(r->configJson, canonical(kConfigs[5].json)) << "a 50% slower config tied";
    }
    // The winner is one of the equally fast four, the rule's first among those tied.
    EXPECT_LT(groups[0].best->medianSeconds, 1.1e-3);
  }
}

TEST(Ties, NoTieWithoutEqualSpeed) {
  std::mt19937_64 rng(std::random_device{}());
  std::vector<Record> records = sweep(rng, 0.003);
  records.erase(std::remove_if(records.begin(), records.end(),
                               [](const Record &r) { return r.medianSeconds < 1.1e-3 &&
                                                            r.configJson != canonical(kConfigs[3].json); }),
                records.end());
  auto groups = Summarize(records, TieRule{/*percent=*/2});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].ties.size(), 1u);
  EXPECT_EQ(groups[0].best->configJson, canonical(kConfigs[3].json));
}

} // namespace
