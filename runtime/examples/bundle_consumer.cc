//===- bundle_consumer.cc - an application using a tuned bundle through the runtime only -*- C++ -*-===//
//
// bundle_consumer BUNDLE_DIR --list
// bundle_consumer BUNDLE_DIR KERNEL NAME=FILE.npy... [DIM=INT...] [--out=DIR] [--repeat=N]
// (bundle_consumer --help lists the options)
//
// Opens a bundle (verified: schema, target, checksums) and launches one of its kernels on the
// caller's arrays through runtime::Launcher: every tensor of the kernel's launch contract by its
// argument name from a .npy file (outputs too: their file gives the shape and the contents the
// kernel starts from), the dims no tensor gives (a flag such as CAUSAL) as DIM=INT. The bundle's
// launch contract checks the arrays, picks the entry (tuned for these sizes or the nearest one
// that serves them, and says which), computes the scalars and the grid. The kernel's outputs are
// written to DIR/NAME.npy (default: the current directory). No per-kernel code: any kernel of
// any bundle with launch contracts. `--list` prints each kernel's contract and entries. Links
// only the runtime: no compiler, no LLVM. `--repeat=N` launches N more times and prints the host
// time a launch call takes and the time per launch until the device finished them all. Exit status 0 on success, 1 when the bundle, the
// arrays or the launch fail, 2 on a bad command line.
//
//===----------------------------------------------------------------------===//

#include "runtime/Bundle.h"
#include "runtime/Device.h"
#include "runtime/Launcher.h"
#include "runtime/Npy.h"
#include "tools/cli/Cli.h"

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace tessel::runtime;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "bundle_consumer: %s\n", message.c_str());
  return 1;
}

/// Each kernel's launch contract and the shapes its entries were tuned for.
int list(const Bundle &bundle) {
  std::map<std::string, std::vector<const BundleEntry *>> byKernel;
  for (const BundleEntry &e : bundle.entries())
    byKernel[e.kernel].push_back(&e);
  for (const auto &[name, entries] : byKernel) {
    const LaunchContract *c = entries.front()->launch.get();
    std::printf("%s\n", name.c_str());
    if (!c) {
      std::printf("  (no launch contract: a schema 1 bundle or a kernel without a spec)\n");
      continue;
    }
    std::string dims;
    for (const std::string &d : c->dims)
      dims += (dims.empty() ? "" : ", ") + d;
    std::printf("  dims: %s\n  grid: %s\n", dims.c_str(), c->grid.c_str());
    for (const LaunchArg &a : c->args) {
      if (a.kind != "tensor")
        continue;
      std::string shape;
      for (const std::string &s : a.shape)
        shape += (shape.empty() ? "" : ", ") + s;
      std::printf("  %s: %s[%s] %s\n", a.name.c_str(), a.dtype.c_str(), shape.c_str(),
                  a.role.c_str());
    }
    for (const BundleEntry *e : entries)
      std::printf("  entry %s %s\n", e->dtype.c_str(), ShapeText(e->shape).c_str());
  }
  return 0;
}

/// A .npy array copied to a new buffer on the device.
struct DeviceArray {
  NpyArray host;
  std::unique_ptr<Buffer> buffer;
};

} // namespace

