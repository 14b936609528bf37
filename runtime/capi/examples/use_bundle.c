/* use_bundle BUNDLE_DIR: rms_norm_kernel (examples/rms_norm) from a tuned bundle, in C. */
#include <tessel/tessel_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  enum { ROWS = 4, COLS = 1000 };
  static float x[ROWS * COLS], w[COLS], y[ROWS * COLS];
  for (int i = 0; i < ROWS * COLS; ++i) {
    x[i] = (float)rand() / RAND_MAX - 0.5f;
    y[i] = NAN;
  }
  for (int i = 0; i < COLS; ++i)
    w[i] = 1.0f;
  const int64_t xs[2] = {ROWS, COLS}, ws[1] = {COLS};
  const tessel_tensor args[] = {{"x_ptr", x, "f32", 2, xs, NULL},
                                {"w_ptr", w, "f32", 1, ws, NULL},
                                {"y_ptr", y, "f32", 2, xs, NULL}};
  tessel_bundle *bundle = NULL;
  tessel_device *device = NULL;
  if (argc != 2 || tessel_bundle_open(argv[1], &bundle) ||
      tessel_device_open(tessel_bundle_device_kind(bundle), &device) ||
      tessel_launch(bundle, device, "rms_norm_kernel", args, 3, NULL, 0) ||
      tessel_device_synchronize(device)) {
    fprintf(stderr, "use_bundle: %s\n", argc == 2 ? tessel_last_error() : "usage: use_bundle BUNDLE_DIR");
    return 1;
  }
  printf("rms_norm_kernel: %s\n", tessel_last_choice());
  double ss = 0;
  for (int c = 0; c < COLS; ++c)
    ss += (double)x[c] * x[c];
  printf("y[0][0] = %f (expected %f)\n", y[0], x[0] / sqrt(ss / COLS + 1e-6));
  tessel_bundle_close(bundle);
  tessel_device_close(device);
  return fabs(y[0] - x[0] / sqrt(ss / COLS + 1e-6)) < 1e-4 ? 0 : 1;
}
