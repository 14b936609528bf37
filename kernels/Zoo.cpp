//===- Zoo.cpp - the kernel zoo: matmuls, attention and reductions -*- C++ -*-===//

#include "kernels/Zoo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

namespace tessel::zoo {
namespace {

using runtime::Arg;
using runtime::Grid;

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t nextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p <<= 1;
  return p;
}

// ---- element types as stored -----------------------------------------------------------------

size_t elementBytes(const std::string &dtype) { return dtype == "f32" ? 4 : 2; }

/// Rounds `x` to `dtype` and returns the stored bits (in 4 or 2 bytes).
uint32_t store(const std::string &dtype, float x) {
  if (dtype == "f32") {
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
  }
  if (dtype == "f16") {
    _Float16 h = _Float16(x);
    uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
  }
  uint32_t b; // bf16, round to nearest even
  std::memcpy(&b, &x, 4);
  b += 0x7fff + ((b >> 16) & 1);
  return b >> 16;
}

float load(const std::string &dtype, uint32_t bits) {
  float x;
  if (dtype == "f32") {
    std::memcpy(&x, &bits, 4);
  } else if (dtype == "f16") {
    uint16_t b = uint16_t(bits);
    _Float16 h;
    std::memcpy(&h, &b, 2);
    x = float(h);
  } else {
    uint32_t b = bits << 16;
    std::memcpy(&x, &b, 4);
  }
  return x;
}

/// A buffer of `n` elements of `dtype`.
struct Buffer {
  std::string dtype;
  std::vector<uint8_t> bytes;
  Buffer(std::string d, size_t n) : dtype(std::move(d)), bytes(n * elementBytes(dtype)) {}
  size_t size() const { return bytes.size() / elementBytes(dtype); }
  void set(size_t i, float x) {
    uint32_t b = store(dtype, x);
    std::memcpy(&bytes[i * elementBytes(dtype)], &b, elementBytes(dtype));
  }
  float get(size_t i) const {
    uint32_t b = 0;
    std::memcpy(&b, &bytes[i * elementBytes(dtype)], elementBytes(dtype));
    return load(dtype, b);
  }
  void *data() { return bytes.data(); }
};

void fillRandom(Buffer &b, std::mt19937_64 &gen) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (size_t i = 0; i < b.size(); ++i)
    b.set(i, d(gen));
}

std::string pointer(const std::string &dtype) {
  return "*" + std::string(dtype == "f32" ? "fp32" : dtype == "f16" ? "fp16" : "bf16") + ":16";
}

absl::Status mismatch(const std::string &what, size_t i, double got, double want) {
  std::ostringstream s;
  s << what << "[" << i << "] = " << got << ", expected " << want;
  return absl::DataLossError(s.str());
}

// ---- matmul ----------------------------------------------------------------------------------

