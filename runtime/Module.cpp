//===- Module.cpp - kernels loaded from a compiled shared object ---*- C++ -*-===//

#include "runtime/Module.h"
#include "runtime/Files.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <elf.h>
#include <fstream>
#include <link.h>
#include <optional>

namespace tessel::runtime {

namespace {
constexpr const char *kLaunchSuffix = "__tessel_launch";
constexpr const char *kSignatureSuffix = "__tessel_signature";

bool isKnownElement(const std::string &e) {
  static const char *known[] = {"i1",   "i8",   "i16",  "i32",         "i64",
                                "f16",  "bf16", "f32",  "f64",         "f8E4M3FN",
                                "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"};
  for (const char *k : known)
    if (e == k)
      return true;
  return false;
}

/// Checks `bytes` are an ELF shared object for this machine before dlopen sees them, so a
/// foreign artifact gets a clear message (`name` says which).
absl::Status checkElf(const std::string &bytes, const std::string &name) {
  ElfW(Ehdr) header;
  if (bytes.size() < sizeof(header) ||
      std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
    return absl::InvalidArgumentError(absl::StrCat(name, " is not an ELF shared object"));
  std::memcpy(&header, bytes.data(), sizeof(header));
  if (header.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
    return absl::FailedPreconditionError(
        absl::StrCat(name, " was built for another word size"));
#if defined(__x86_64__)
  constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
  constexpr int kMachine = EM_AARCH64;
#else
  constexpr int kMachine = header.e_machine;
#endif
  if (header.e_machine != kMachine)
    return absl::FailedPreconditionError(absl::StrCat(
        name, " was built for another architecture (ELF machine ", header.e_machine, ")"));
  if (header.e_type != ET_DYN)
    return absl::InvalidArgumentError(absl::StrCat(name, " is not a shared object"));
  // dlopen trusts the file; a truncated or corrupt one must be refused before it sees it.
  const uint64_t size = bytes.size();
  auto corrupt = [&](const char *what) {
    return absl::DataLossError(absl::StrCat(name, " is truncated or corrupt (", what, ")"));
  };
  if (header.e_phentsize != sizeof(ElfW(Phdr)) ||
      header.e_phoff + uint64_t(header.e_phnum) * sizeof(ElfW(Phdr)) > size)
    return corrupt("program headers");
  if (header.e_shnum != 0 &&
      header.e_shoff + uint64_t(header.e_shnum) * header.e_shentsize > size)
    return corrupt("section headers");
  for (uint64_t k = 0; k < header.e_phnum; ++k) {
    ElfW(Phdr) ph;
    std::memcpy(&ph, bytes.data() + header.e_phoff + k * sizeof(ElfW(Phdr)), sizeof(ph));
    if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
      return corrupt("a segment extends past the end of the file");
  }
  return absl::OkStatus();
}
} // namespace

absl::StatusOr<std::vector<ArgType>> ParseSignature(const std::string &text) {
  std::vector<ArgType> out;
  if (text.empty())
    return out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    ArgType t;
    std::string p(part);
    if (p.rfind("ptr:", 0) == 0) {
      t.isPointer = true;
      p = p.substr(4);
    }
    if (!isKnownElement(p))
      return absl::InvalidArgumentError(
          absl::StrCat("unknown argument type '", part, "' in kernel signature '", text, "'"));
    t.element = p;
    out.push_back(t);
  }
  return out;
}

absl::StatusOr<ArtifactKernelInfo> ReadSharedObjectKernelInfo(const std::string &bytes,
                                                              const std::string &entry,
                                                              const std::string &name) {
  if (absl::Status s = checkElf(bytes, name); !s.ok())
    return s;
  auto corrupt = [&](const char *what) {
    return absl::DataLossError(absl::StrCat(name, " is truncated or corrupt (", what, ")"));
  };
  ElfW(Ehdr) header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  // checkElf saw the section headers inside the file.
  if (header.e_shnum == 0 || header.e_shentsize != sizeof(ElfW(Shdr)))
    return corrupt("no section headers");
  auto section = [&](uint64_t i) {
    ElfW(Shdr) sh;
    std::memcpy(&sh, bytes.data() + header.e_shoff + i * sizeof(sh), sizeof(sh));
    return sh;
  };
  auto inFile = [&](const ElfW(Shdr) &sh) {
    return sh.sh_type == SHT_NOBITS ||
           (sh.sh_offset <= bytes.size() && sh.sh_size <= bytes.size() - sh.sh_offset);
  };
  // The NUL-terminated string at `offset` of a section's bytes.
  auto text = [&](const ElfW(Shdr) &sh, uint64_t offset) -> absl::StatusOr<std::string> {
    if (sh.sh_type == SHT_NOBITS || !inFile(sh) || offset >= sh.sh_size)
      return corrupt("a string outside its section");
    const char *begin = bytes.data() + sh.sh_offset + offset;
    const void *end = std::memchr(begin, 0, sh.sh_size - offset);
    if (!end)
      return corrupt("an unterminated string");
    return std::string(begin, static_cast<const char *>(end));
  };
  // The string a symbol's value points at, in the section that holds it.
  auto symbolText = [&](const ElfW(Sym) &sym) -> absl::StatusOr<std::string> {
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= header.e_shnum)
      return corrupt("a symbol outside the sections");
    ElfW(Shdr) sh = section(sym.st_shndx);
    if (sym.st_value < sh.sh_addr)
      return corrupt("a symbol outside its section");
    return text(sh, sym.st_value - sh.sh_addr);
  };
  const std::string signatureName = entry + kSignatureSuffix;
  std::optional<std::string> signature;
  ArtifactKernelInfo info;
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    ElfW(Shdr) symbols = section(i);
    if (symbols.sh_type != SHT_DYNSYM)
      continue;
    if (!inFile(symbols) || symbols.sh_link >= header.e_shnum || !inFile(section(symbols.sh_link)))
      return corrupt("the dynamic symbol table");
    ElfW(Shdr) names = section(symbols.sh_link);
    for (uint64_t k = 0; k < symbols.sh_size / sizeof(ElfW(Sym)); ++k) {
      ElfW(Sym) sym;
      std::memcpy(&sym, bytes.data() + symbols.sh_offset + k * sizeof(sym), sizeof(sym));
      absl::StatusOr<std::string> symbolName = text(names, sym.st_name);
      if (!symbolName.ok())
        return symbolName.status();
      if (*symbolName != signatureName && *symbolName != kBuildInfoSymbol)
        continue;
      absl::StatusOr<std::string> value = symbolText(sym);
      if (!value.ok())
        return value.status();
      if (*symbolName == signatureName)
        signature = *value;
      else
        info.buildInfo = *value;
    }
  }
  if (!signature)
    return absl::NotFoundError(absl::StrCat("no kernel '", entry, "' in ", name));
  info.signature = *signature;
  return info;
}

