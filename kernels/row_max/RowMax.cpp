//===- RowMax.cpp - the C++ reference of the zoo's row max -*- C++ -*-===//

#include "kernels/ProblemData.h"

namespace tessel::zoo {

TESSEL_ZOO_REFERENCES(row_max) {
  return {{"row_max", RowReference(
                          "row max", "x_ptr", "out_ptr", /*rowOutput=*/false,
                          [](const float *x, int64_t cols, double *want) {
                            *want = *std::max_element(x, x + cols);
                          },
                          // A maximum is one of the inputs: exact.
                          [](double, int64_t) { return 0.0; })}};
}

} // namespace tessel::zoo
