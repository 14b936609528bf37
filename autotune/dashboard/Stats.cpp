//===- Stats.cpp - the Mann-Whitney U test on two samples of run times -*- C++ -*-===//

#include "autotune/dashboard/Stats.h"

#include <algorithm>
#include <cmath>

namespace tessel::autotune {
namespace {

/// Above these sizes (or with ties) the normal approximation is used.
constexpr size_t kExactMaxSmaller = 25, kExactMaxTotal = 80;

/// P(U <= u) for samples of n and m without ties: the number of arrangements with U = k,
/// f(n, m, k) = f(n - 1, m, k - m) + f(n, m - 1, k), over C(n + m, n).
double exactCdf(size_t n, size_t m, double u) {
  size_t maxU = n * m;
  // f[j][k] for the current i (first-sample size), j = 0..m.
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(maxU + 1, 0.0)), cur = prev;
  for (size_t j = 0; j <= m; ++j)
    prev[j][0] = 1; // i = 0: one arrangement, U = 0
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 0; j <= m; ++j) {
      std::fill(cur[j].begin(), cur[j].end(), 0.0);
      for (size_t k = 0; k <= i * j; ++k) {
        double v = k >= j ? prev[j][k - j] : 0.0; // the largest value is in the first sample
        if (j > 0)
          v += cur[j - 1][k]; // ... or in the second
        cur[j][k] = v;
      }
    }
    std::swap(prev, cur);
  }
  double total = 0, below = 0;
  for (size_t k = 0; k <= maxU; ++k) {
    total += prev[m][k];
    if (double(k) <= u + 1e-9)
      below += prev[m][k];
  }
  return below / total;
}

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

} // namespace

double Median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

UTest MannWhitneyU(const std::vector<double> &a, const std::vector<double> &b, double alpha) {
  UTest t;
  size_t n = a.size(), m = b.size();
  // The smallest two-sided p-value any outcome can give is 2 / C(n + m, n).
  double arrangements = 1;
  for (size_t i = 1; i <= std::min(n, m); ++i)
    arrangements = arrangements * double(n + m - std::min(n, m) + i) / double(i);
  if (n < 2 || m < 2 || 2 / arrangements >= alpha) {
    t.why = std::to_string(n) + " against " + std::to_string(m) +
            " samples cannot show a difference at p < " + std::to_string(alpha).substr(0, 5);
    return t;
  }
  t.enoughSamples = true;
  // Ranks of the pooled samples, ties sharing their mean rank.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a)
    pooled.push_back({x, 0});
  for (double x : b)
    pooled.push_back({x, 1});
  std::sort(pooled.begin(), pooled.end());
  double rankSumA = 0, tieTerm = 0;
  bool ties = false;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first)
      ++j;
    double rank = 0.5 * double(i + 1 + j); // mean of ranks i+1 .. j
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second == 0)
        rankSumA += rank;
    double count = double(j - i);
    if (j - i > 1) {
      ties = true;
      tieTerm += count * count * count - count;
    }
    i = j;
  }
  t.u = rankSumA - double(n) * double(n + 1) / 2;
  double mean = double(n) * double(m) / 2;
  if (!ties && std::min(n, m) <= kExactMaxSmaller && n + m <= kExactMaxTotal) {
    t.exact = true;
    double lower = std::min(t.u, double(n * m) - t.u);
    t.pValue = std::min(1.0, 2 * exactCdf(n, m, lower));
    return t;
  }
  double total = double(n + m);
  double variance = double(n) * double(m) / 12 * ((total + 1) - tieTerm / (total * (total - 1)));
  if (variance <= 0) { // every value equal: no evidence of a difference
    t.pValue = 1;
    return t;
  }
  double z = (std::fabs(t.u - mean) - 0.5) / std::sqrt(variance);
  t.pValue = std::min(1.0, 2 * (1 - normalCdf(std::max(z, 0.0))));
  return t;
}

} // namespace tessel::autotune
