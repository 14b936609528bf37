//===- Npy.cpp - NumPy .npy arrays: read, write, dtypes -------------*- C++ -*-===//

#include "runtime/Npy.h"
#include "runtime/Files.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <fstream>
#include <set>

namespace tessel::runtime {

namespace {
struct DtypeName {
  const char *npy;
  const char *tessel;
};
constexpr DtypeName kDtypes[] = {{"<f4", "f32"}, {"<f2", "f16"}, {"<f8", "f64"},
                                 {"|i1", "i8"},  {"<i2", "i16"}, {"<i4", "i32"},
                                 {"<i8", "i64"}, {"|b1", "i1"},  {"|u1", "i8"}};

/// The header dict of a .npy file, parsed as the Python literal it is: exactly the keys
/// 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple of integers), each
/// once. Anything else is an error (a substring search would let a string value hide a key).
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

absl::StatusOr<NpyHeader> parseHeader(const std::string &text) {
  size_t at = 0;
  auto skip = [&] {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n'))
      ++at;
  };
  auto bad = [&](const std::string &why) {
    return absl::InvalidArgumentError("header: " + why + " at offset " + std::to_string(at));
  };
  auto string = [&]() -> absl::StatusOr<std::string> {
    if (at >= text.size() || (text[at] != '\'' && text[at] != '"'))
      return bad("expected a string");
    char quote = text[at++];
    std::string out;
    while (at < text.size() && text[at] != quote) {
      if (text[at] == '\\')
        return bad("escapes are not used in .npy headers");
      out += text[at++];
    }
    if (at >= text.size())
      return bad("unterminated string");
    ++at;
    return out;
  };
  NpyHeader h;
  std::set<std::string> seen;
  skip();
  if (at >= text.size() || text[at++] != '{')
    return bad("expected '{'");
  while (true) {
    skip();
    if (at < text.size() && text[at] == '}') {
      ++at;
      break;
    }
    absl::StatusOr<std::string> key = string();
    if (!key.ok())
      return key.status();
    if (!seen.insert(*key).second)
      return bad("'" + *key + "' appears twice");
    skip();
    if (at >= text.size() || text[at++] != ':')
      return bad("expected ':'");
    skip();
    if (*key == "descr") {
      absl::StatusOr<std::string> v = string();
      if (!v.ok())
        return v.status();
      h.descr = *v;
    } else if (*key == "fortran_order") {
      if (text.compare(at, 4, "True") == 0) {
        h.fortranOrder = true;
        at += 4;
      } else if (text.compare(at, 5, "False") == 0) {
        at += 5;
      } else {
        return bad("fortran_order must be True or False");
      }
    } else if (*key == "shape") {
      if (at >= text.size() || text[at++] != '(')
        return bad("expected a tuple for the shape");
      while (true) {
        skip();
        if (at < text.size() && text[at] == ')') {
          ++at;
          break;
        }
        size_t start = at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9')
          ++at;
        int64_t v;
        if (at == start)
          return bad("a dimension must be a non-negative integer");
        if (!absl::SimpleAtoi(absl::string_view(text).substr(start, at - start), &v))
          return bad("a dimension is too large");
        h.shape.push_back(v);
        skip();
        if (at < text.size() && text[at] == ',')
          ++at;
        else if (at >= text.size() || text[at] != ')')
          return bad("expected ',' or ')' in the shape");
      }
    } else {
      return bad("unexpected key '" + *key + "'");
    }
    skip();
    if (at < text.size() && text[at] == ',')
      ++at;
    else if (at >= text.size() || text[at] != '}')
      return bad("expected ',' or '}'");
  }
  skip();
  if (at != text.size())
    return bad("text after the dict");
  for (const char *key : {"descr", "fortran_order", "shape"})
    if (!seen.count(key))
      return absl::InvalidArgumentError(std::string("header: missing '") + key + "'");
  return h;
}
} // namespace

int64_t ElementBytes(const std::string &dtype) {
  if (dtype == "f32" || dtype == "i32")
    return 4;
  if (dtype == "f16" || dtype == "bf16" || dtype == "i16")
    return 2;
  if (dtype == "f64" || dtype == "i64")
    return 8;
  if (dtype == "i8" || dtype == "i1")
    return 1;
  return 0;
}

int64_t NpyArray::elements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

absl::StatusOr<NpyArray> ReadNpy(const std::string &path) {
  // A regular file only (a FIFO would block), no larger than the largest array and header.
  constexpr uint32_t kMaxHeaderBytes = 1u << 20;
  absl::StatusOr<std::string> file = ReadRegularFile(path, kMaxNpyBytes + 12 + kMaxHeaderBytes);
  if (!file.ok())
    return file.status();
  auto bad = [&](const std::string &why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a valid .npy file (", why, ")"));
  };
  const std::string &text = *file;
  if (text.size() < 8 || std::memcmp(text.data(), "\x93NUMPY", 6) != 0)
    return bad("bad magic");
  size_t at = 8;
  uint32_t headerLen = 0;
  if (text[6] == 1 || text[6] == 2 || text[6] == 3) {
    size_t width = text[6] == 1 ? 2 : 4;
    if (text.size() < at + width)
      return bad("truncated header");
    for (size_t i = 0; i < width; ++i)
      headerLen |= uint32_t(uint8_t(text[at + i])) << (8 * i);
    at += width;
  } else {
    return bad(absl::StrCat("unsupported version ", int(text[6])));
  }
  if (headerLen > kMaxHeaderBytes)
    return bad("header too large");
  if (text.size() - at < headerLen)
    return bad("truncated header");
  absl::StatusOr<NpyHeader> parsed = parseHeader(text.substr(at, headerLen));
  if (!parsed.ok())
    return bad(std::string(parsed.status().message()));
  at += headerLen;
  NpyArray array;
  for (const DtypeName &d : kDtypes)
    if (parsed->descr == d.npy)
      array.dtype = d.tessel;
  if (array.dtype.empty())
    return bad("unsupported dtype '" + parsed->descr +
               "' (use float16/32/64, int8/16/32/64 or bool, little endian)");
  if (parsed->fortranOrder)
    return bad("Fortran order is not supported; save a C-contiguous array");
  array.shape = parsed->shape;
  // The element count must not overflow on its way to the byte count.
  int64_t bytes = ElementBytes(array.dtype);
  for (int64_t d : array.shape)
    if (__builtin_mul_overflow(bytes, d, &bytes) || bytes > kMaxNpyBytes)
      return bad("array too large (more than " + std::to_string(kMaxNpyBytes) + " bytes)");
  // The data must be in the file: a header is never trusted with an allocation.
  if (bytes > int64_t(text.size() - at))
    return bad(absl::StrCat("the shape needs ", bytes, " bytes of data, the file holds ",
                            text.size() - at));
  try {
    array.data.assign(text.begin() + at, text.begin() + at + bytes);
  } catch (const std::bad_alloc &) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ": cannot allocate ", bytes, " bytes for its data"));
  }
  return array;
}

