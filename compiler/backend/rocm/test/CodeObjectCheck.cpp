//===- CodeObjectCheck.cpp - what a rocm artifact's code object says of itself -*- C++ -*-===//

#include "compiler/backend/rocm/test/CodeObjectCheck.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#ifndef TESSEL_LLVM_PREFIX
#define TESSEL_LLVM_PREFIX "/usr/lib/llvm-22"
#endif

namespace tessel::rocm_test {
namespace {

/// The standard output of LLVM tool `tool` run on `bytes` written to a temporary file.
absl::StatusOr<std::string> runOn(const std::string &tool, const std::string &args,
                                  const std::string &bytes) {
  const char *dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/tessel-code-object-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0)
    return absl::InternalError("cannot create a temporary file");
  bool written = write(fd, bytes.data(), bytes.size()) == ssize_t(bytes.size());
  close(fd);
  if (!written) {
    unlink(path.c_str());
    return absl::InternalError("cannot write " + path);
  }
  std::string command = std::string(TESSEL_LLVM_PREFIX) + "/bin/" + tool + " " + args + " '" +
                        path + "' 2>&1";
  FILE *pipe = popen(command.c_str(), "r");
  std::string out;
  if (pipe) {
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
      out.append(buffer, n);
  }
  int status = pipe ? pclose(pipe) : -1;
  unlink(path.c_str());
  if (status != 0)
    return absl::InternalError(command + " failed: " + out);
  return out;
}

} // namespace

absl::StatusOr<CodeObjectNotes> ReadNotes(const std::string &hsaco) {
  absl::StatusOr<std::string> text = runOn("llvm-readelf", "--notes", hsaco);
  if (!text.ok())
    return text.status();
  CodeObjectNotes notes;
  bool inKernels = false;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    size_t indent = line.find_first_not_of(' ');
    if (indent == absl::string_view::npos)
      continue;
    absl::string_view body = line.substr(indent);
    if (indent == 0) {
      inKernels = absl::ConsumePrefix(&body, "amdhsa.kernels:");
      if (absl::ConsumePrefix(&body, "amdhsa.target:"))
        notes.target = std::string(absl::StripAsciiWhitespace(body));
      continue;
    }
    if (!inKernels)
      continue;
    // A kernel's entries are at indent 4 ("  - " starts the next kernel); its arguments' are
    // deeper.
    if (indent == 2 && absl::ConsumePrefix(&body, "- ")) {
      notes.kernels.emplace_back();
      indent = 4;
    }
    if (indent != 4 || notes.kernels.empty())
      continue;
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(body, ':');
    absl::string_view key = kv.first, value = absl::StripAsciiWhitespace(kv.second);
    KernelNotes &k = notes.kernels.back();
    int64_t number = -1;
    bool isNumber = absl::SimpleAtoi(value, &number);
    if (key == ".name")
      k.name = std::string(value);
    else if (key == ".symbol")
      k.symbol = std::string(value);
    else if (key == ".kernarg_segment_size" && isNumber)
      k.kernargSegmentSize = number;
    else if (key == ".group_segment_fixed_size" && isNumber)
      k.groupSegmentFixedSize = number;
    else if (key == ".private_segment_fixed_size" && isNumber)
      k.privateSegmentFixedSize = number;
    else if (key == ".vgpr_count" && isNumber)
      k.vgprCount = number;
    else if (key == ".agpr_count" && isNumber)
      k.agprCount = number;
    else if (key == ".sgpr_count" && isNumber)
      k.sgprCount = number;
    else if (key == ".wavefront_size" && isNumber)
      k.wavefrontSize = number;
  }
  if (notes.kernels.empty())
    return absl::InvalidArgumentError("no amdhsa.kernels in the code object's notes:\n" + *text);
  return notes;
}

absl::StatusOr<std::string> Disassemble(const std::string &hsaco) {
  return runOn("llvm-objdump", "-d", hsaco);
}

int64_t KernargBytes(const std::string &signature) {
  int64_t offset = 0;
  for (absl::string_view type : absl::StrSplit(signature, ',', absl::SkipEmpty())) {
    int64_t size = 4;
    if (absl::StartsWith(type, "ptr:") || type == "i64" || type == "f64")
      size = 8;
    else if (type == "i16" || type == "f16" || type == "bf16")
      size = 2;
    else if (type == "i8" || type == "i1")
      size = 1;
    offset = (offset + size - 1) / size * size + size;
  }
  return offset;
}

std::vector<std::string> CheckCodeObject(const GpuArtifact &artifact) {
  std::vector<std::string> problems;
  absl::StatusOr<RocmChip> chip = RocmChipFor(artifact.arch);
  if (!chip.ok())
    return {std::string(chip.status().message())};
  absl::StatusOr<CodeObjectNotes> notes = ReadNotes(artifact.hsaco);
  if (!notes.ok())
    return {std::string(notes.status().message())};
  if (notes->target != "amdgcn-amd-amdhsa--" + artifact.arch)
    problems.push_back("target " + notes->target + ", not " + artifact.arch);
  for (const GpuKernelInfo &info : artifact.kernels) {
    const KernelNotes *k = nullptr;
    for (const KernelNotes &n : notes->kernels)
      if (n.name == info.name)
        k = &n;
    if (!k) {
      problems.push_back("no note for kernel " + info.name);
      continue;
    }
    auto expect = [&](bool ok, const std::string &what) {
      if (!ok)
        problems.push_back(info.name + ": " + what);
    };
    expect(k->symbol == info.name + ".kd", "symbol " + k->symbol);
    expect(k->kernargSegmentSize == KernargBytes(info.signature),
           "kernarg segment " + std::to_string(k->kernargSegmentSize) + " bytes for signature " +
               info.signature + " (" + std::to_string(KernargBytes(info.signature)) + ")");
    expect(k->groupSegmentFixedSize == info.ldsBytes,
           "LDS " + std::to_string(k->groupSegmentFixedSize) + " bytes, the compiler planned " +
               std::to_string(info.ldsBytes));
    expect(info.sharedBytes == 0, "dynamic LDS " + std::to_string(info.sharedBytes));
    expect(info.ldsBytes <= chip->maxLdsBytes, "LDS beyond the chip's");
    expect(k->vgprCount > 0 && k->vgprCount + k->agprCount <= chip->maxVgprs,
           "VGPRs " + std::to_string(k->vgprCount) + " + AGPRs " + std::to_string(k->agprCount));
    expect(k->sgprCount > 0 && k->sgprCount <= chip->maxSgprs,
           "SGPRs " + std::to_string(k->sgprCount));
    expect(k->wavefrontSize == chip->waveSize,
           "wavefront size " + std::to_string(k->wavefrontSize));
    expect(info.block[0] % chip->waveSize == 0, "a workgroup of part of a wavefront");
  }
  return problems;
}

} // namespace tessel::rocm_test
