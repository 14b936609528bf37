//===- SharedObjectLinker.cpp - object code to the shared object the runtime loads -*- C++ -*-===//

#include "compiler/backend/cpu/CpuBackend.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#ifndef TESSEL_LLVM_PREFIX
#define TESSEL_LLVM_PREFIX "/usr/lib/llvm-22"
#endif

absl::Status tessel::linkSharedObject(const std::string &objectBytes,
                                      const std::string &outputPath) {
  llvm::SmallString<128> objPath, tmpOut;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tessel", "o", objPath))
    return absl::InternalError("cannot create a temporary object file: " + ec.message());
  auto removeObj = llvm::make_scope_exit([&] { llvm::sys::fs::remove(objPath); });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return absl::InternalError("cannot write " + objPath.str().str() + ": " + ec.message());
    os << objectBytes;
  }
  // Link next to the destination, then rename: readers never see a partial file.
  tmpOut = outputPath;
  tmpOut += ".tmp-%%%%%%";
  llvm::SmallString<128> uniqueOut;
  llvm::sys::fs::createUniquePath(tmpOut, uniqueOut, /*MakeAbsolute=*/false);
  std::string lld = std::string(TESSEL_LLVM_PREFIX) + "/bin/ld.lld";
  std::string linker = llvm::sys::fs::can_execute(lld) ? lld : "";
  if (linker.empty()) {
    llvm::ErrorOr<std::string> ld = llvm::sys::findProgramByName("ld");
    if (!ld)
      return absl::FailedPreconditionError("no linker found: neither " + lld + " nor ld on PATH");
    linker = *ld;
  }
  llvm::SmallVector<llvm::StringRef> args{linker, "-shared", "-o", uniqueOut, objPath};
  // LLVM turns copy loops into memcpy/memset calls. Linked against the C library, they bind to
  // its current versions (memcpy@GLIBC_2.14: the CPU-tuned implementation); an unversioned
  // reference binds to the oldest one (memcpy@GLIBC_2.2.5, plain SSE2), several times slower
  // for tile-sized copies. Without a C library to link against, the references stay
  // unversioned, which is still correct.
  for (const char *libc : {"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                           "/lib64/libc.so.6", "/usr/lib64/libc.so.6"})
    if (llvm::sys::fs::exists(libc)) {
      args.push_back("--as-needed");
      args.push_back(libc);
      break;
    }
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(linker, args, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    llvm::sys::fs::remove(uniqueOut);
    return absl::InternalError("linking " + outputPath + " failed (" + linker + " exited with " +
                               std::to_string(rc) + ")" + (message.empty() ? "" : ": " + message));
  }
  if (std::error_code ec = llvm::sys::fs::rename(uniqueOut, outputPath)) {
    llvm::sys::fs::remove(uniqueOut);
    return absl::InternalError("cannot move the shared object to " + outputPath + ": " +
                               ec.message());
  }
  return absl::OkStatus();
}