absl::Status WriteNpy(const std::string &path, const NpyArray &array) {
  const char *descr = nullptr;
  for (const DtypeName &d : kDtypes)
    if (array.dtype == d.tessel && !descr)
      descr = d.npy;
  if (!descr)
    return absl::InvalidArgumentError("cannot write dtype '" + array.dtype + "' as .npy");
  std::string shape;
  for (int64_t d : array.shape)
    shape += std::to_string(d) + ", ";
  if (array.shape.size() > 1)
    shape.erase(shape.size() - 2);
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (",
                                    shape, "), }");
  // Pad so that the data starts at a multiple of 64 bytes, ending with a newline.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  uint16_t len = static_cast<uint16_t>(header.size());
  std::string contents = std::string("\x93NUMPY\x01\x00", 8);
  contents += char(len & 0xff);
  contents += char(len >> 8);
  contents += header;
  contents.append(reinterpret_cast<const char *>(array.data.data()), array.data.size());
  // A fresh temporary, created exclusively and never through a link someone planted, then
  // renamed over `path` (which replaces a link there rather than writing through it).
  static std::atomic<unsigned> counter{0};
  std::string tmp = absl::StrCat(path, ".tmp.", getpid(), ".", counter++);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", tmp, ": ", std::strerror(errno)));
  if (int error = WriteAll(fd, contents); error != 0) {
    close(fd);
    unlink(tmp.c_str());
    return absl::DataLossError(absl::StrCat("writing ", tmp, " failed: ", std::strerror(error)));
  }
  if (close(fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int error = errno;
    unlink(tmp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

} // namespace tessel::runtime