class MatmulProblem : public Problem {
public:
  MatmulProblem(const Shape &shape, const std::string &dtype, uint64_t seed, bool grid2d = false)
      : grid2d_(grid2d), m_(shape.at("M")), n_(shape.at("N")), k_(shape.at("K")), dtype_(dtype),
        a_(dtype, m_ * k_), b_(dtype, k_ * n_), c_(dtype, m_ * n_), want_(m_ * n_) {
    std::mt19937_64 gen(seed);
    fillRandom(a_, gen);
    fillRandom(b_, gen);
    std::vector<float> a(a_.size()), b(b_.size());
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = a_.get(i);
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = b_.get(i);
    std::vector<double> row(n_);
    for (int64_t i = 0; i < m_; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t l = 0; l < k_; ++l) {
        double x = a[i * k_ + l];
        const float *bl = &b[l * n_];
        for (int64_t j = 0; j < n_; ++j)
          row[j] += x * bl[j];
      }
      for (int64_t j = 0; j < n_; ++j)
        want_[i * n_ + j] = row[j];
    }
  }
  std::vector<Arg> HostArgs() override {
    return {a_.data(), b_.data(), c_.data(), int32_t(m_), int32_t(n_), int32_t(k_),
            int32_t(k_), int32_t(n_), int32_t(n_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(a_.bytes), in(b_.bytes), out(c_.bytes)};
  }
  Grid GridFor(const Point &c) const override {
    if (grid2d_) // block-pointer variant: (M blocks, N blocks)
      return Grid{int32_t(cdiv(m_, c.at("BLOCK_M"))), int32_t(cdiv(n_, c.at("BLOCK_N"))), 1};
    return Grid{int32_t(cdiv(m_, c.at("BLOCK_M")) * cdiv(n_, c.at("BLOCK_N"))), 1, 1};
  }
  void Poison() override {
    for (size_t i = 0; i < c_.size(); ++i)
      c_.set(i, NAN);
  }
  absl::Status Check() const override {
    // f32 accumulation of K products, then one rounding to the output type.
    double rel = dtype_ == "f32" ? 1e-4 : dtype_ == "f16" ? 2e-3 : 1e-2;
    for (size_t i = 0; i < c_.size(); ++i) {
      double got = c_.get(i), want = want_[i];
      if (!(std::fabs(got - want) <= rel * (std::sqrt(double(k_)) + std::fabs(want))))
        return mismatch("C", i, got, want);
    }
    return absl::OkStatus();
  }

private:
  bool grid2d_;
  int64_t m_, n_, k_;
  std::string dtype_;
  Buffer a_, b_, c_;
  std::vector<double> want_;
};

Kernel matmulKernel() {
  Kernel k;
  k.name = "matmul";
  k.source = "kernels/matmul.py";
  k.entry = "matmul";
  k.dims = {"M", "N", "K"};
  k.defaultShapes = {{{"M", 256}, {"N", 256}, {"K", 256}}};
  k.largeShapes = {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, {{"M", 2048}, {"N", 2048}, {"K", 2048}}};
  k.dtypes = {"f32", "f16", "bf16"};
  k.space.params = {{"BLOCK_M", {32, 64, 128}}, {"BLOCK_N", {32, 64, 128}},
                    {"BLOCK_K", {16, 32, 64}},  {"GROUP_M", {8}},
                    {"knob.tile_m", {4, 8}},    {"knob.tile_n", {32, 64}}};
  k.space.constraints.push_back([](const Point &p) {
    return p.at("knob.tile_n") <= p.at("BLOCK_N") && p.at("knob.tile_m") <= p.at("BLOCK_M")
               ? ""
               : "the register tile is larger than the block";
  });
  k.space.constraints.push_back([](const Point &p) {
    return (p.at("BLOCK_M") + p.at("BLOCK_N")) * p.at("BLOCK_K") * 4 <= 64 * 1024
               ? ""
               : "the A and B tiles exceed 64 KiB";
  });
  k.signature = [](const std::string &d) {
    std::string p = pointer(d);
    return p + "," + p + "," + p + ",i32,i32,i32,i32,i32,i32";
  };
  k.runtimeSignature = [](const std::string &d) {
    std::string p = "ptr:" + d;
    return p + "," + p + "," + p + ",i32,i32,i32,i32,i32,i32";
  };
  k.constexprs = [](const Point &p, const Shape &) {
    return std::map<std::string, std::string>{
        {"BLOCK_M", std::to_string(p.at("BLOCK_M"))}, {"BLOCK_N", std::to_string(p.at("BLOCK_N"))},
        {"BLOCK_K", std::to_string(p.at("BLOCK_K"))}, {"GROUP_M", std::to_string(p.at("GROUP_M"))},
        {"stride_ak", "1"}, {"stride_bn", "1"}, {"stride_cn", "1"}};
  };
  k.flops = [](const Shape &s) { return 2.0 * s.at("M") * s.at("N") * s.at("K"); };
  k.bytes = [](const Shape &s, const std::string &d) {
    return double(elementBytes(d)) *
           (s.at("M") * s.at("K") + s.at("K") * s.at("N") + s.at("M") * s.at("N"));
  };
  k.flopBound = true;
  k.makeProblem = [](const Shape &s, const std::string &d, uint64_t seed) {
    return std::unique_ptr<Problem>(new MatmulProblem(s, d, seed));
  };
  return k;
}

