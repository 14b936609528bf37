//===- stats_test.cc - the Mann-Whitney U test -*- C++ -*-===//

#include "autotune/dashboard/Stats.h"

#include "gtest/gtest.h"

#include <random>

namespace {

using tessel::autotune::MannWhitneyU;
using tessel::autotune::UTest;

std::vector<double> draw(std::mt19937 &gen, size_t n, double scale) {
  std::lognormal_distribution<double> d(std::log(1e-3), 0.05); // run times: skewed, positive
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(d(gen) * scale);
  return out;
}

TEST(UTest, SeparatedSamplesHaveTheSmallestExactP) {
  // Every value of one side below every value of the other: U = 0, and of the C(10, 5) = 252
  // equally likely arrangements one is this extreme on each side: p = 2 / 252.
  UTest t = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.05);
  ASSERT_TRUE(t.enoughSamples);
  EXPECT_TRUE(t.exact);
  EXPECT_EQ(t.u, 0);
  EXPECT_NEAR(t.pValue, 2.0 / 252, 1e-12);
  // Symmetric in the sides.
  EXPECT_NEAR(MannWhitneyU({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}, 0.05).pValue, 2.0 / 252, 1e-12);
  // Interleaved perfectly: no evidence at all.
  EXPECT_GT(MannWhitneyU({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}, 0.05).pValue, 0.5);
}

TEST(UTest, AgreesWithSciPy) {
  // Reference values from SciPy 1.10 (scipy.stats.mannwhitneyu, two-sided), an independent
  // implementation: the exact distribution without ties ...
  UTest exact = MannWhitneyU({1.2, 3.4, 2.2, 5.1, 4.4, 6.0, 2.9, 3.3},
                             {4.1, 5.5, 6.2, 3.9, 7.1, 5.8, 6.6, 4.9, 5.0}, 0.05);
  EXPECT_TRUE(exact.exact);
  EXPECT_EQ(exact.u, 12);
  EXPECT_NEAR(exact.pValue, 0.02064993829699712, 1e-12);
  // ... and the normal approximation with the tie and continuity corrections.
  UTest normal = MannWhitneyU({1, 2, 2, 3, 3, 3, 4, 5, 5, 6, 7, 7, 8},
                              {3, 4, 4, 5, 6, 6, 7, 8, 8, 9, 9, 10}, 0.05);
  EXPECT_FALSE(normal.exact);
  EXPECT_EQ(normal.u, 36.5);
  EXPECT_NEAR(normal.pValue, 0.024835121455587517, 1e-9);
}

TEST(UTest, TooFewSamplesAreSaidNotGuessed) {
  UTest t = MannWhitneyU({1, 2, 3}, {4, 5, 6}, 0.05); // smallest possible p: 2/20 = 0.1
  EXPECT_FALSE(t.enoughSamples);
  EXPECT_NE(t.why.find("3 against 3"), std::string::npos) << t.why;
  EXPECT_FALSE(MannWhitneyU({1}, {2, 3, 4, 5, 6, 7, 8, 9}, 0.05).enoughSamples);
  EXPECT_FALSE(MannWhitneyU({}, {2, 3, 4, 5, 6, 7, 8, 9}, 0.05).enoughSamples);
  // 4 against 4: 2/70 < 0.05, enough.
  EXPECT_TRUE(MannWhitneyU({1, 2, 3, 4}, {5, 6, 7, 8}, 0.05).enoughSamples);
}

TEST(UTest, AShiftIsDetectedAndNoShiftRarelyIs) {
  std::mt19937 gen(std::random_device{}());
  int detected = 0, falseAlarms = 0;
  const int trials = 200;
  for (int i = 0; i < trials; ++i) {
    // 10% slower: detected nearly always with 60 samples of 5% noise.
    detected += MannWhitneyU(draw(gen, 60, 1.0), draw(gen, 60, 1.10), 0.05).pValue < 0.05;
    // Same distribution: flagged at the significance level, 5% of trials on average.
    falseAlarms += MannWhitneyU(draw(gen, 60, 1.0), draw(gen, 60, 1.0), 0.05).pValue < 0.05;
  }
  EXPECT_GE(detected, trials * 95 / 100);
  EXPECT_LE(falseAlarms, 30); // expected 10; P(>= 30) is about 1e-7
}

TEST(UTest, EqualSamplesGiveNoEvidence) {
  UTest t = MannWhitneyU(std::vector<double>(10, 1e-3), std::vector<double>(10, 1e-3), 0.05);
  ASSERT_TRUE(t.enoughSamples);
  EXPECT_EQ(t.pValue, 1);
}

} // namespace