int main(int argc, char **argv) {
  std::string bundleDir, kernel, outDir = ".";
  std::vector<std::string> assignments;
  bool listing = false;
  int64_t repeat = 0;
  tessel::cli::Command c("bundle_consumer",
                         "Launches a kernel of a tuned bundle on .npy files by argument name, "
                         "through the bundle's launch contract; or lists the contracts.");
  c.Positional("BUNDLE_DIR", &bundleDir, "The bundle");
  c.Positional("KERNEL", &kernel, "The kernel to launch", /*required=*/false);
  c.Positionals("NAME=FILE.npy|DIM=INT", &assignments,
                "Every tensor of the kernel by argument name (outputs too: their file gives "
                "the shape), and dims no tensor gives");
  c.Flag("--list", &listing, "Print each kernel's launch contract and entries");
  c.Text("--out", &outDir, "Where the kernel's outputs are written as NAME.npy", "DIR");
  c.Integer("--repeat", &repeat, 0, 1000000,
            "Launch this many more times and print the host time a launch takes");
  if (std::optional<int> exit = c.Parse(argc, argv))
    return *exit;
  if (listing != kernel.empty())
    return c.UsageError(listing ? "--list takes no KERNEL" : "give a KERNEL or --list");
  auto bundle = Bundle::Open(bundleDir);
  if (!bundle.ok())
    return fail(std::string(bundle.status().message()));
  if (listing)
    return list(**bundle);

  std::map<std::string, std::string> files;
  LaunchRequest request;
  for (const std::string &arg : assignments) {
    size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
      return c.UsageError("'" + arg + "' is neither NAME=FILE.npy nor DIM=INT");
    std::string name = arg.substr(0, eq), value = arg.substr(eq + 1);
    if (files.count(name) || request.dims.count(name))
      return c.UsageError("'" + name + "' given twice");
    if (value.size() > 4 && value.compare(value.size() - 4, 4, ".npy") == 0) {
      files[name] = value;
      continue;
    }
    char *end = nullptr;
    errno = 0;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end || errno)
      return c.UsageError("'" + arg + "': a dim is an integer, a tensor a .npy file");
    request.dims[name] = v;
  }

  auto device = Device::Create((*bundle)->target().deviceKind());
  if (!device.ok())
    return fail(std::string(device.status().message()));
  std::map<std::string, DeviceArray> arrays;
  for (const auto &[name, path] : files) {
    absl::StatusOr<NpyArray> host = ReadNpy(path);
    if (!host.ok())
      return fail(std::string(host.status().message()));
    DeviceArray &a = arrays[name];
    a.host = *std::move(host);
    auto buffer = (*device)->Allocate(std::max<size_t>(a.host.data.size(), 1));
    absl::Status s = buffer.ok() ? (*buffer)->CopyFromHost(a.host.data.data(), a.host.data.size())
                                 : buffer.status();
    if (!s.ok())
      return fail(name + ": " + std::string(s.message()));
    a.buffer = *std::move(buffer);
    request.tensors[name] = TensorArg{a.buffer->data(), a.host.dtype, a.host.shape, {}};
  }

  Launcher launcher(**bundle, **device);
  absl::StatusOr<LaunchReport> report = launcher.Launch(kernel, request);
  absl::Status s = report.ok() ? (*device)->Synchronize() : report.status();
  if (!s.ok())
    return fail(kernel + ": " + std::string(s.message()));
  std::printf("%s: %s, grid (%d, %d, %d)\n", kernel.c_str(), report->choice.explanation.c_str(),
              report->grid.x, report->grid.y, report->grid.z);

  if (repeat) {
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < repeat && s.ok(); ++i)
      s = launcher.Launch(kernel, request).status();
    auto issued = std::chrono::steady_clock::now();
    if (s.ok())
      s = (*device)->Synchronize();
    if (!s.ok())
      return fail(kernel + ": " + std::string(s.message()));
    auto done = std::chrono::steady_clock::now();
    auto us = [&](auto t) {
      return std::chrono::duration<double, std::micro>(t - start).count() / double(repeat);
    };
    std::printf("%s: %ld launches: %.2f us of host time a launch call, %.2f us a launch until "
                "the device finished\n",
                kernel.c_str(), long(repeat), us(issued), us(done));
  }

  // The kernel's outputs, read back and written next to each other.
  const LaunchContract &contract = *report->choice.entry->launch;
  for (const LaunchArg &a : contract.args) {
    if (a.kind != "tensor" || a.role == "in")
      continue;
    DeviceArray &array = arrays.at(a.name);
    s = array.buffer->CopyToHost(array.host.data.data(), array.host.data.size());
    std::string path = outDir + "/" + a.name + ".npy";
    if (s.ok())
      s = WriteNpy(path, array.host);
    if (!s.ok())
      return fail(a.name + ": " + std::string(s.message()));
    std::printf("%s: wrote %s\n", a.name.c_str(), path.c_str());
  }
  return 0;
}