// ---- row reductions -----------------------------------------------------------------------------

class RowProblem : public Problem {
public:
  RowProblem(const Shape &shape, bool softmax, uint64_t seed)
      : rows_(shape.at("rows")), cols_(shape.at("cols")), softmax_(softmax),
        in_(size_t(rows_) * cols_), out_(softmax ? size_t(rows_) * cols_ : size_t(rows_)),
        want_(out_.size()) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<float> d(-3.f, 3.f);
    for (float &x : in_)
      x = d(gen);
    for (int64_t r = 0; r < rows_; ++r) {
      const float *x = &in_[r * cols_];
      if (softmax) {
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < cols_; ++c)
          mx = std::max(mx, double(x[c]));
        for (int64_t c = 0; c < cols_; ++c)
          sum += std::exp(x[c] - mx);
        for (int64_t c = 0; c < cols_; ++c)
          want_[r * cols_ + c] = std::exp(x[c] - mx) / sum;
      } else {
        double sum = 0;
        for (int64_t c = 0; c < cols_; ++c)
          sum += x[c];
        want_[r] = sum;
      }
    }
  }
  std::vector<Arg> HostArgs() override {
    if (softmax_)
      return {out_.data(), in_.data(), int32_t(cols_), int32_t(cols_), int32_t(cols_)};
    return {in_.data(), out_.data(), int32_t(cols_), int32_t(cols_)};
  }
  std::vector<HostBuffer> Buffers() override { return {in(in_), out(out_)}; }
  Grid GridFor(const Point &) const override { return Grid{int32_t(rows_), 1, 1}; }
  void Poison() override { std::fill(out_.begin(), out_.end(), NAN); }
  absl::Status Check() const override {
    for (size_t i = 0; i < out_.size(); ++i) {
      double tol = softmax_ ? 1e-5 * (1 + want_[i]) : 1e-4 * (std::sqrt(double(cols_)) + std::fabs(want_[i]));
      if (!(std::fabs(out_[i] - want_[i]) <= tol))
        return mismatch(softmax_ ? "softmax" : "row sum", i, out_[i], want_[i]);
    }
    return absl::OkStatus();
  }

private:
  int64_t rows_, cols_;
  bool softmax_;
  std::vector<float> in_, out_;
  std::vector<double> want_;
};

Kernel rowKernel(bool softmax) {
  Kernel k;
  k.name = softmax ? "softmax" : "row_sum";
  k.source = "kernels/reductions.py";
  k.entry = softmax ? "softmax" : "row_sum";
  k.dims = {"rows", "cols"};
  k.defaultShapes = {{{"rows", 1024}, {"cols", 1000}}};
  k.largeShapes = {{{"rows", 4096}, {"cols", 1000}}, {{"rows", 4096}, {"cols", 4096}}};
  k.dtypes = {"f32"};
  // The row is one block (BLOCK = the next power of two of cols); the knobs are swept.
  k.space.params = {{"knob.vector_width", {0, 64}}, {"knob.prefetch", {0, 1}}};
  k.signature = [softmax](const std::string &) {
    return std::string(softmax ? "*fp32:16,*fp32:16,i32,i32,i32" : "*fp32:16,*fp32:16,i32,i32");
  };
  k.runtimeSignature = [softmax](const std::string &) {
    return std::string(softmax ? "ptr:f32,ptr:f32,i32,i32,i32" : "ptr:f32,ptr:f32,i32,i32");
  };
  k.constexprs = [](const Point &, const Shape &s) {
    return std::map<std::string, std::string>{{"BLOCK", std::to_string(nextPow2(s.at("cols")))}};
  };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols") * 5; };
  k.bytes = [softmax](const Shape &s, const std::string &) {
    return 4.0 * s.at("rows") * (softmax ? 2 * s.at("cols") : s.at("cols") + 1);
  };
  k.makeProblem = [softmax](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new RowProblem(s, softmax, seed));
  };
  return k;
}

