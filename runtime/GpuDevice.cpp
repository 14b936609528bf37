//===- GpuDevice.cpp - what the cuda and hip devices share -----------*- C++ -*-===//

#include "runtime/GpuDevice.h"

#include <algorithm>

namespace tessel::runtime {
namespace {

class GpuBuffer : public Buffer {
public:
  GpuBuffer(GpuDriver &d, uint64_t p, size_t size) : d_(d), p_(p), size_(size) {}
  ~GpuBuffer() override { d_.Free(p_); }
  void *data() override { return reinterpret_cast<void *>(p_); }
  size_t size() const override { return size_; }
  absl::Status CopyFromHost(const void *source, size_t bytes, size_t offset) override {
    if (offset > size_ || bytes > size_ - offset)
      return absl::OutOfRangeError("a copy past the end of a device buffer");
    return bytes ? d_.CopyToDevice(p_ + offset, source, bytes) : absl::OkStatus();
  }
  absl::Status CopyToHost(void *destination, size_t bytes, size_t offset) override {
    if (offset > size_ || bytes > size_ - offset)
      return absl::OutOfRangeError("a copy past the end of a device buffer");
    return bytes ? d_.CopyToHost(destination, p_ + offset, bytes) : absl::OkStatus();
  }
  absl::Status CopyFrom(Buffer &source, size_t bytes) override {
    if (bytes > size_ || bytes > source.size())
      return absl::OutOfRangeError("a copy larger than its buffers");
    return bytes ? d_.CopyOnDevice(p_, reinterpret_cast<uint64_t>(source.data()), bytes)
                 : absl::OkStatus();
  }

private:
  GpuDriver &d_;
  uint64_t p_;
  size_t size_;
};

class GpuExecutable : public Executable {
public:
  GpuExecutable(GpuDriver &d, void *module, std::string path)
      : d_(d), module_(module), path_(std::move(path)) {}
  ~GpuExecutable() override { d_.Unload(module_); }
  absl::StatusOr<Kernel> GetKernel(const std::string &name) const override {
    for (const GpuKernel &k : kernels_)
      if (k.info.name == name) {
        absl::StatusOr<std::vector<ArgType>> sig = ParseSignature(k.info.signature);
        if (!sig.ok())
          return sig.status();
        return Kernel(name, &k, *sig);
      }
    return absl::NotFoundError("no kernel '" + name + "' in " + path_);
  }
  std::vector<std::string> KernelNames() const override {
    std::vector<std::string> names;
    for (const GpuKernel &k : kernels_)
      names.push_back(k.info.name);
    return names;
  }
  const std::string &path() const override { return path_; }
  std::string buildInfo() const override { return buildInfo_; }
  std::vector<GpuKernel> kernels_;
  std::string buildInfo_;

private:
  GpuDriver &d_;
  void *module_;
  std::string path_;
};

} // namespace

absl::StatusOr<std::unique_ptr<Buffer>> GpuDevice::Allocate(size_t bytes) {
  uint64_t p = 0;
  if (absl::Status s = driver_.Malloc(&p, std::max<size_t>(bytes, 1)); !s.ok())
    return absl::Status(s.code(), "allocating " + std::to_string(bytes) + " bytes on the GPU: " +
                                      std::string(s.message()));
  return std::unique_ptr<Buffer>(new GpuBuffer(driver_, p, bytes));
}

absl::Status GpuDevice::CheckParameters(void *function, const GpuKernelInfo &info,
                                        const std::string &path) {
  std::optional<std::vector<size_t>> sizes = driver_.ParameterSizes(function);
  if (!sizes)
    return absl::OkStatus();
  absl::StatusOr<std::vector<ArgType>> sig = ParseSignature(info.signature);
  if (!sig.ok())
    return sig.status();
  // What the artifact says the launch passes: the signature's arguments (0: a size not
  // checked), its tensor maps and their mask, the persistent grid's sizes.
  std::vector<size_t> expected;
  for (const ArgType &t : *sig)
    expected.push_back(t.isPointer || t.element == "i64" || t.element == "f64" ? 8
                       : t.element == "i32" || t.element == "f32"             ? 4
                                                                             : 0);
  expected.insert(expected.end(), info.tensorMaps.size(), 128);
  if (!info.tensorMaps.empty())
    expected.push_back(4);
  if (info.persistent > 0)
    expected.insert(expected.end(), 3, 4);
  bool same = sizes->size() == expected.size();
  for (size_t i = 0; same && i < expected.size(); ++i)
    same = expected[i] == 0 || expected[i] == (*sizes)[i];
  if (same)
    return absl::OkStatus();
  auto list = [](const std::vector<size_t> &v) {
    std::string text;
    for (size_t n : v)
      text += (text.empty() ? "" : ", ") + (n ? std::to_string(n) : std::string("?"));
    return "[" + text + "]";
  };
  return absl::FailedPreconditionError(
      path + ": kernel '" + info.name + "' takes parameters of " + list(*sizes) +
      " bytes, but its artifact describes " + list(expected) +
      " (its signature, tensor maps and persistent grid): the artifact does not match its code");
}

absl::StatusOr<std::unique_ptr<Executable>> GpuDevice::MakeExecutable(
    void *module, const GpuArtifact &artifact, const std::string &path,
    const std::function<absl::Status(void *, const GpuKernelInfo &)> &prepare) {
  auto exe = std::make_unique<GpuExecutable>(driver_, module, path);
  for (const GpuKernelInfo &info : artifact.kernels) {
    absl::StatusOr<void *> f = driver_.Function(module, info.name);
    if (!f.ok())
      return absl::Status(f.status().code(), "finding kernel " + info.name + " in " + path +
                                                 ": " + std::string(f.status().message()));
    if (absl::Status s = CheckParameters(*f, info, path); !s.ok())
      return s;
    if (prepare)
      if (absl::Status s = prepare(*f, info); !s.ok())
        return s;
    exe->kernels_.push_back({*f, info});
  }
  exe->buildInfo_ = artifact.buildInfo;
  return std::unique_ptr<Executable>(std::move(exe));
}

absl::Status GpuDevice::Launch(const Kernel &kernel, Grid grid, const std::vector<Arg> &args) {
  absl::StatusOr<std::vector<uint64_t>> slots = PackArguments(kernel, grid, args);
  if (!slots.ok())
    return slots.status();
  const auto *k = static_cast<const GpuKernel *>(kernel.handle());
  // The code was compiled assuming these (Triton's divisibility specialization): a
  // misaligned vector access would fault, a wrong integer factor compute garbage.
  for (size_t i = 0; i < k->info.divisibility.size() && i < slots->size(); ++i) {
    uint64_t d = uint64_t(k->info.divisibility[i]);
    if (d > 1 && ((*slots)[i] & (d - 1)) != 0)
      return absl::InvalidArgumentError(
          "argument #" + std::to_string(i) + " of kernel '" + kernel.name() + "' must be " +
          (kernel.signature()[i].isPointer ? "a pointer aligned to " : "divisible by ") +
          std::to_string(d) + " (the kernel was compiled assuming it: tt.divisibility, a ':" +
          std::to_string(d) + "' in its signature)");
  }
  // Persistent: at most `persistent` blocks an SM, each running programs of the grid in turn;
  // the grid's sizes follow the arguments.
  if (k->info.persistent > 0) {
    if (multiprocessors_ == 0)
      return absl::FailedPreconditionError("launching " + kernel.name() +
                                           ": a persistent kernel needs the device's "
                                           "multiprocessor count, which it did not report");
    for (int32_t size : {grid.x, grid.y, grid.z})
      slots->push_back(uint32_t(size));
    grid = Grid{int32_t(std::max<int64_t>(
                    1, std::min(grid.programs(), multiprocessors_ * k->info.persistent))),
                1, 1};
  }
  // TMA tensor maps, then the mask of those made: each over the memory its pointer argument
  // points at, where the address and pitch allow one (else the kernel does without it).
  struct alignas(64) TensorMapBytes {
    unsigned char bytes[128];
  };
  std::vector<TensorMapBytes> maps(k->info.tensorMaps.size(), TensorMapBytes{});
  uint64_t made = 0;
  for (size_t i = 0; i < maps.size(); ++i) {
    const GpuTensorMap &m = k->info.tensorMaps[i];
    uint64_t address = (*slots)[m.pointer];
    // An integer argument's slot holds it as an int64 (PackArguments).
    int64_t pitch = m.pitchArgument >= 0 ? int64_t((*slots)[m.pitchArgument]) : m.pitch;
    uint64_t pitchBytes = uint64_t(pitch) * uint64_t(m.elementBytes);
    if (address % 16 != 0 || pitch < m.box[1] || pitchBytes % 16 != 0 ||
        pitchBytes >= (uint64_t(1) << 40) || pitch > (int64_t(1) << 32))
      continue;
    if (absl::Status s = driver_.EncodeTensorMap(maps[i].bytes, m, address, uint64_t(pitch));
        !s.ok())
      return absl::Status(s.code(), "launching " + kernel.name() + ": tensor map " +
                                        std::to_string(i) + " over argument #" +
                                        std::to_string(m.pointer) + ": " +
                                        std::string(s.message()));
    made |= uint64_t(1) << i;
  }
  // The signature's arguments, the tensor maps and their mask, the persistent grid's sizes.
  // (Little endian: a 4-byte scalar is its slot's low bytes.)
  std::vector<void *> params;
  size_t signature = kernel.signature().size();
  for (size_t i = 0; i < signature; ++i)
    params.push_back(&(*slots)[i]);
  for (TensorMapBytes &map : maps)
    params.push_back(map.bytes);
  if (!maps.empty())
    params.push_back(&made);
  for (size_t i = signature; i < slots->size(); ++i)
    params.push_back(&(*slots)[i]);
  absl::Status s =
      driver_.Launch(k->function, grid, k->info.block, unsigned(k->info.sharedBytes),
                     params.data());
  if (!s.ok())
    return absl::Status(s.code(), "launching " + kernel.name() + ": " + std::string(s.message()));
  return absl::OkStatus();
}

absl::Status GpuDevice::FlushCaches() {
  if (!flush_) {
    absl::StatusOr<std::unique_ptr<Buffer>> b = Allocate(flushBytes_);
    if (!b.ok())
      return b.status();
    flush_ = *std::move(b);
  }
  return driver_.Fill(reinterpret_cast<uint64_t>(flush_->data()), 0x5a, flush_->size());
}

absl::StatusOr<double> GpuDevice::TimeOne(const std::function<absl::Status()> &run) {
  absl::StatusOr<void *> start = driver_.CreateEvent();
  if (!start.ok())
    return start.status();
  absl::StatusOr<void *> stop = driver_.CreateEvent();
  if (!stop.ok()) {
    driver_.DestroyEvent(*start);
    return stop.status();
  }
  absl::Status s = driver_.Record(*start);
  if (s.ok())
    s = run();
  if (s.ok())
    s = driver_.Record(*stop);
  if (s.ok())
    s = driver_.WaitFor(*stop);
  absl::StatusOr<float> ms = 0.f;
  if (s.ok()) {
    ms = driver_.ElapsedMs(*start, *stop);
    s = ms.status();
  }
  driver_.DestroyEvent(*start);
  driver_.DestroyEvent(*stop);
  if (!s.ok())
    return s;
  return double(*ms) / 1e3;
}

} // namespace tessel::runtime
