// use_bundle_cpp BUNDLE_DIR: rms_norm_kernel (examples/rms_norm) from a tuned bundle, in C++.
#include <tessel/tessel_runtime.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

namespace {
void check(int code) {
  if (code != TESSEL_OK)
    throw std::runtime_error(tessel_last_error());
}
} // namespace

int main(int argc, char **argv) try {
  if (argc != 2)
    throw std::runtime_error("usage: use_bundle_cpp BUNDLE_DIR");
  tessel_bundle *b = nullptr;
  check(tessel_bundle_open(argv[1], &b));
  std::unique_ptr<tessel_bundle, void (*)(tessel_bundle *)> bundle(b, tessel_bundle_close);
  tessel_device *d = nullptr;
  check(tessel_device_open(tessel_bundle_device_kind(b), &d));
  std::unique_ptr<tessel_device, void (*)(tessel_device *)> device(d, tessel_device_close);

  const int64_t rows = 8, cols = 1024;
  std::mt19937 gen(std::random_device{}());
  std::normal_distribution<float> normal;
  std::vector<float> x(rows * cols), w(cols, 2.0f), y(rows * cols, NAN);
  for (float &v : x)
    v = normal(gen);
  const int64_t xs[] = {rows, cols}, ws[] = {cols};
  const tessel_tensor args[] = {{"x_ptr", x.data(), "f32", 2, xs, nullptr},
                                {"w_ptr", w.data(), "f32", 1, ws, nullptr},
                                {"y_ptr", y.data(), "f32", 2, xs, nullptr}};
  check(tessel_launch(bundle.get(), device.get(), "rms_norm_kernel", args, 3, nullptr, 0));
  check(tessel_device_synchronize(device.get()));
  std::printf("rms_norm_kernel: %s\n", tessel_last_choice());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c)
      ss += double(x[r * cols + c]) * x[r * cols + c];
    for (int64_t c = 0; c < cols; ++c) {
      double want = x[r * cols + c] * 2.0 / std::sqrt(ss / cols + 1e-6);
      if (!(std::fabs(y[r * cols + c] - want) <= 1e-4 * (1 + std::fabs(want))))
        throw std::runtime_error("wrong result at row " + std::to_string(r));
    }
  }
  std::printf("all %lld rows correct\n", (long long)rows);
  return 0;
} catch (const std::exception &e) {
  std::fprintf(stderr, "use_bundle_cpp: %s\n", e.what());
  return 1;
}
