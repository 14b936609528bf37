//===- Npy.cpp - NumPy .npy arrays: read, write, dtypes -------------*- C++ -*-===//

#include "runtime/Npy.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <cstdio>
#include <cstring>
#include <fstream>

namespace tessel::runtime {

namespace {
struct DtypeName {
  const char *npy;
  const char *tessel;
};
constexpr DtypeName kDtypes[] = {{"<f4", "f32"}, {"<f2", "f16"}, {"<f8", "f64"},
                                 {"|i1", "i8"},  {"<i2", "i16"}, {"<i4", "i32"},
                                 {"<i8", "i64"}, {"|b1", "i1"},  {"|u1", "i8"}};

/// The value of `key` in the header dict, e.g. 'descr': '<f4' -> <f4.
absl::StatusOr<std::string> field(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return absl::InvalidArgumentError("missing '" + key + "' in the .npy header");
  size_t colon = header.find(':', at);
  if (colon == std::string::npos)
    return absl::InvalidArgumentError("malformed '" + key + "' in the .npy header");
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return absl::InvalidArgumentError("malformed '" + key + "' in the .npy header");
  char open = header[start];
  size_t end;
  if (open == '\'') {
    end = header.find('\'', start + 1);
    if (end == std::string::npos)
      return absl::InvalidArgumentError("unterminated '" + key + "' in the .npy header");
    return header.substr(start + 1, end - start - 1);
  }
  if (open == '(') {
    end = header.find(')', start);
    if (end == std::string::npos)
      return absl::InvalidArgumentError("unterminated shape in the .npy header");
    return header.substr(start + 1, end - start - 1);
  }
  end = header.find_first_of(",}", start);
  return header.substr(start, end == std::string::npos ? std::string::npos : end - start);
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
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot open ", path, ": ", std::strerror(errno)));
  auto bad = [&](const std::string &why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a valid .npy file (", why, ")"));
  };
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return bad("bad magic");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    uint8_t len[2];
    if (!in.read(reinterpret_cast<char *>(len), 2))
      return bad("truncated header");
    headerLen = len[0] | (len[1] << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    uint8_t len[4];
    if (!in.read(reinterpret_cast<char *>(len), 4))
      return bad("truncated header");
    headerLen = len[0] | (len[1] << 8) | (len[2] << 16) | (uint32_t(len[3]) << 24);
  } else {
    return bad(absl::StrCat("unsupported version ", int(magic[6])));
  }
  if (headerLen > (1u << 20))
    return bad("header too large");
  std::string header(headerLen, '\0');
  if (!in.read(header.data(), headerLen))
    return bad("truncated header");
  absl::StatusOr<std::string> descr = field(header, "descr");
  absl::StatusOr<std::string> order = field(header, "fortran_order");
  absl::StatusOr<std::string> shape = field(header, "shape");
  for (const auto *f : {&descr, &order, &shape})
    if (!f->ok())
      return bad(std::string(f->status().message()));
  NpyArray array;
  for (const DtypeName &d : kDtypes)
    if (*descr == d.npy)
      array.dtype = d.tessel;
  if (array.dtype.empty())
    return bad("unsupported dtype '" + *descr + "' (use float16/32/64, int8/16/32/64 or bool, "
               "little endian)");
  if (absl::StripAsciiWhitespace(*order) != "False")
    return bad("Fortran order is not supported; save a C-contiguous array");
  for (absl::string_view dim : absl::StrSplit(*shape, ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(dim), &v) || v < 0)
      return bad("bad shape '" + *shape + "'");
    array.shape.push_back(v);
  }
  int64_t bytes = array.elements() * ElementBytes(array.dtype);
  if (bytes < 0 || bytes > (int64_t(1) << 36))
    return bad("array too large");
  array.data.resize(bytes);
  if (bytes && !in.read(reinterpret_cast<char *>(array.data.data()), bytes))
    return bad(absl::StrCat("expected ", bytes, " bytes of data"));
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
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out)
      return absl::PermissionDeniedError(absl::StrCat("cannot write ", tmp));
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = static_cast<uint16_t>(header.size());
    char lenBytes[2] = {char(len & 0xff), char(len >> 8)};
    out.write(lenBytes, 2);
    out << header;
    out.write(reinterpret_cast<const char *>(array.data.data()), array.data.size());
    if (!out)
      return absl::DataLossError(absl::StrCat("writing ", tmp, " failed"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return absl::PermissionDeniedError(absl::StrCat("cannot rename ", tmp, " to ", path));
  return absl::OkStatus();
}

} // namespace tessel::runtime
