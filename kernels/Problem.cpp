//===- Problem.cpp - a zoo problem's data on a device -*- C++ -*-===//

#include "kernels/Zoo.h"

#include <cmath>
#include <cstring>
#include <map>

namespace tessel::zoo {

// ---- element types -----------------------------------------------------------------------------

absl::StatusOr<ElementType> ParseElementType(const std::string &dtype) {
  static const std::map<std::string, ElementType> kTypes = {
      {"f32", ElementType::F32}, {"f16", ElementType::F16}, {"bf16", ElementType::BF16},
      {"f64", ElementType::F64}, {"i8", ElementType::I8},   {"u8", ElementType::U8},
      {"i16", ElementType::I16}, {"i32", ElementType::I32}, {"i64", ElementType::I64}};
  auto it = kTypes.find(dtype);
  if (it == kTypes.end())
    return absl::InvalidArgumentError("unknown dtype '" + dtype + "'");
  return it->second;
}

size_t ElementBytes(ElementType type) {
  switch (type) {
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
  case ElementType::I16:
    return 2;
  default:
    return 1;
  }
}

bool IsFloat(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 || type == ElementType::BF16 ||
         type == ElementType::F64;
}

double Decode(ElementType type, const uint8_t *p) {
  switch (type) {
  case ElementType::F32: {
    float x;
    std::memcpy(&x, p, 4);
    return x;
  }
  case ElementType::F16: {
    _Float16 h;
    std::memcpy(&h, p, 2);
    return double(h);
  }
  case ElementType::BF16: {
    uint32_t bits = uint32_t(p[0] | (p[1] << 8)) << 16;
    float x;
    std::memcpy(&x, &bits, 4);
    return x;
  }
  case ElementType::F64: {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  case ElementType::I8:
    return double(int8_t(*p));
  case ElementType::U8:
    return double(*p);
  case ElementType::I16: {
    int16_t x;
    std::memcpy(&x, p, 2);
    return x;
  }
  case ElementType::I32: {
    int32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  case ElementType::I64: {
    int64_t x;
    std::memcpy(&x, p, 8);
    return double(x);
  }
  }
  return 0;
}

void Encode(ElementType type, double x, uint8_t *p) {
  switch (type) {
  case ElementType::F32: {
    float f = float(x);
    std::memcpy(p, &f, 4);
    return;
  }
  case ElementType::F16: {
    _Float16 h = _Float16(x);
    std::memcpy(p, &h, 2);
    return;
  }
  case ElementType::BF16: {
    float f = float(x);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    if ((b & 0x7fffffff) > 0x7f800000) // NaN stays NaN
      b |= 0x00400000;
    else
      b += 0x7fff + ((b >> 16) & 1);
    uint16_t h = uint16_t(b >> 16);
    std::memcpy(p, &h, 2);
    return;
  }
  case ElementType::F64:
    std::memcpy(p, &x, 8);
    return;
  default: {
    int64_t i = int64_t(std::llround(x));
    std::memcpy(p, &i, ElementBytes(type)); // little-endian: the low bytes
  }
  }
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