// ---- argmax, column sum, layer norm ---------------------------------------------------------

/// Row-major f32 data of rows x cols in [-3, 3).
std::vector<float> randomMatrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> d(-3.f, 3.f);
  std::vector<float> v(size_t(rows) * cols);
  for (float &x : v)
    x = d(gen);
  return v;
}

class ArgmaxProblem : public Problem {
public:
  ArgmaxProblem(const Shape &s, uint64_t seed)
      : rows_(s.at("rows")), cols_(s.at("cols")), x_(randomMatrix(rows_, cols_, seed)),
        idx_(rows_), max_(rows_) {}
  std::vector<Arg> HostArgs() override {
    return {x_.data(), idx_.data(), max_.data(), int32_t(cols_), int32_t(cols_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(x_), out(idx_), out(max_)};
  }
  Grid GridFor(const Point &) const override { return Grid{int32_t(rows_), 1, 1}; }
  void Poison() override {
    std::fill(idx_.begin(), idx_.end(), -1);
    std::fill(max_.begin(), max_.end(), NAN);
  }
  absl::Status Check() const override {
    for (int64_t r = 0; r < rows_; ++r) {
      const float *x = &x_[r * cols_];
      int64_t best = std::max_element(x, x + cols_) - x; // the first maximum
      if (idx_[r] != best)
        return mismatch("argmax", r, idx_[r], best);
      if (max_[r] != x[best])
        return mismatch("max", r, max_[r], x[best]);
    }
    return absl::OkStatus();
  }

private:
  int64_t rows_, cols_;
  std::vector<float> x_;
  std::vector<int32_t> idx_;
  std::vector<float> max_;
};

class ColSumProblem : public Problem {
public:
  ColSumProblem(const Shape &s, uint64_t seed)
      : rows_(s.at("rows")), cols_(s.at("cols")), x_(randomMatrix(rows_, cols_, seed)),
        out_(cols_), want_(cols_, 0.0) {
    for (int64_t r = 0; r < rows_; ++r)
      for (int64_t c = 0; c < cols_; ++c)
        want_[c] += x_[r * cols_ + c];
  }
  std::vector<Arg> HostArgs() override {
    return {x_.data(), out_.data(), int32_t(rows_), int32_t(cols_), int32_t(cols_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(x_), out(out_)};
  }
  Grid GridFor(const Point &c) const override {
    return Grid{int32_t(cdiv(cols_, c.at("BLOCK_N"))), 1, 1};
  }
  void Poison() override { std::fill(out_.begin(), out_.end(), NAN); }
  absl::Status Check() const override {
    for (int64_t c = 0; c < cols_; ++c)
      if (!(std::fabs(out_[c] - want_[c]) <= 1e-4 * (std::sqrt(double(rows_)) * 3 + std::fabs(want_[c]))))
        return mismatch("column sum", c, out_[c], want_[c]);
    return absl::OkStatus();
  }

private:
  int64_t rows_, cols_;
  std::vector<float> x_, out_;
  std::vector<double> want_;
};

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
  std::vector<Arg> HostArgs() override {
    return {x_.data(),      y_.data(),      w_.data(), b_.data(), mean_.data(),
            rstd_.data(),   int32_t(cols_), int32_t(cols_), 1e-5f};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(x_), out(y_), in(w_), in(b_), out(mean_), out(rstd_)};
  }
  Grid GridFor(const Point &) const override { return Grid{int32_t(rows_), 1, 1}; }
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

Kernel argmaxKernel() {
  Kernel k = rowKernel(false);
  k.name = k.entry = "row_argmax";
  k.signature = [](const std::string &) { return std::string("*fp32:16,*i32:16,*fp32:16,i32,i32"); };
  k.runtimeSignature = [](const std::string &) { return std::string("ptr:f32,ptr:i32,ptr:f32,i32,i32"); };
  k.bytes = [](const Shape &s, const std::string &) { return 4.0 * s.at("rows") * (s.at("cols") + 2); };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new ArgmaxProblem(s, seed));
  };
  return k;
}

