//===- Problem.cpp - a zoo problem's data on a device -*- C++ -*-===//

#include "kernels/Zoo.h"

namespace tessel::zoo {

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

absl::Status Problem::LaunchOnce(runtime::Device &device, const runtime::Kernel &kernel,
                                 const Point &config) {
  Poison();
  if (absl::Status s = Upload(device); !s.ok())
    return s;
  absl::StatusOr<std::vector<runtime::Arg>> args = DeviceArgs();
  if (!args.ok())
    return args.status();
  absl::StatusOr<runtime::Grid> grid = GridFor(config);
  if (!grid.ok())
    return grid.status();
  if (absl::Status s = device.Launch(kernel, *grid, *args); !s.ok())
    return s;
  if (absl::Status s = device.Synchronize(); !s.ok())
    return s;
  return Download();
}

absl::Status Problem::RunAndCheck(runtime::Device &device, const runtime::Kernel &kernel,
                                  const Point &config) {
  if (absl::Status s = LaunchOnce(device, kernel, config); !s.ok())
    return s;
  return Check();
}

absl::Status Problem::RunReference(runtime::Device &device, const runtime::Kernel &kernel,
                                   const Point &config) {
  if (absl::Status s = LaunchOnce(device, kernel, config); !s.ok())
    return s;
  return KeepAsReference();
}

} // namespace tessel::zoo
