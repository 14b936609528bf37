//===- SpecProblem.cpp - one problem of a spec kernel: inputs, poison, checks -===//

#include "kernels/ProblemData.h"
#include "kernels/spec/SpecModel.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace tessel::spec::model {
namespace {

/// One problem of a spec kernel: fresh inputs as the spec says, outputs poisoned, and a check
/// against the outputs of the reference configuration, run first on the same inputs.
class SpecProblem : public zoo::Problem {
public:
  static absl::StatusOr<std::unique_ptr<zoo::Problem>>
  Make(std::shared_ptr<const Model> model, const zoo::Shape &shape, const std::string &dtype,
       uint64_t seed) {
    std::unique_ptr<SpecProblem> p(new SpecProblem());
    p->model_ = model;
    p->shape_ = shape;
    p->dtype_ = dtype;
    p->seed_ = seed;
    const SpecData &data = *model->data;
    absl::StatusOr<Bound> b = Bind(data, model->base, shape, dtype);
    if (!b.ok())
      return b.status();
    p->bound_ = *b;
    std::mt19937_64 gen(seed);
    p->tensors_.resize(data.args.size());
    for (size_t i = 0; i < data.args.size(); ++i) {
      const ArgSpec &a = data.args[i];
      if (!a.tensor)
        continue;
      Tensor &t = p->tensors_[i];
      t.SetType(ElementType(a, dtype));
      t.shape = b->tensorShapes[i];
      t.role = a.role;
      int64_t n = 1;
      for (int64_t d : b->tensorShapes[i])
        n *= d;
      t.count = size_t(n);
      t.bytes.assign(std::max<size_t>(1, t.count) * DtypeBytes(t.dtype), 0);
      for (size_t k = 0; k < t.count; ++k) {
        double x = 0;
        const std::vector<double> &q = a.initArgs;
        if (a.init == "normal")
          x = std::normal_distribution<double>(q[0], q[1])(gen);
        else if (a.init == "uniform")
          x = std::uniform_real_distribution<double>(q[0], q[1])(gen);
        else if (a.init == "randint")
          x = double(std::uniform_int_distribution<int64_t>(int64_t(std::ceil(q[0])),
                                                            int64_t(std::ceil(q[1])) - 1)(gen));
        else if (a.init == "ones")
          x = 1;
        else if (a.init == "const")
          x = q[0];
        t.Set(k, x);
      }
      if (t.role == ArgSpec::Role::InOut)
        t.initial = t.bytes;
    }
    return std::unique_ptr<zoo::Problem>(std::move(p));
  }

  absl::StatusOr<runtime::Grid> GridFor(const zoo::Point &config) const override {
    return model_->Grid(config, shape_, dtype_);
  }

  void Poison() override {
    for (Tensor &t : tensors_) {
      if (t.role == ArgSpec::Role::InOut)
        t.bytes = t.initial; // its initial values again
      else if (t.role == ArgSpec::Role::Out)
        for (size_t k = 0; k < t.count; ++k)
          t.Poison(k);
    }
  }

  bool NeedsReference() const override { return !model_->reference; }

  absl::Status KeepAsReference() override {
    expected_.clear();
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const Tensor &t = tensors_[i];
      if (t.count == 0 || t.role == ArgSpec::Role::In)
        continue;
      for (size_t k = 0; k < t.count; ++k)
        if (t.Unwritten(k))
          return absl::FailedPreconditionError(
              "the reference configuration left " + model_->data->args[i].name + "[" +
              std::to_string(k) + "] unwritten (or not finite): it cannot check candidates");
      expected_[i] = t.bytes;
    }
    return absl::OkStatus();
  }