Kernel colSumKernel() {
  Kernel k;
  k.name = k.entry = "col_sum";
  k.source = "kernels/reductions.py";
  k.dims = {"rows", "cols"};
  k.defaultShapes = {{{"rows", 1024}, {"cols", 1000}}};
  k.largeShapes = {{{"rows", 4096}, {"cols", 4096}}};
  k.dtypes = {"f32"};
  k.space.params = {{"BLOCK_M", {8, 16, 32, 64}}, {"BLOCK_N", {32, 64, 128, 256}}};
  k.space.constraints.push_back([](const Point &p) {
    return p.at("BLOCK_M") * p.at("BLOCK_N") * 4 <= 64 * 1024 ? "" : "the tile exceeds 64 KiB";
  });
  k.signature = [](const std::string &) { return std::string("*fp32:16,*fp32:16,i32,i32,i32"); };
  k.runtimeSignature = [](const std::string &) { return std::string("ptr:f32,ptr:f32,i32,i32,i32"); };
  k.constexprs = [](const Point &p, const Shape &) {
    return std::map<std::string, std::string>{{"BLOCK_M", std::to_string(p.at("BLOCK_M"))},
                                              {"BLOCK_N", std::to_string(p.at("BLOCK_N"))}};
  };
  k.flops = [](const Shape &s) { return double(s.at("rows")) * s.at("cols"); };
  k.bytes = [](const Shape &s, const std::string &) { return 4.0 * (s.at("rows") + 1) * s.at("cols"); };
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new ColSumProblem(s, seed));
  };
  return k;
}

