//===- Backend.cpp - knob validation shared by every backend -----*- C++ -*-===//

#include "compiler/backend/Backend.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace tessel {

std::string launchTypeName(mlir::Type type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (auto memref = llvm::dyn_cast<mlir::MemRefType>(type)) {
    os << "ptr:";
    memref.getElementType().print(os);
  } else {
    type.print(os);
  }
  return out;
}

bool KnobInfo::allows(int64_t value) const {
  if (!values.empty())
    return std::find(values.begin(), values.end(), value) != values.end();
  return value >= min && value <= max;
}

std::string KnobInfo::allowedText() const {
  if (values.empty())
    return std::to_string(min) + ".." + std::to_string(max);
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "}";
}

absl::Status Backend::validateKnobs(const KnobMap &knobMap) const {
  for (const auto &[name, value] : knobMap) {
    auto it = std::find_if(knobs().begin(), knobs().end(),
                           [&](const KnobInfo &k) { return k.name == name; });
    if (it == knobs().end()) {
      std::string names;
      for (const KnobInfo &k : knobs())
        names += (names.empty() ? "" : ", ") + k.name;
      return absl::InvalidArgumentError(std::string("unknown ") + TargetKindName(kind()) +
                                        " knob '" + name + "' (the " + TargetKindName(kind()) +
                                        " backend's knobs: " + (names.empty() ? "none" : names) +
                                        ")");
    }
    if (!it->allows(value))
      return absl::InvalidArgumentError("knob " + name + "=" + std::to_string(value) +
                                        " is out of range (allowed: " + it->allowedText() + ")");
  }
  return absl::OkStatus();
}

KnobMap Backend::withDefaults(const KnobMap &knobMap) const {
  KnobMap all = knobMap;
  for (const KnobInfo &k : knobs())
    all.emplace(k.name, k.defaultValue);
  return all;
}

absl::StatusOr<ArtifactKind> Backend::findArtifactKind(const std::string &name) const {
  std::string names;
  for (const ArtifactKind &a : artifactKinds()) {
    if (a.name == name)
      return a;
    names += (names.empty() ? "" : ", ") + a.name;
  }
  return absl::InvalidArgumentError("the " + std::string(TargetKindName(kind())) +
                                    " backend does not emit '" + name + "' (it emits " + names +
                                    ")");
}

} // namespace tessel
