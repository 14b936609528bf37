/*===- tessel_runtime.h - tessel's runtime for C applications -------------*- C -*-===//
 *
 * Opens a tuned bundle and launches its kernels by name with tensors by argument name: the
 * bundle's launch contract picks the entry and computes the scalars and the grid
 * (runtime/Launcher.h). Every call returns TESSEL_OK or an error code; tessel_last_error()
 * says why (per thread). No C++ types cross this header.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TESSEL_RUNTIME_CAPI_TESSEL_RUNTIME_H
#define TESSEL_RUNTIME_CAPI_TESSEL_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's version; tessel_version() returns the library's own. */
#define TESSEL_RUNTIME_VERSION "0.1.0"

enum {
  TESSEL_OK = 0,
  TESSEL_INVALID_ARGUMENT = 1,   /* a call or a tensor that does not match the contract */
  TESSEL_NOT_FOUND = 2,          /* no such bundle, kernel or entry */
  TESSEL_FAILED_PRECONDITION = 3, /* a bundle for another machine, no launch contract, ... */
  TESSEL_INTERNAL = 4            /* the device or the loader failed */
};

typedef struct tessel_device tessel_device;
typedef struct tessel_bundle tessel_bundle;

/* A tensor by its argument name: device memory, its dtype ("f32", "f16", "bf16", "f64",
 * "i8", "u8", "i16", "i32", "i64"), rank and sizes; strides in elements or NULL (row-major). */
typedef struct {
  const char *name;
  void *data;
  const char *dtype;
  int ndim;
  const int64_t *shape;
  const int64_t *strides;
} tessel_tensor;

/* A dim no tensor gives (a flag such as CAUSAL). */
typedef struct {
  const char *name;
  int64_t value;
} tessel_dim;

/* "cpu", "cuda" or "hip". */
int tessel_device_open(const char *kind, tessel_device **out);
int tessel_device_synchronize(tessel_device *device);
/* Later launches on `device` go to `stream` (a CUstream or hipStream_t the caller owns, e.g.
 * PyTorch's current stream; NULL: the default stream). The cpu device takes NULL only. */
int tessel_device_set_stream(tessel_device *device, void *stream);
void tessel_device_close(tessel_device *device);

/* Opens and verifies the bundle in `dir` (schema, target, checksums, signatures as the
 * TESSEL_TRUSTED_KEYS / TESSEL_REQUIRE_SIGNED_BUNDLES environment says). */
int tessel_bundle_open(const char *dir, tessel_bundle **out);
void tessel_bundle_close(tessel_bundle *bundle);

/* Launches `kernel` of `bundle` on `device` (asynchronously: synchronize to wait). */
int tessel_launch(tessel_bundle *bundle, tessel_device *device, const char *kernel,
                  const tessel_tensor *tensors, size_t num_tensors, const tessel_dim *dims,
                  size_t num_dims);

/* The bundle's device kind ("cpu", "cuda" or "hip": what tessel_device_open takes), and its
 * kernels by name (index 0 to tessel_bundle_num_kernels() - 1; NULL past the end). The strings
 * live as long as the bundle. */
const char *tessel_bundle_device_kind(const tessel_bundle *bundle);
size_t tessel_bundle_num_kernels(const tessel_bundle *bundle);
const char *tessel_bundle_kernel(const tessel_bundle *bundle, size_t index);

/* Which entry the last successful tessel_launch on this thread chose and why, e.g. "nearest
 * tuned shape M=1024,N=1024 for M=1000,N=1000" ("" before any). */
const char *tessel_last_choice(void);

/* Why the last failed call on this thread failed ("" when none did). */
const char *tessel_last_error(void);

/* The library's version (TESSEL_RUNTIME_VERSION of the header it was built with). */
const char *tessel_version(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_RUNTIME_CAPI_TESSEL_RUNTIME_H */
