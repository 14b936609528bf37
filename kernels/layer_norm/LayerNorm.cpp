//===- LayerNorm.cpp - the zoo's layer norm forward -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

class LayerNormProblem : public Problem {
public:
  LayerNormProblem(const Shape &s, uint64_t seed)
      : rows_(s.at("rows")), cols_(s.at("cols")), x_(randomMatrix(rows_, cols_, seed)),
        w_(randomMatrix(1, cols_, seed + 1)), b_(randomMatrix(1, cols_, seed + 2)),
        y_(x_.size()), mean_(rows_), rstd_(rows_), want_(x_.size()) {
    for (int64_t r = 0; r < rows_; ++r) {
      const float *x = &x_[r * cols_];
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols_; ++c)
        mean += x[c];
      mean /= cols_;
      for (int64_t c = 0; c < cols_; ++c)
        var += (x[c] - mean) * (x[c] - mean);
      double rstd = 1 / std::sqrt(var / cols_ + 1e-5);
      for (int64_t c = 0; c < cols_; ++c)
        want_[r * cols_ + c] = (x[c] - mean) * rstd * w_[c] + b_[c];
    }
  }
protected:
  std::vector<Arg> HostArgs() override {
    return {x_.data(),      y_.data(),      w_.data(), b_.data(), mean_.data(),
            rstd_.data(),   int32_t(cols_), int32_t(cols_), 1e-5f};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(x_), out(y_), in(w_), in(b_), out(mean_), out(rstd_)};
  }

public:
  absl::StatusOr<Grid> GridFor(const Point &) const override { return Grid{int32_t(rows_), 1, 1}; }
  void Poison() override {
    std::fill(y_.begin(), y_.end(), NAN);
    std::fill(mean_.begin(), mean_.end(), NAN);
    std::fill(rstd_.begin(), rstd_.end(), NAN);
  }
  absl::Status Check() const override {
    for (size_t i = 0; i < y_.size(); ++i)
      if (!(std::fabs(y_[i] - want_[i]) <= 1e-4 * (1 + std::fabs(want_[i]))))
        return mismatch("y", i, y_[i], want_[i]);
    for (int64_t r = 0; r < rows_; ++r)
      if (!std::isfinite(mean_[r]) || !std::isfinite(rstd_[r]))
        return mismatch("mean/rstd", r, mean_[r], 0);
    return absl::OkStatus();
  }

private:
  int64_t rows_, cols_;
  std::vector<float> x_, w_, b_, y_, mean_, rstd_;
  std::vector<double> want_;
};

Kernel layerNormKernel() {
  Kernel k;
  k.name = k.entry = "layer_norm";
  k.source = "kernels/layer_norm/layer_norm.py";
  k.dims = {"rows", "cols"};
  k.cpu.defaultShapes = {{{"rows", 1024}, {"cols", 1000}}};
  k.cpu.largeShapes = {{{"rows", 4096}, {"cols", 4096}}};
  k.cpu.dtypes = {"f32"};
  k.cpu.space.params = {{"BLOCK", {128, 256, 512, 1024}}};
  k.gpu.defaultShapes = {{{"rows", 16384}, {"cols", 8192}}};
  k.gpu.largeShapes = {{{"rows", 32768}, {"cols", 8192}}};
  k.gpu.dtypes = {"f32"};
  k.gpu.space.params = {{"BLOCK", {512, 1024, 2048, 4096}}, {"knob.num_warps", {4, 8, 16}}};
  const std::string p = "*fp32:16,";
  k.signature = [p](const std::string &) { return p + p + p + p + p + p + "i32,i32,fp32"; };
  k.constexprs = [](const Point &pt, const Shape &) {
    return std::map<std::string, std::string>{{"BLOCK", std::to_string(pt.at("BLOCK"))}};
  };
  k.flops = [](const Shape &s) { return 8.0 * s.at("rows") * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) {
    return 4.0 * (2 * s.at("rows") * s.at("cols") + 2 * s.at("cols"));
  };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new LayerNormProblem(s, seed));
  };
  return k;
}

} // namespace

TESSEL_ZOO_KERNELS(layer_norm) { return {layerNormKernel()}; }

} // namespace tessel::zoo
