//===- VectorAdd.cpp - the C++ reference of the zoo's vector add -*- C++ -*-===//

#include "kernels/ProblemData.h"

namespace tessel::zoo {
namespace {

/// Exact: one f32 addition per element.
absl::Status CheckVectorAdd(const Tensors &t, const Shape &s, const std::string &, uint64_t) {
  const HostTensor &x = t.at("x_ptr"), &y = t.at("y_ptr"), &out = t.at("out_ptr");
  for (size_t i = 0; i < size_t(s.at("n")); ++i) {
    float want = float(x.at(i)) + float(y.at(i));
    if (!(out.at(i) == double(want)))
      return mismatch("out", i, out.at(i), want);
  }
  return absl::OkStatus();
}

} // namespace

TESSEL_ZOO_REFERENCES(vector_add) { return {{"vector_add", CheckVectorAdd}}; }

} // namespace tessel::zoo
