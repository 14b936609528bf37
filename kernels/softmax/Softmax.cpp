//===- Softmax.cpp - the C++ reference of the zoo's row softmax -*- C++ -*-===//

#include "kernels/ProblemData.h"

namespace tessel::zoo {

TESSEL_ZOO_REFERENCES(softmax) {
  return {{"softmax", RowReference(
                          "softmax", "in_ptr", "out_ptr", /*rowOutput=*/true,
                          [](const float *x, int64_t cols, double *want) {
                            double mx = -INFINITY, sum = 0;
                            for (int64_t c = 0; c < cols; ++c)
                              mx = std::max(mx, double(x[c]));
                            for (int64_t c = 0; c < cols; ++c)
                              sum += std::exp(x[c] - mx);
                            for (int64_t c = 0; c < cols; ++c)
                              want[c] = std::exp(x[c] - mx) / sum;
                          },
                          [](double want, int64_t) { return 1e-5 * (1 + want); })}};
}

} // namespace tessel::zoo
