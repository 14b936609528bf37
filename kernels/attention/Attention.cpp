//===- Attention.cpp - the zoo's fused attention forward -*- C++ -*-===//

#include "kernels/ProblemData.h"

#include <algorithm>
#include <cmath>

namespace tessel::zoo {
namespace {

class AttentionProblem : public Problem {
public:
  AttentionProblem(const Shape &s, const std::string &dtype, uint64_t seed)
      : z_(s.at("Z")), h_(s.at("H")), n_(s.at("N_CTX")), d_(s.at("D")), causal_(s.at("CAUSAL") != 0),
        q_(dtype, z_ * h_ * n_ * d_), k_(dtype, q_.size()), v_(dtype, q_.size()),
        o_(dtype, q_.size()) {
    std::mt19937_64 gen(seed);
    fillRandom(q_, gen);
    fillRandom(k_, gen);
    fillRandom(v_, gen);
    // The reference in double for the rows referenceRows picks, spread over the host's threads.
    checked_ = referenceRows(z_ * h_ * n_, n_, double(n_) * d_ * (causal_ ? 1 : 2), gen);
    std::vector<float> q(q_.size()), k(q_.size()), v(q_.size());
    for (size_t i = 0; i < q.size(); ++i) {
      q[i] = q_.get(i);
      k[i] = k_.get(i);
      v[i] = v_.get(i);
    }
    want_.assign(checked_.size() * d_, 0.0);
    double scale = 1.0 / std::sqrt(double(d_));
    auto reference = [&](size_t begin, size_t end) {
      std::vector<double> p(n_), o(d_);
      for (size_t c = begin; c < end; ++c) {
        int64_t zh = checked_[c] / n_, i = checked_[c] % n_;
        const float *qi = &q[(zh * n_ + i) * d_];
        int64_t last = causal_ ? i : n_ - 1;
        double m = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= last; ++j) {
          const float *kj = &k[(zh * n_ + j) * d_];
          double dot = 0;
          for (int64_t d = 0; d < d_; ++d)
            dot += double(qi[d]) * kj[d];
          p[j] = dot * scale;
          m = std::max(m, p[j]);
        }
        std::fill(o.begin(), o.end(), 0.0);
        for (int64_t j = 0; j <= last; ++j) {
          sum += (p[j] = std::exp(p[j] - m));
          const float *vj = &v[(zh * n_ + j) * d_];
          for (int64_t d = 0; d < d_; ++d)
            o[d] += p[j] * vj[d];
        }
        for (int64_t d = 0; d < d_; ++d)
          want_[c * d_ + d] = o[d] / sum;
      }
    };
    parallelRows(checked_.size(), reference);
  }
protected:
  std::vector<Arg> HostArgs() override {
    return {q_.data(), k_.data(), v_.data(), o_.data(), float(1.0 / std::sqrt(double(d_))),
            int32_t(h_ * n_ * d_), int32_t(n_ * d_), int32_t(d_), int32_t(n_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(q_.bytes), in(k_.bytes), in(v_.bytes), out(o_.bytes)};
  }

public:
  absl::StatusOr<Grid> GridFor(const Point &c) const override {
    return Grid{int32_t(cdiv(n_, c.at("BLOCK_M"))), int32_t(z_ * h_), 1};
  }
  void Poison() override {
    for (size_t i = 0; i < o_.size(); ++i)
      o_.set(i, NAN);
  }
  absl::Status Check() const override {
    // Probabilities are rounded to the dtype before the second product, and the output too
    // (bf16 keeps 8 bits of mantissa, f16 11).
    double absolute = o_.dtype == "bf16" ? 8e-3 : 4e-3;
    return checkReferenceRows("O", o_, checked_, d_, want_, [absolute](double want) {
      return absolute + 1e-2 * std::fabs(want);
    });
  }

private:
  int64_t z_, h_, n_, d_;
  bool causal_;
  TypedBuffer q_, k_, v_, o_;
  std::vector<int64_t> checked_; ///< the query rows (z * h * n + i) the reference covers
  std::vector<double> want_;     ///< their outputs, d_ per row
};

Kernel attentionKernel() {
  Kernel k;
  k.name = k.entry = "attention";
  k.source = "kernels/attention/attention.py";
  k.dims = {"Z", "H", "N_CTX", "D", "CAUSAL"};
  k.cpu.defaultShapes = {{{"Z", 1}, {"H", 2}, {"N_CTX", 256}, {"D", 64}, {"CAUSAL", 0}},
                     {{"Z", 1}, {"H", 2}, {"N_CTX", 256}, {"D", 64}, {"CAUSAL", 1}}};
  k.cpu.largeShapes = {{{"Z", 2}, {"H", 8}, {"N_CTX", 1024}, {"D", 64}, {"CAUSAL", 1}},
                   {{"Z", 2}, {"H", 8}, {"N_CTX", 1024}, {"D", 128}, {"CAUSAL", 0}}};
  k.cpu.dtypes = {"f16"};
  k.cpu.space.params = {{"BLOCK_M", {16, 32, 64}}, {"BLOCK_N", {16, 32, 64}}};
  // GPUs: head dimensions 64 and 128, 4k to 16k tokens.
  // Default: quick to check against the C++ reference; large: what attention is measured at
  // (16 heads, 32k tokens in all: batch 8 of 4k or batch 2 of 16k; head dim 64 and 128; causal
  // and not).
  k.gpu.defaultShapes = {{{"Z", 1}, {"H", 8}, {"N_CTX", 1000}, {"D", 64}, {"CAUSAL", 0}},
                         {{"Z", 1}, {"H", 8}, {"N_CTX", 1000}, {"D", 128}, {"CAUSAL", 1}}};
  k.gpu.largeShapes.clear();
  for (int64_t n : {4096, 16384})
    for (int64_t d : {64, 128})
      for (int64_t causal : {0, 1})
        k.gpu.largeShapes.push_back(
            {{"Z", 32768 / n}, {"H", 16}, {"N_CTX", n}, {"D", d}, {"CAUSAL", causal}});
  k.gpu.dtypes = {"f16", "bf16"};
  k.gpu.space.params = {{"BLOCK_M", {16, 32, 64, 128}}, {"BLOCK_N", {16, 32, 64, 128}},
                        {"knob.num_warps", {4, 8}}, {"knob.num_stages", {1, 2}}};
  k.signature = [](const std::string &d) {
    std::string p = pointer(d);
    return p + "," + p + "," + p + "," + p + ",fp32,i32:16,i32:16,i32:16,i32";
  };
  k.constexprs = [](const Point &p, const Shape &s) {
    return std::map<std::string, std::string>{
        {"BLOCK_M", std::to_string(p.at("BLOCK_M"))}, {"BLOCK_N", std::to_string(p.at("BLOCK_N"))},
        {"H", std::to_string(s.at("H"))},             {"HEAD_DIM", std::to_string(s.at("D"))},
        {"CAUSAL", s.at("CAUSAL") ? "True" : "False"}, {"stride_qk", "1"}};
  };
  k.flops = [](const Shape &s) {
    double f = 4.0 * s.at("Z") * s.at("H") * s.at("N_CTX") * s.at("N_CTX") * s.at("D");
    return s.at("CAUSAL") ? f / 2 : f;
  };
  k.bytes = [](const Shape &s, const std::string &d) {
    return double(elementBytes(d)) * 4 * s.at("Z") * s.at("H") * s.at("N_CTX") * s.at("D");
  };
  k.flopBound = true;
  k.makeProblem = [](const Shape &s, const std::string &d, uint64_t seed) {
    return std::unique_ptr<Problem>(new AttentionProblem(s, d, seed));
  };
  return k;
}

} // namespace

TESSEL_ZOO_KERNELS(attention) { return {attentionKernel()}; }

} // namespace tessel::zoo