absl::StatusOr<std::unique_ptr<Module>> Module::Open(const std::string &path) {
  absl::StatusOr<std::string> bytes = ReadRegularFile(path);
  if (!bytes.ok())
    return bytes.status();
  return FromBytes(*bytes, path);
}

absl::StatusOr<std::unique_ptr<Module>> Module::FromBytes(const std::string &bytes,
                                                          const std::string &name) {
  if (absl::Status s = checkElf(bytes, name); !s.ok())
    return s;
  // The bytes go to an anonymous, sealed in-memory file that dlopen maps: what was checked
  // (and, from a bundle, hashed) is what runs; no path is searched or opened again. The file
  // stays open while the module is loaded, so its /proc/self/fd name is not reused for
  // another artifact (dlopen would take that name for the module already loaded).
  int fd = memfd_create("tessel-artifact", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return absl::InternalError(absl::StrCat("cannot create an in-memory file for ", name, ": ",
                                            std::strerror(errno)));
  if (int error = WriteAll(fd, bytes); error != 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("cannot copy ", name, " into memory: ",
                                            std::strerror(error)));
  }
  if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    int error = errno;
    close(fd);
    return absl::InternalError(absl::StrCat("cannot seal the in-memory copy of ", name, ": ",
                                            std::strerror(error)));
  }
  std::string procPath = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(procPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *error = dlerror();
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load ", name, ": ", error ? error : "dlopen failed"));
  }
  return std::unique_ptr<Module>(new Module(handle, name, fd));
}

std::string Module::buildInfo() const {
  const char *info = static_cast<const char *>(dlsym(handle_, kBuildInfoSymbol));
  return info ? std::string(info) : std::string();
}

Module::~Module() {
  dlclose(handle_);
  if (fd_ >= 0)
    close(fd_);
}

std::vector<std::string> Module::KernelNames() const {
  std::vector<std::string> names;
  link_map *map = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &map) != 0 || !map)
    return names;
  // Walk the dynamic symbol table for `*__tessel_launch`.
  const ElfW(Sym) *symtab = nullptr;
  const char *strtab = nullptr;
  size_t count = 0;
  for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB)
      symtab = reinterpret_cast<const ElfW(Sym) *>(d->d_un.d_ptr);
    else if (d->d_tag == DT_STRTAB)
      strtab = reinterpret_cast<const char *>(d->d_un.d_ptr);
    else if (d->d_tag == DT_HASH)
      count = reinterpret_cast<const uint32_t *>(d->d_un.d_ptr)[1];
  }
  if (!symtab || !strtab || count == 0)
    return names;
  std::string suffix = kLaunchSuffix;
  for (size_t i = 0; i < count; ++i) {
    std::string name = strtab + symtab[i].st_name;
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      names.push_back(name.substr(0, name.size() - suffix.size()));
  }
  return names;
}

absl::StatusOr<Kernel> Module::GetKernel(const std::string &name) const {
  void *launch = dlsym(handle_, (name + kLaunchSuffix).c_str());
  void *signature = dlsym(handle_, (name + kSignatureSuffix).c_str());
  if (!launch || !signature) {
    std::vector<std::string> names = KernelNames();
    return absl::NotFoundError(absl::StrCat(
        "no kernel '", name, "' in ", path_, " (it has: ",
        names.empty() ? std::string("none") : absl::StrJoin(names, ", "), ")"));
  }
  absl::StatusOr<std::vector<ArgType>> args =
      ParseSignature(static_cast<const char *>(signature));
  if (!args.ok())
    return args.status();
  return Kernel(name, launch, *std::move(args));
}

} // namespace tessel::runtime
