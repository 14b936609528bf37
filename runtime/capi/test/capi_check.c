/*===- capi_check.c - a C application on tessel's runtime C API -===//
 *
 * capi_check BUNDLE_DIR: opens the bundle on the cpu device, launches rms_norm_kernel (from
 * examples/rms_norm, tuned by //autotune:capi_test's sweep) on 3 x 1000 rows of its own data
 * through tessel_launch, checks the result against straightforward C, and checks that bad calls
 * are refused with their codes and messages. Exit 0 when all hold.
 *
 *===----------------------------------------------------------------------===*/

#include <tessel/tessel_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s (%s)\n", what, tessel_last_error());
    ++failures;
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi_check BUNDLE_DIR\n");
    return 2;
  }
  tessel_device *device = NULL;
  tessel_bundle *bundle = NULL;
  expect(tessel_device_open("cpu", &device) == TESSEL_OK, "the cpu device opens");
  expect(tessel_bundle_open("/no/such/bundle", &bundle) != TESSEL_OK && bundle == NULL &&
             strlen(tessel_last_error()) > 0,
         "a missing bundle is refused with a message");
  if (tessel_bundle_open(argv[1], &bundle) != TESSEL_OK) {
    fprintf(stderr, "FAIL: %s\n", tessel_last_error());
    return 1;
  }
  enum { ROWS = 3, COLS = 1000 };
  float *x = malloc(sizeof(float) * ROWS * COLS), *w = malloc(sizeof(float) * COLS);
  float *y = malloc(sizeof(float) * ROWS * COLS);
  srand(12345u ^ (unsigned)(size_t)&x);
  for (int i = 0; i < ROWS * COLS; ++i) {
    x[i] = (float)rand() / RAND_MAX * 2 - 1;
    y[i] = NAN;
  }
  for (int i = 0; i < COLS; ++i)
    w[i] = (float)rand() / RAND_MAX + 0.5f;
  const int64_t xs[2] = {ROWS, COLS}, ws[1] = {COLS};
  tessel_tensor tensors[3] = {{"x_ptr", x, "f32", 2, xs, NULL},
                              {"w_ptr", w, "f32", 1, ws, NULL},
                              {"y_ptr", y, "f32", 2, xs, NULL}};
  expect(tessel_launch(bundle, device, "rms_norm_kernel", tensors, 3, NULL, 0) == TESSEL_OK,
         "rms_norm_kernel launches");
  expect(tessel_device_synchronize(device) == TESSEL_OK, "the device synchronizes");
  for (int r = 0; r < ROWS; ++r) {
    double ss = 0;
    for (int c = 0; c < COLS; ++c)
      ss += (double)x[r * COLS + c] * x[r * COLS + c];
    double scale = 1 / sqrt(ss / COLS + 1e-6);
    for (int c = 0; c < COLS; ++c) {
      double want = x[r * COLS + c] * scale * w[c];
      if (!(fabs(y[r * COLS + c] - want) <= 1e-4 * (1 + fabs(want)))) {
        fprintf(stderr, "FAIL: y[%d][%d] = %g, expected %g\n", r, c, y[r * COLS + c], want);
        return 1;
      }
    }
  }
  expect(tessel_launch(bundle, device, "no_such_kernel", tensors, 3, NULL, 0) == TESSEL_NOT_FOUND,
         "an unknown kernel is TESSEL_NOT_FOUND");
  expect(tessel_launch(bundle, device, "rms_norm_kernel", tensors, 2, NULL, 0) ==
                 TESSEL_INVALID_ARGUMENT &&
             strstr(tessel_last_error(), "tensor 'y_ptr' is missing") != NULL,
         "a missing tensor is TESSEL_INVALID_ARGUMENT, named");
  tensors[1].dtype = "f16";
  expect(tessel_launch(bundle, device, "rms_norm_kernel", tensors, 3, NULL, 0) ==
             TESSEL_INVALID_ARGUMENT,
         "a wrong dtype is refused");
  expect(tessel_launch(NULL, device, "rms_norm_kernel", tensors, 3, NULL, 0) ==
             TESSEL_INVALID_ARGUMENT,
         "a NULL bundle is refused");
  tessel_bundle_close(bundle);
  tessel_device_close(device);
  free(x);
  free(w);
  free(y);
  if (failures)
    return 1;
  printf("capi_check: rms_norm_kernel 3x1000 correct through the C API; bad calls refused\n");
  return 0;
}
