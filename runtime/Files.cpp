//===- Files.cpp - whole-file reads shared by the runtime and the autotuner -*- C++ -*-===//

#include "runtime/Files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

bool tessel::runtime::ReadWholeFile(const std::string &path, std::string &out) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path);
  if (!bytes.ok())
    return false;
  out = *std::move(bytes);
  return true;
}

namespace {

/// Reads all of the open file `fd` (closing it) if it is a regular file of at most `maxBytes`.
absl::StatusOr<std::string> readOpenRegularFile(int fd, const std::string &name,
                                                const std::string &notRegular, int64_t maxBytes) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(name + " " + notRegular);
  }
  auto tooLarge = [&](const std::string &size) {
    close(fd);
    return absl::InvalidArgumentError(name + " is larger than the " + std::to_string(maxBytes) +
                                      " bytes read from such a file (it holds " + size + ")");
  };
  if (st.st_size > maxBytes)
    return tooLarge(std::to_string(st.st_size) + " bytes");
  // Regular files never block; reads from here on may wait for the disk only.
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  std::string out;
  out.reserve(size_t(st.st_size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int error = errno;
      close(fd);
      return absl::DataLossError("cannot read " + name + ": " + std::strerror(error));
    }
    if (n == 0)
      break;
    if (int64_t(out.size()) + n > maxBytes) // it grew while being read
      return tooLarge("more");
    out.append(buffer, size_t(n));
  }
  close(fd);
  return out;
}

} // namespace

int tessel::runtime::WriteAll(int fd, const std::string &bytes) {
  for (size_t done = 0; done < bytes.size();) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n < 0 ? errno : EIO;
    done += size_t(n);
  }
  return 0;
}

absl::StatusOr<std::string> tessel::runtime::ReadRegularFile(const std::string &path,
                                                              int64_t maxBytes) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return absl::NotFoundError("cannot open " + path + ": " + std::strerror(errno));
  return readOpenRegularFile(fd, path, "is not a regular file", maxBytes);
}

absl::StatusOr<std::string> tessel::runtime::ReadRegularFileBeneath(const std::string &dir,
                                                                    const std::string &relative,
                                                                    int64_t maxBytes) {
  const std::string name = dir + "/" + relative;
  const std::string notInside = "is not a regular file inside " + dir +
                                " (a symlink, a device, a FIFO or a path leaving it)";
  if (relative.empty() || relative[0] == '/')
    return absl::InvalidArgumentError(name + " " + notInside);
  int at = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (at < 0)
    return absl::NotFoundError("cannot open " + dir + ": " + std::strerror(errno));
  // Walk the components one at a time, refusing symlinks at each (O_NOFOLLOW).
  size_t start = 0;
  while (true) {
    size_t slash = relative.find('/', start);
    std::string part = relative.substr(start, slash == std::string::npos ? std::string::npos
                                                                        : slash - start);
    if (part == "..") {
      close(at);
      return absl::InvalidArgumentError(name + " " + notInside);
    }
    if (slash == std::string::npos) {
      int fd = openat(at, part.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      int error = errno;
      close(at);
      if (fd < 0)
        return error == ELOOP ? absl::InvalidArgumentError(name + " " + notInside)
                              : absl::NotFoundError(name + " is missing or unreadable: " +
                                                    std::strerror(error));
      return readOpenRegularFile(fd, name, notInside, maxBytes);
    }
    if (!part.empty() && part != ".") {
      int next = openat(at, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      int error = errno;
      close(at);
      if (next < 0)
        return error == ELOOP || error == ENOTDIR
                   ? absl::InvalidArgumentError(name + " " + notInside)
                   : absl::NotFoundError(name + " is missing or unreadable: " +
                                         std::strerror(error));
      at = next;
    }
    start = slash + 1;
  }
}

absl::Status tessel::runtime::WriteFileAtomically(const std::string &path,
                                                  const std::string &contents) {
  static std::atomic<unsigned long> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary);
    out << contents;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::PermissionDeniedError("cannot write " + tmp);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError("cannot rename " + tmp + " to " + path + ": " + why);
  }
  return absl::OkStatus();
}
