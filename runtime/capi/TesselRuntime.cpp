//===- TesselRuntime.cpp - the C API over runtime::Bundle and runtime::Launcher -===//

#include "runtime/capi/tessel_runtime.h"

#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/Launcher.h"

#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

struct tessel_device {
  std::unique_ptr<tessel::runtime::Device> device;
};

struct tessel_bundle {
  std::unique_ptr<tessel::runtime::Bundle> bundle;
  std::string deviceKind;
  std::vector<std::string> kernels;
  /// One launcher per device it launched on (each keeps its loaded artifacts).
  std::map<tessel_device *, std::unique_ptr<tessel::runtime::Launcher>> launchers;
};

namespace {

thread_local std::string lastError, lastChoice;

int Fail(int code, std::string why) {
  lastError = std::move(why);
  return code;
}

int Code(const absl::Status &s) {
  if (s.ok()) {
    lastError.clear();
    return TESSEL_OK;
  }
  int code = absl::IsInvalidArgument(s)        ? TESSEL_INVALID_ARGUMENT
             : absl::IsNotFound(s)             ? TESSEL_NOT_FOUND
             : absl::IsFailedPrecondition(s)   ? TESSEL_FAILED_PRECONDITION
             : absl::IsOutOfRange(s)           ? TESSEL_INVALID_ARGUMENT
                                               : TESSEL_INTERNAL;
  return Fail(code, std::string(s.message()));
}

} // namespace

extern "C" {

int tessel_device_open(const char *kind, tessel_device **out) {
  if (!kind || !out)
    return Fail(TESSEL_INVALID_ARGUMENT, "tessel_device_open: kind and out must not be NULL");
  *out = nullptr;
  auto device = tessel::runtime::Device::Create(kind);
  if (!device.ok())
    return Code(device.status());
  *out = new (std::nothrow) tessel_device{*std::move(device)};
  return *out ? Code(absl::OkStatus()) : Fail(TESSEL_INTERNAL, "out of memory");
}

int tessel_device_synchronize(tessel_device *device) {
  if (!device)
    return Fail(TESSEL_INVALID_ARGUMENT, "tessel_device_synchronize: device is NULL");
  return Code(device->device->Synchronize());
}

int tessel_device_set_stream(tessel_device *device, void *stream) {
  if (!device)
    return Fail(TESSEL_INVALID_ARGUMENT, "tessel_device_set_stream: device is NULL");
  return Code(device->device->SetStream(stream));
}

void tessel_device_close(tessel_device *device) { delete device; }

int tessel_bundle_open(const char *dir, tessel_bundle **out) {
  if (!dir || !out)
    return Fail(TESSEL_INVALID_ARGUMENT, "tessel_bundle_open: dir and out must not be NULL");
  *out = nullptr;
  auto bundle = tessel::runtime::Bundle::Open(dir);
  if (!bundle.ok())
    return Code(bundle.status());
  std::set<std::string> names;
  for (const tessel::runtime::BundleEntry &e : (*bundle)->entries())
    names.insert(e.kernel);
  std::string kind = (*bundle)->target().deviceKind();
  *out = new (std::nothrow)
      tessel_bundle{*std::move(bundle), kind, {names.begin(), names.end()}, {}};
  return *out ? Code(absl::OkStatus()) : Fail(TESSEL_INTERNAL, "out of memory");
}

void tessel_bundle_close(tessel_bundle *bundle) { delete bundle; }

const char *tessel_bundle_device_kind(const tessel_bundle *bundle) {
  return bundle ? bundle->deviceKind.c_str() : nullptr;
}

size_t tessel_bundle_num_kernels(const tessel_bundle *bundle) {
  return bundle ? bundle->kernels.size() : 0;
}

const char *tessel_bundle_kernel(const tessel_bundle *bundle, size_t index) {
  return bundle && index < bundle->kernels.size() ? bundle->kernels[index].c_str() : nullptr;
}

int tessel_launch(tessel_bundle *bundle, tessel_device *device, const char *kernel,
                  const tessel_tensor *tensors, size_t num_tensors, const tessel_dim *dims,
                  size_t num_dims) {
  if (!bundle || !device || !kernel || (num_tensors && !tensors) || (num_dims && !dims))
    return Fail(TESSEL_INVALID_ARGUMENT,
                "tessel_launch: bundle, device and kernel must not be NULL, nor tensors or dims "
                "when counted");
  tessel::runtime::LaunchRequest request;
  for (size_t i = 0; i < num_tensors; ++i) {
    const tessel_tensor &t = tensors[i];
    if (!t.name || !t.dtype || t.ndim < 0 || t.ndim > 8 || (t.ndim && !t.shape))
      return Fail(TESSEL_INVALID_ARGUMENT,
                  "tessel_launch: tensor " + std::to_string(i) +
                      " needs a name, a dtype, a rank in [0, 8] and its shape");
    tessel::runtime::TensorArg arg;
    arg.data = t.data;
    arg.dtype = t.dtype;
    arg.shape.assign(t.shape, t.shape + t.ndim);
    if (t.strides)
      arg.strides.assign(t.strides, t.strides + t.ndim);
    if (!request.tensors.emplace(t.name, arg).second)
      return Fail(TESSEL_INVALID_ARGUMENT,
                  std::string("tessel_launch: tensor '") + t.name + "' given twice");
  }
  for (size_t i = 0; i < num_dims; ++i) {
    if (!dims[i].name)
      return Fail(TESSEL_INVALID_ARGUMENT, "tessel_launch: a dim without a name");
    request.dims[dims[i].name] = dims[i].value;
  }
  auto &launcher = bundle->launchers[device];
  if (!launcher)
    launcher = std::make_unique<tessel::runtime::Launcher>(*bundle->bundle, *device->device);
  auto report = launcher->Launch(kernel, request);
  if (report.ok())
    lastChoice = report->choice.explanation;
  return Code(report.status());
}

const char *tessel_last_choice(void) { return lastChoice.c_str(); }

const char *tessel_last_error(void) { return lastError.c_str(); }

const char *tessel_version(void) { return TESSEL_RUNTIME_VERSION; }

} // extern "C"
