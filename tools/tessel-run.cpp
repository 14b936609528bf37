//===- tessel-run.cpp - run one compiled kernel on .npy inputs ------*- C++ -*-===//
//
// tessel-run ARTIFACT.so --entry NAME --grid X[,Y,Z]
//            --arg in:FILE.npy | inout:FILE.npy | out:SHAPE:DTYPE | scalar:DTYPE:VALUE ...
//            [--out-dir DIR] [--threads N] [--device cpu|cuda]
//
// ARTIFACT is what the device loads: a shared object (cpu) or a GPU artifact (cuda).
//
// Arguments are given in the kernel's order. `out` buffers start poisoned (NaN / 0x5A bytes)
// and, like `inout` buffers, are written to DIR/arg<i>.npy after the run. Links the runtime
// only.
//
//===----------------------------------------------------------------------===//

#include "runtime/Device.h"
#include "runtime/Launch.h"
#include "runtime/Module.h"
#include "runtime/Npy.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/cli/Cli.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <optional>

using namespace tessel::runtime;

namespace {

int fail(const std::string &message) {
  std::cerr << "tessel-run: " << message << "\n";
  return 1;
}

const char *kUsage =
    "usage: tessel-run ARTIFACT.so --entry NAME --grid X[,Y,Z] --arg SPEC... [--out-dir DIR] "
    "[--threads N] [--device cpu|cuda]\n  SPEC: in:FILE.npy | inout:FILE.npy | out:SHAPE:DTYPE (e.g. "
    "out:128x64:f32) | scalar:DTYPE:VALUE (e.g. scalar:i32:1000)\n"
    "  Checked: the number of arguments, each one's kind (buffer or scalar) and dtype against\n"
    "  the kernel's signature, scalars against their dtype's range, .npy files in full.\n"
    "  tessel-run cannot check that a buffer is as large as the kernel reads or writes: a\n"
    "  compiled kernel does not know its buffers' sizes, so give shapes that match the grid\n"
    "  and the scalars (a buffer too small is read or written out of bounds).\n";

/// Faults while a kernel runs. The CPU device guards every buffer (DeviceOptions::
/// guardBuffers), so a kernel that runs past one faults at once; the handler then names the
/// nearest argument and exits 1. A fault at any other time is tessel-run's own and crashes as
/// usual. Only async-signal-safe calls in the handler: write and _exit.
namespace faults {

struct Range {
  uintptr_t begin = 0, end = 0;
};
constexpr int kMaxRanges = 256;
Range ranges[kMaxRanges];
int rangeCount = 0;
uintptr_t pageBytes = 4096; ///< the gap a buffer's first page leaves before it, at most
volatile sig_atomic_t armed = 0;

void say(const char *text) {
  size_t n = 0;
  while (text[n])
    ++n;
  ssize_t ignored = write(2, text, n);
  (void)ignored;
}

void sayNumber(uint64_t v, bool hex = false) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % (hex ? 16 : 10)];
    v /= hex ? 16 : 10;
  } while (v);
  char text[28];
  int k = 0;
  if (hex)
    text[k++] = '0', text[k++] = 'x';
  while (n)
    text[k++] = digits[--n];
  text[k] = 0;
  say(text);
}

void handler(int signal, siginfo_t *info, void *) {
  if (!armed) {
    // Not the kernel's: the default action, once the faulting instruction runs again.
    std::signal(signal, SIG_DFL);
    return;
  }
  uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  say("tessel-run: the kernel accessed memory outside its buffers (address ");
  sayNumber(address, true);
  int nearest = -1;
  uintptr_t distance = 0;
  bool after = true;
  for (int i = 0; i < rangeCount; ++i) {
    const Range &r = ranges[i];
    if (r.begin == r.end) // a scalar argument
      continue;
    if (address >= r.end && address - r.end < kGuardAfterBytes &&
        (nearest < 0 || address - r.end < distance))
      nearest = i, distance = address - r.end, after = true;
    if (address < r.begin && r.begin - address <= kGuardBeforeBytes + pageBytes &&
        (nearest < 0 || r.begin - address < distance))
      nearest = i, distance = r.begin - address, after = false;
  }
  if (nearest >= 0 && after) {
    say(", byte ");
    sayNumber(address - ranges[nearest].begin);
    say(" of argument #");
    sayNumber(uint64_t(nearest));
    say(", past the end of its ");
    sayNumber(ranges[nearest].end - ranges[nearest].begin);
    say(" bytes");
  } else if (nearest >= 0) {
    say(", ");
    sayNumber(distance);
    say(" bytes before the start of argument #");
    sayNumber(uint64_t(nearest));
  } else {
    say(", near none of the argument buffers");
  }
  say("): a compiled kernel does not know its buffers' sizes; give shapes that match the grid "
      "and the scalars\n");
  _exit(1);
}

