//===- RowProblem.h - a problem over the rows of an f32 matrix -*- C++ -*-===//
//
// One program per row of a rows x cols f32 matrix in [-3, 3): the kernel writes a row per row
// (softmax) or a value per row (row sum, row max). A kernel folder supplies the reference of
// one row, its tolerance and its argument order.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_ROWPROBLEM_H
#define TESSEL_KERNELS_ROWPROBLEM_H

#include "kernels/ProblemData.h"

#include <algorithm>
#include <functional>

namespace tessel::zoo {

struct RowProblemSpec {
  std::string what;
  /// The output has a row per row (else one value per row).
  bool rowOutput = false;
  /// Writes the expected output of `row` (cols values) to `want` (cols values or one).
  std::function<void(const float *row, int64_t cols, double *want)> reference;
  /// The largest acceptable |got - want|.
  std::function<double(double want, int64_t cols)> tolerance;
  /// The launch arguments given the input, the output and the number of columns.
  std::function<std::vector<Arg>(void *in, void *out, int32_t cols)> args;
};

class RowProblem : public Problem {
public:
  RowProblem(const Shape &shape, uint64_t seed, RowProblemSpec spec)
      : spec_(std::move(spec)), rows_(shape.at("rows")), cols_(shape.at("cols")),
        in_(size_t(rows_) * cols_), out_(spec_.rowOutput ? in_.size() : size_t(rows_)),
        want_(out_.size()) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<float> d(-3.f, 3.f);
    for (float &x : in_)
      x = d(gen);
    size_t perRow = spec_.rowOutput ? size_t(cols_) : 1;
    for (int64_t r = 0; r < rows_; ++r)
      spec_.reference(&in_[r * cols_], cols_, &want_[r * perRow]);
  }
  absl::StatusOr<Grid> GridFor(const Point &) const override { return Grid{int32_t(rows_), 1, 1}; }
  void Poison() override { std::fill(out_.begin(), out_.end(), NAN); }
  absl::Status Check() const override {
    for (size_t i = 0; i < out_.size(); ++i)
      if (!(std::fabs(out_[i] - want_[i]) <= spec_.tolerance(want_[i], cols_)))
        return mismatch(spec_.what, i, out_[i], want_[i]);
    return absl::OkStatus();
  }

protected:
  std::vector<Arg> HostArgs() override {
    return spec_.args(in_.data(), out_.data(), int32_t(cols_));
  }
  std::vector<HostBuffer> Buffers() override { return {in(in_), out(out_)}; }

private:
  RowProblemSpec spec_;
  int64_t rows_, cols_;
  std::vector<float> in_, out_;
  std::vector<double> want_;
};

/// The spec shared by row kernels whose row is one block (BLOCK = the next power of two of
/// cols): dims rows x cols, f32, the CPU knobs vector width and prefetch swept, GPUs num_warps.
inline Kernel RowKernel(const std::string &name, const std::string &source) {
  Kernel k;
  k.name = k.entry = name;
  k.source = source;
  k.dims = {"rows", "cols"};
  k.cpu.defaultShapes = {{{"rows", 1024}, {"cols", 1000}}};
  k.cpu.largeShapes = {{{"rows", 4096}, {"cols", 1000}}, {{"rows", 4096}, {"cols", 4096}}};
  k.cpu.dtypes = {"f32"};
  k.cpu.space.params = {{"knob.vector_width", {0, 64}}, {"knob.prefetch", {0, 1}}};
  // GPUs: hundreds of MB per launch.
  k.gpu.defaultShapes = {{{"rows", 32768}, {"cols", 4096}}};
  k.gpu.largeShapes = {{{"rows", 65536}, {"cols", 4096}}, {{"rows", 16384}, {"cols", 16384}}};
  k.gpu.dtypes = {"f32"};
  k.gpu.space.params = {{"knob.num_warps", {4, 8, 16}}};
  k.constexprs = [](const Point &, const Shape &s) {
    return std::map<std::string, std::string>{{"BLOCK", std::to_string(nextPow2(s.at("cols")))}};
  };
  return k;
}

/// A row kernel with one value per row, `(x_ptr, out_ptr, stride, n_cols)` as its arguments
/// (row sum, row max): `reference` reduces a row, `tolerance` bounds |got - want|.
inline Kernel RowReductionKernel(
    const std::string &name, const std::string &source, const std::string &what,
    std::function<void(const float *row, int64_t cols, double *want)> reference,
    std::function<double(double want, int64_t cols)> tolerance) {
  Kernel k = RowKernel(name, source);
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,i32,i32"); };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) {
    return 4.0 * s.at("rows") * (s.at("cols") + 1);
  };
  k.makeProblem = [what, reference, tolerance](const Shape &s, const std::string &,
                                                uint64_t seed) {
    RowProblemSpec spec;
    spec.what = what;
    spec.reference = reference;
    spec.tolerance = tolerance;
    spec.args = [](void *in, void *out, int32_t cols) {
      return std::vector<Arg>{in, out, cols, cols};
    };
    return std::unique_ptr<Problem>(new RowProblem(s, seed, spec));
  };
  return k;
}

} // namespace tessel::zoo

#endif // TESSEL_KERNELS_ROWPROBLEM_H