  absl::Status Check() const override {
    if (model_->reference) {
      zoo::Tensors views;
      for (size_t i = 0; i < tensors_.size(); ++i)
        if (model_->data->args[i].tensor)
          views[model_->data->args[i].name] = tensors_[i].View();
      return model_->reference(views, shape_, dtype_, seed_);
    }
    if (expected_.empty() && HasOutputs())
      return absl::FailedPreconditionError("no reference outputs to check against (run the "
                                           "reference configuration first)");
    for (const auto &[i, want] : expected_) {
      const Tensor &t = tensors_[i];
      const uint8_t *w = want.data();
      double sumSquares = 0;
      for (size_t k = 0; k < t.count; ++k)
        sumSquares += t.GetAt(w, k) * t.GetAt(w, k);
      double rms = t.count ? std::sqrt(sumSquares / double(t.count)) : 0;
      auto tol = model_->tolerance.find(t.dtype);
      double rel = tol != model_->tolerance.end() ? tol->second : DefaultTolerance(t.dtype);
      const std::string &name = model_->data->args[i].name;
      for (size_t k = 0; k < t.count; ++k) {
        double got = t.Get(k), x = t.GetAt(w, k);
        if (!t.isFloat) {
          if (std::memcmp(&t.bytes[k * t.width], &want[k * t.width], t.width) != 0)
            return zoo::mismatch(name, k, got, x);
          continue;
        }
        if (!(std::fabs(got - x) <= rel * (std::fabs(x) + rms)))
          return zoo::mismatch(name, k, got, x);
      }
    }
    return absl::OkStatus();
  }

protected:
  std::vector<runtime::Arg> HostArgs() override {
    std::vector<runtime::Arg> out;
    const SpecData &data = *model_->data;
    for (size_t i = 0; i < data.args.size(); ++i) {
      const ArgSpec &a = data.args[i];
      if (a.tensor) {
        out.push_back(static_cast<void *>(tensors_[i].bytes.data()));
        continue;
      }
      if (IsBaked(a))
        continue;
      const Value &v = bound_.scalars[i];
      std::string type = ScalarType(a, v);
      if (type == "i32")
        out.push_back(int32_t(v.i));
      else if (type == "i64")
        out.push_back(int64_t(v.i));
      else if (type == "fp32")
        out.push_back(float(v.AsDouble()));
      else
        out.push_back(v.AsDouble());
    }
    return out;
  }
  std::vector<HostBuffer> Buffers() override {
    std::vector<HostBuffer> out;
    for (Tensor &t : tensors_)
      if (!t.bytes.empty())
        out.push_back({t.bytes.data(), t.bytes.size(), t.role != ArgSpec::Role::In});
    return out;
  }

public:
  /// The type a scalar is passed as: the spec's, else i32 for an integer (Bind refuses one past
  /// i32's range), fp32 for a float.
  static std::string ScalarType(const ArgSpec &a, const Value &v) {
    if (!a.type.empty())
      return a.type;
    return "i32"; // Bind refuses an untyped float
  }
  bool IsBaked(const ArgSpec &a) const {
    if (a.constexpr_)
      return true;
    for (const KernelParam &p : model_->data->file->params())
      if (p.name == a.name && p.isConstexpr)
        return true;
    return false;
  }

private:
  /// A tensor argument's host data. Its element type is decoded once: Get and Set run per
  /// element over hundreds of millions of them.
  struct Tensor {
    std::string dtype;
    zoo::ElementType type = zoo::ElementType::F32;
    size_t width = 4;
    bool isFloat = true;
    ArgSpec::Role role = ArgSpec::Role::In;
    std::vector<int64_t> shape;
    size_t count = 0;
    std::vector<uint8_t> bytes, initial;
    void SetType(const std::string &d) {
      dtype = d;
      type = *zoo::ParseElementType(d); // the spec reader admits only these
      width = zoo::ElementBytes(type);
      isFloat = zoo::IsFloat(type);
    }
    double Get(size_t k) const { return GetAt(bytes.data(), k); }
    /// Element `k` of data laid out as this tensor's (its reference's copy).
    double GetAt(const uint8_t *data, size_t k) const { return zoo::Decode(type, data + k * width); }
    void Set(size_t k, double x) { zoo::Encode(type, x, &bytes[k * width]); }
    /// NaN for floats; for integers a byte pattern (0xA5...) a kernel is unlikely to write.
    void Poison(size_t k) {
      if (isFloat)
        Set(k, std::nan(""));
      else
        std::memset(&bytes[k * width], 0xA5, width);
    }
    bool Unwritten(size_t k) const {
      if (isFloat)
        return !std::isfinite(Get(k));
      if (role != ArgSpec::Role::Out)
        return false;
      for (size_t b = 0; b < width; ++b)
        if (bytes[k * width + b] != 0xA5)
          return false;
      return true;
    }
    zoo::HostTensor View() const {
      return zoo::HostTensor{dtype, type, shape, count, bytes.data()};
    }
  };
  bool HasOutputs() const {
    for (const Tensor &t : tensors_)
      if (t.count && t.role != ArgSpec::Role::In)
        return true;
    return false;
  }

  SpecProblem() = default;
  std::shared_ptr<const Model> model_;
  zoo::Shape shape_;
  std::string dtype_;
  uint64_t seed_ = 0;
  Bound bound_;
  std::vector<Tensor> tensors_;
  std::map<size_t, std::vector<uint8_t>> expected_;
};

} // namespace

absl::StatusOr<std::unique_ptr<zoo::Problem>> MakeProblem(std::shared_ptr<const Model> model,
                                                         const zoo::Shape &shape,
                                                         const std::string &dtype,
                                                         uint64_t seed) {
  return SpecProblem::Make(std::move(model), shape, dtype, seed);
}

} // namespace tessel::spec::model