/// Remembers the buffers (argument index = position; scalars have empty ranges) and installs
/// the handler for SIGSEGV and SIGBUS.
void Arm(const std::vector<Range> &buffers) {
  rangeCount = 0;
  pageBytes = uintptr_t(sysconf(_SC_PAGESIZE));
  for (const Range &r : buffers)
    if (rangeCount < kMaxRanges)
      ranges[rangeCount++] = r;
  struct sigaction action = {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, nullptr);
  sigaction(SIGBUS, &action, nullptr);
  armed = 1;
}

void Disarm() { armed = 0; }

} // namespace faults

/// An argument's array on the host and its copy on the device.
struct ArgumentArray {
  NpyArray array;
  bool writeBack = false;
  std::unique_ptr<tessel::runtime::Buffer> device;
};

} // namespace

int main(int argc, char **argv) {
  std::string artifact, entry, gridText, outDir = ".";
  std::vector<std::string> specs;
  unsigned threads = 0;
  std::string deviceKind = "cpu";
  int64_t threadCount = 0;
  tessel::cli::Command c("tessel-run", std::string("Runs one kernel of a compiled artifact on "
                                                   ".npy arrays and writes its outputs.\n\n") +
                                           kUsage);
  c.Positional("ARTIFACT", &artifact, "The compiled kernel (.so, or a GPU artifact)");
  c.Text("--entry", &entry, "The kernel to run", "NAME");
  c.Text("--grid", &gridText, "Programs to launch", "X[,Y,Z]");
  c.Repeated("--arg", &specs, "The kernel's arguments in order (repeat the flag; see SPEC above)",
             "SPEC");
  c.Text("--out-dir", &outDir, "Where out and inout arrays are written", "DIR");
  c.Integer("--threads", &threadCount, 0, 1 << 20, "CPU worker threads (0: the machine's)");
  c.Choice("--device", &deviceKind, {"cpu", "cuda", "hip"}, "The device to run on");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  threads = unsigned(threadCount);
  if (artifact.empty() || entry.empty() || gridText.empty())
    return c.UsageError("ARTIFACT, --entry and --grid are required");

  // Where the outputs go, made when missing (its last level) and checked before anything
  // runs: a long run never ends unable to write its results.
  {
    struct stat st;
    if (stat(outDir.c_str(), &st) != 0) {
      if (errno != ENOENT || mkdir(outDir.c_str(), 0777) != 0)
        return fail("cannot create --out-dir " + outDir + ": " + std::strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
      return fail("--out-dir " + outDir + " is not a directory");
    }
  }

  Grid grid;
  {
    std::vector<std::string> dims = absl::StrSplit(gridText, ',');
    int32_t *fields[] = {&grid.x, &grid.y, &grid.z};
    if (dims.size() > 3)
      return fail("--grid takes at most three dimensions, got '" + gridText + "'");
    for (size_t d = 0; d < dims.size(); ++d)
      if (!absl::SimpleAtoi(dims[d], fields[d]) || *fields[d] <= 0)
        return fail("bad --grid '" + gridText + "': dimensions are positive integers");
  }

  DeviceOptions deviceOptions;
  deviceOptions.threads = threads;
  deviceOptions.guardBuffers = true;
  absl::StatusOr<std::unique_ptr<Device>> device = Device::Create(deviceKind, deviceOptions);
  if (!device.ok())
    return fail("--threads " + std::to_string(threads) + ", --device " + deviceKind + ": " +
                std::string(device.status().message()));
  auto module = (*device)->Load(artifact);
  if (!module.ok())
    return fail(std::string(module.status().message()));
  auto kernel = (*module)->GetKernel(entry);
  if (!kernel.ok())
    return fail(std::string(kernel.status().message()));
  const std::vector<ArgType> &sig = kernel->signature();
  if (specs.size() != sig.size())
    return fail(absl::StrCat("kernel '", entry, "' takes ", sig.size(), " arguments, got ",
                             specs.size(), " --arg"));

  std::vector<ArgumentArray> buffers(specs.size());
  std::vector<Arg> args;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string &spec = specs[i];
    const ArgType &type = sig[i];
    std::string where = absl::StrCat("argument #", i, " ('", spec, "', kernel expects ",
                                     type.str(), ")");
    size_t colon = spec.find(':');
    std::string kind = spec.substr(0, colon), rest = colon == std::string::npos
                                                         ? std::string()
                                                         : spec.substr(colon + 1);
    if (kind == "in" || kind == "inout" || kind == "out") {
      if (!type.isPointer)
        return fail(where + ": a buffer was given for a scalar");
      ArgumentArray &b = buffers[i];
      if (kind == "out") {
        std::vector<std::string> parts = absl::StrSplit(rest, ':');
        if (parts.size() != 2)
          return fail(where + ": expected out:SHAPE:DTYPE");
        b.array.dtype = parts[1];
        if (ElementBytes(b.array.dtype) == 0)
          return fail(where + ": unknown dtype '" + parts[1] + "'");
        int64_t bytes = ElementBytes(b.array.dtype);
        for (absl::string_view d : absl::StrSplit(parts[0], 'x')) {
          int64_t v;
          if (!absl::SimpleAtoi(d, &v) || v <= 0)
            return fail(where + ": bad shape '" + parts[0] + "'");
          if (__builtin_mul_overflow(bytes, v, &bytes) || bytes > kMaxNpyBytes)
            return fail(where + ": shape '" + parts[0] + "' is too large");
          b.array.shape.push_back(v);
        }
        b.array.data.assign(b.array.elements() * ElementBytes(b.array.dtype), 0x5A);
        if (b.array.dtype == "f32") {
          float nan = std::numeric_limits<float>::quiet_NaN();
          for (int64_t e = 0; e < b.array.elements(); ++e)
            std::memcpy(&b.array.data[e * 4], &nan, 4);
        }
        b.writeBack = true;
      } else {
        absl::StatusOr<NpyArray> array = ReadNpy(rest);
        if (!array.ok())
          return fail(where + ": " + std::string(array.status().message()));
        b.array = *std::move(array);
        b.writeBack = kind == "inout";
      }
      if (b.array.dtype != type.element)
        return fail(where + ": the array holds " + b.array.dtype);
      absl::StatusOr<std::unique_ptr<tessel::runtime::Buffer>> onDevice =
          (*device)->Allocate(b.array.data.size());
      if (!onDevice.ok())
        return fail(where + ": " + std::string(onDevice.status().message()));
      if (absl::Status s = (*onDevice)->CopyFromHost(b.array.data.data(), b.array.data.size());
          !s.ok())
        return fail(where + ": " + std::string(s.message()));
      b.device = *std::move(onDevice);
      args.push_back(b.device->data());
      continue;
    }
    if (kind != "scalar")
      return fail(where + ": unknown kind '" + kind + "' (in, inout, out or scalar)\n" + kUsage);
    if (type.isPointer)
      return fail(where + ": a scalar was given for a pointer");
    std::vector<std::string> parts = absl::StrSplit(rest, ':');
    if (parts.size() != 2)
      return fail(where + ": expected scalar:DTYPE:VALUE");
    if (parts[0] != type.element)
      return fail(where + ": the scalar is " + parts[0]);
    if (type.element == "f32" || type.element == "f64") {
      double v;
      if (!absl::SimpleAtod(parts[1], &v))
        return fail(where + ": '" + parts[1] + "' is not a number");
      if (type.element == "f32" && std::isfinite(v) &&
          std::fabs(v) > double(std::numeric_limits<float>::max()))
        return fail(where + ": " + parts[1] + " does not fit f32");
      args.push_back(v);
    } else {
      int64_t v;
      if (!absl::SimpleAtoi(parts[1], &v))
        return fail(where + ": '" + parts[1] + "' is not an integer");
      // The range of the kernel's integer type: a wider value would be silently truncated.
      static const std::map<std::string, std::pair<int64_t, int64_t>> ranges = {
          {"i1", {0, 1}},
          {"i8", {-128, 127}},
          {"i16", {-32768, 32767}},
          {"i32", {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}},
          {"i64", {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}}};
      auto range = ranges.find(type.element);
      if (range == ranges.end())
        return fail(where + ": scalars of type " + type.element + " are not supported");
      if (v < range->second.first || v > range->second.second)
        return fail(where + ": " + parts[1] + " does not fit " + type.element);
      args.push_back(v);
    }
  }

  std::vector<faults::Range> ranges(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].device) {
      ranges[i].begin = reinterpret_cast<uintptr_t>(buffers[i].device->data());
      ranges[i].end = ranges[i].begin + buffers[i].device->size();
    }
  faults::Arm(ranges);
  absl::Status launched = (*device)->Launch(*kernel, grid, args);
  if (launched.ok())
    launched = (*device)->Synchronize();
  faults::Disarm();
  if (!launched.ok())
    return fail(std::string(launched.message()));
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].writeBack)
      continue;
    if (absl::Status s =
            buffers[i].device->CopyToHost(buffers[i].array.data.data(), buffers[i].array.data.size());
        !s.ok())
      return fail(std::string(s.message()));
    std::string path = absl::StrCat(outDir, "/arg", i, ".npy");
    if (absl::Status s = WriteNpy(path, buffers[i].array); !s.ok())
      return fail(std::string(s.message()));
    std::cout << "wrote " << path << "\n";
  }
  return 0;
}