Kernel layerNormKernel() {
  Kernel k;
  k.name = k.entry = "layer_norm";
  k.source = "kernels/reductions.py";
  k.dims = {"rows", "cols"};
  k.defaultShapes = {{{"rows", 1024}, {"cols", 1000}}};
  k.largeShapes = {{{"rows", 4096}, {"cols", 4096}}};
  k.dtypes = {"f32"};
  k.space.params = {{"BLOCK", {128, 256, 512, 1024}}};
  const std::string p = "*fp32:16,";
  k.signature = [p](const std::string &) { return p + p + p + p + p + p + "i32,i32,fp32"; };
  k.runtimeSignature = [](const std::string &) {
    return std::string("ptr:f32,ptr:f32,ptr:f32,ptr:f32,ptr:f32,ptr:f32,i32,i32,f32");
  };
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

// ---- fused attention ---------------------------------------------------------------------------

class AttentionProblem : public Problem {
public:
  AttentionProblem(const Shape &s, uint64_t seed)
      : z_(s.at("Z")), h_(s.at("H")), n_(s.at("N_CTX")), d_(s.at("D")), causal_(s.at("CAUSAL") != 0),
        q_("f16", z_ * h_ * n_ * d_), k_("f16", q_.size()), v_("f16", q_.size()),
        o_("f16", q_.size()), want_(q_.size()) {
    std::mt19937_64 gen(seed);
    fillRandom(q_, gen);
    fillRandom(k_, gen);
    fillRandom(v_, gen);
    double scale = 1.0 / std::sqrt(double(d_));
    std::vector<double> p(n_);
    for (int64_t zh = 0; zh < z_ * h_; ++zh)
      for (int64_t i = 0; i < n_; ++i) {
        int64_t last = causal_ ? i : n_ - 1;
        double m = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= last; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < d_; ++d)
            dot += double(q_.get((zh * n_ + i) * d_ + d)) * k_.get((zh * n_ + j) * d_ + d);
          p[j] = dot * scale;
          m = std::max(m, p[j]);
        }
        for (int64_t j = 0; j <= last; ++j)
          sum += (p[j] = std::exp(p[j] - m));
        for (int64_t d = 0; d < d_; ++d) {
          double o = 0;
          for (int64_t j = 0; j <= last; ++j)
            o += p[j] * v_.get((zh * n_ + j) * d_ + d);
          want_[(zh * n_ + i) * d_ + d] = o / sum;
        }
      }
  }
  std::vector<Arg> HostArgs() override {
    return {q_.data(), k_.data(), v_.data(), o_.data(), float(1.0 / std::sqrt(double(d_))),
            int32_t(h_ * n_ * d_), int32_t(n_ * d_), int32_t(d_), int32_t(n_)};
  }
  std::vector<HostBuffer> Buffers() override {
    return {in(q_.bytes), in(k_.bytes), in(v_.bytes), out(o_.bytes)};
  }
  Grid GridFor(const Point &c) const override {
    return Grid{int32_t(cdiv(n_, c.at("BLOCK_M"))), int32_t(z_ * h_), 1};
  }
  void Poison() override {
    for (size_t i = 0; i < o_.size(); ++i)
      o_.set(i, NAN);
  }
  absl::Status Check() const override {
    // Probabilities are rounded to f16 before the second product, and the output too.
    for (size_t i = 0; i < o_.size(); ++i)
      if (!(std::fabs(o_.get(i) - want_[i]) <= 4e-3 + 1e-2 * std::fabs(want_[i])))
        return mismatch("O", i, o_.get(i), want_[i]);
    return absl::OkStatus();
  }

private:
  int64_t z_, h_, n_, d_;
  bool causal_;
  Buffer q_, k_, v_, o_;
  std::vector<double> want_;
};

Kernel attentionKernel() {
  Kernel k;
  k.name = k.entry = "attention";
  k.source = "kernels/attention.py";
  k.dims = {"Z", "H", "N_CTX", "D", "CAUSAL"};
  k.defaultShapes = {{{"Z", 1}, {"H", 2}, {"N_CTX", 256}, {"D", 64}, {"CAUSAL", 0}},
                     {{"Z", 1}, {"H", 2}, {"N_CTX", 256}, {"D", 64}, {"CAUSAL", 1}}};
  k.largeShapes = {{{"Z", 2}, {"H", 8}, {"N_CTX", 1024}, {"D", 64}, {"CAUSAL", 1}},
                   {{"Z", 2}, {"H", 8}, {"N_CTX", 1024}, {"D", 128}, {"CAUSAL", 0}}};
  k.dtypes = {"f16"};
  k.space.params = {{"BLOCK_M", {16, 32, 64}}, {"BLOCK_N", {16, 32, 64}}};
  k.signature = [](const std::string &) {
    return std::string("*fp16:16,*fp16:16,*fp16:16,*fp16:16,fp32,i32:16,i32:16,i32:16,i32");
  };
  k.runtimeSignature = [](const std::string &) {
    return std::string("ptr:f16,ptr:f16,ptr:f16,ptr:f16,f32,i32,i32,i32,i32");
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
  k.bytes = [](const Shape &s, const std::string &) {
    return 2.0 * 4 * s.at("Z") * s.at("H") * s.at("N_CTX") * s.at("D"); // Q, K, V, O in f16
  };
  k.flopBound = true;
  k.makeProblem = [](const Shape &s, const std::string &, uint64_t seed) {
    return std::unique_ptr<Problem>(new AttentionProblem(s, seed));
  };
  return k;
}

} // namespace

