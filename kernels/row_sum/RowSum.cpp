//===- RowSum.cpp - the C++ reference of the zoo's row sum -*- C++ -*-===//

#include "kernels/ProblemData.h"

namespace tessel::zoo {

TESSEL_ZOO_REFERENCES(row_sum) {
  return {{"row_sum", RowReference(
                          "row sum", "x_ptr", "out_ptr", /*rowOutput=*/false,
                          [](const float *x, int64_t cols, double *want) {
                            double sum = 0;
                            for (int64_t c = 0; c < cols; ++c)
                              sum += x[c];
                            *want = sum;
                          },
                          // f32 sums in any order: error grows like sqrt(cols) times the
                          // element size.
                          [](double want, int64_t cols) {
                            return 1e-4 * (std::sqrt(double(cols)) + std::fabs(want));
                          })}};
}

} // namespace tessel::zoo
