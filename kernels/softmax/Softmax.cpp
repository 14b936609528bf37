//===- Softmax.cpp - the zoo's row softmax -*- C++ -*-===//

#include "kernels/RowProblem.h"

namespace tessel::zoo {

TESSEL_ZOO_KERNELS(softmax) {
  Kernel k = RowKernel("softmax", "kernels/softmax/softmax.py");
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,i32,i32,i32"); };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols") * 5; };
  k.bytes = [](const Shape &s, const std::string &) {
    return 4.0 * s.at("rows") * 2 * s.at("cols");
  };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    RowProblemSpec spec;
    spec.what = "softmax";
    spec.rowOutput = true;
    spec.reference = [](const float *x, int64_t cols, double *want) {
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        mx = std::max(mx, double(x[c]));
      for (int64_t c = 0; c < cols; ++c)
        sum += std::exp(x[c] - mx);
      for (int64_t c = 0; c < cols; ++c)
        want[c] = std::exp(x[c] - mx) / sum;
    };
    spec.tolerance = [](double want, int64_t) { return 1e-5 * (1 + want); };
    spec.args = [](void *in, void *out, int32_t cols) {
      return std::vector<Arg>{out, in, cols, cols, cols};
    };
    return std::unique_ptr<Problem>(new RowProblem(s, seed, spec));
  };
  return {k};
}

} // namespace tessel::zoo