Kernel blockPtrMatmulKernel() {
  Kernel k = matmulKernel();
  k.name = k.entry = "block_ptr_matmul";
  k.dtypes = {"f16"};
  k.makeProblem = [](const Shape &s, const std::string &d, uint64_t seed) {
    return std::unique_ptr<Problem>(new MatmulProblem(s, d, seed, /*grid2d=*/true));
  };
  return k;
}

const std::vector<Kernel> &Kernels() {
  static const std::vector<Kernel> zoo = {matmulKernel(),  rowKernel(true), rowKernel(false),
                                          argmaxKernel(),  colSumKernel(),  layerNormKernel(),
                                          attentionKernel(), blockPtrMatmulKernel()};
  return zoo;
}

const Kernel *Find(const std::string &name) {
  for (const Kernel &k : Kernels())
    if (k.name == name)
      return &k;
  return nullptr;
}

absl::StatusOr<Shape> ParseShape(const Kernel &kernel, const std::string &text) {
  Shape shape;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    size_t eq = item.find('=');
    char *end = nullptr;
    long long v = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &end, 10);
    // Zero is a value too: flag dimensions such as attention's CAUSAL.
    if (eq == std::string::npos || !end || *end || v < 0 || v > (1LL << 30))
      return absl::InvalidArgumentError("bad shape item '" + item +
                                        "' (expected DIM=non-negative int)");
    shape[item.substr(0, eq)] = v;
  }
  for (const std::string &d : kernel.dims)
    if (!shape.count(d))
      return absl::InvalidArgumentError("shape '" + text + "' lacks " + d + " for " + kernel.name);
  if (shape.size() != kernel.dims.size())
    return absl::InvalidArgumentError("shape '" + text + "' has dimensions " + kernel.name +
                                      " does not have");
  return shape;
}

// ---- problems on a device ----------------------------------------------------------------------

absl::Status Problem::Upload(runtime::Device &device) {
  host_ = Buffers();
  device_.clear();
  for (const HostBuffer &h : host_) {
    absl::StatusOr<std::unique_ptr<runtime::Buffer>> buffer = device.Allocate(h.bytes);
    if (!buffer.ok())
      return buffer.status();
    if (absl::Status s = (*buffer)->CopyFromHost(h.data, h.bytes); !s.ok())
      return s;
    device_.push_back(*std::move(buffer));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<runtime::Arg>> Problem::DeviceArgs() {
  std::vector<runtime::Arg> args = HostArgs();
  for (runtime::Arg &a : args) {
    if (!std::holds_alternative<void *>(a))
      continue;
    void *host = std::get<void *>(a);
    size_t i = 0;
    while (i < host_.size() && host_[i].data != host)
      ++i;
    if (i == host_.size() || i >= device_.size())
      return absl::FailedPreconditionError(
          "a pointer argument of the problem has no device buffer (Upload first)");
    a = device_[i]->data();
  }
  return args;
}

absl::Status Problem::Download() {
  for (size_t i = 0; i < host_.size() && i < device_.size(); ++i)
    if (host_[i].output)
      if (absl::Status s = device_[i]->CopyToHost(host_[i].data, host_[i].bytes); !s.ok())
        return s;
  return absl::OkStatus();
}

absl::Status Problem::RunAndCheck(runtime::Device &device, const runtime::Kernel &kernel,
                                  const Point &config) {
  Poison();
  if (absl::Status s = Upload(device); !s.ok())
    return s;
  absl::StatusOr<std::vector<runtime::Arg>> args = DeviceArgs();
  if (!args.ok())
    return args.status();
  if (absl::Status s = device.Launch(kernel, GridFor(config), *args); !s.ok())
    return s;
  if (absl::Status s = device.Synchronize(); !s.ok())
    return s;
  if (absl::Status s = Download(); !s.ok())
    return s;
  return Check();
}

} // namespace tessel::zoo
