//===- Attention.cpp - the C++ reference of the zoo's fused attention forward -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

/// softmax(Q K^T / sqrt(D)) V (causal: keys up to the query's position) in double for the
/// query rows referenceRows picks, over the host's threads. Probabilities are rounded to the
/// dtype before the second product, and the output too (bf16 keeps 8 bits of mantissa, f16 11).
absl::Status CheckAttention(const Tensors &t, const Shape &s, const std::string &dtype,
                            uint64_t seed) {
  int64_t z = s.at("Z"), h = s.at("H"), n = s.at("N_CTX"), d = s.at("D");
  bool causal = s.at("CAUSAL") != 0;
  std::vector<float> q = floats(t.at("Q")), k = floats(t.at("K")), v = floats(t.at("V"));
  std::mt19937_64 gen(seed);
  std::vector<int64_t> rows = referenceRows(z * h * n, n, double(n) * d * (causal ? 1 : 2), gen);
  std::vector<double> want(rows.size() * size_t(d), 0.0);
  double scale = 1.0 / std::sqrt(double(d));
  parallelRows(rows.size(), [&](size_t begin, size_t end) {
    std::vector<double> p(static_cast<size_t>(n)), o(static_cast<size_t>(d));
    for (size_t c = begin; c < end; ++c) {
      int64_t zh = rows[c] / n, i = rows[c] % n;
      const float *qi = &q[size_t((zh * n + i) * d)];
      int64_t last = causal ? i : n - 1;
      double m = -INFINITY, sum = 0;
      for (int64_t j = 0; j <= last; ++j) {
        const float *kj = &k[size_t((zh * n + j) * d)];
        double dot = 0;
        for (int64_t e = 0; e < d; ++e)
          dot += double(qi[e]) * kj[e];
        p[size_t(j)] = dot * scale;
        m = std::max(m, p[size_t(j)]);
      }
      std::fill(o.begin(), o.end(), 0.0);
      for (int64_t j = 0; j <= last; ++j) {
        sum += (p[size_t(j)] = std::exp(p[size_t(j)] - m));
        const float *vj = &v[size_t((zh * n + j) * d)];
        for (int64_t e = 0; e < d; ++e)
          o[size_t(e)] += p[size_t(j)] * vj[e];
      }
      for (int64_t e = 0; e < d; ++e)
        want[c * size_t(d) + size_t(e)] = o[size_t(e)] / sum;
    }
  });
  double absolute = dtype == "bf16" ? 8e-3 : 4e-3;
  return checkReferenceRows("O", t.at("Out"), rows, d, want, [absolute](double w) {
    return absolute + 1e-2 * std::fabs(w);
  });
}

} // namespace

TESSEL_ZOO_REFERENCES(attention) { return {{"attention", CheckAttention}}; }

} // namespace tessel::zoo
