//===- Stats.h - the Mann-Whitney U test on two samples of run times -*- C++ -*-===//
//
// Two-sided Mann-Whitney U (Wilcoxon rank-sum) test: are the times of one side systematically
// smaller or larger than the other's? Ranks with mid-ranks for ties; the p-value is exact
// (the U distribution counted by the usual recurrence) for small samples without ties and the
// normal approximation with tie and continuity corrections otherwise. Samples too small for the
// test to ever reach the significance level are said to be so, not given a p-value.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_AUTOTUNE_DASHBOARD_STATS_H
#define TESSEL_AUTOTUNE_DASHBOARD_STATS_H

#include <string>
#include <vector>

namespace tessel::autotune {

struct UTest {
  /// False when either side has too few samples for a p-value below `alpha` to be possible
  /// (e.g. 3 against 3: the smallest two-sided p is 0.1); `pValue` is then meaningless.
  bool enoughSamples = false;
  double u = 0;      ///< U of the first sample
  double pValue = 1; ///< two-sided
  bool exact = false;
  std::string why; ///< when !enoughSamples: what was missing
};

UTest MannWhitneyU(const std::vector<double> &a, const std::vector<double> &b, double alpha);

/// The median (of an even count: the mean of the middle two); 0 for none.
double Median(std::vector<double> values);

} // namespace tessel::autotune

#endif // TESSEL_AUTOTUNE_DASHBOARD_STATS_H
