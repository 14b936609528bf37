//===- BuildInfo.cpp - does an artifact's recorded build match a configuration -*- C++ -*-===//

#include "autotune/BuildInfo.h"

#include "runtime/target/JsonDepth.h"

#include "nlohmann/json.hpp"

namespace tessel::autotune {

std::string BuildInfoMismatch(const std::string &info, const zoo::Kernel &kernel,
                              const autotune::Point &point, const zoo::Shape &shape) {
  if (info.empty())
    return "the artifact records no build info (built by another tessel?); rebuild it";
  if (!JsonNestingProblem(info).empty())
    return "the artifact's build info is not valid";
  nlohmann::json b = nlohmann::json::parse(info, nullptr, false);
  if (b.is_discarded() || !b.is_object() || !b.contains("constexprs") ||
      !b["constexprs"].is_object() || !b.contains("knobs") || !b["knobs"].is_object())
    return "the artifact's build info is not valid";
  if (!b.contains("entry") || !b["entry"].is_string())
    return "the artifact's build info is not valid";
  if (b["entry"] != kernel.entry)
    return "built for entry '" + b["entry"].get<std::string>() + "', not " + kernel.entry;
  std::map<std::string, std::string> recorded;
  for (auto it = b["constexprs"].begin(); it != b["constexprs"].end(); ++it)
    recorded[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
  const std::map<std::string, std::string> wanted = kernel.constexprs(point, shape);
  for (const auto &[name, value] : wanted) {
    auto it = recorded.find(name);
    if (it == recorded.end() || it->second != value)
      return "built with " + name + " = " + (it == recorded.end() ? "(none)" : it->second) +
             ", but the configuration at this shape has " + name + " = " + value;
  }
  for (const auto &[name, value] : recorded)
    if (!wanted.count(name))
      return "built with " + name + " = " + value + ", which the configuration does not have";
  for (const auto &[name, value] : point) {
    if (name.rfind("knob.", 0) != 0)
      continue;
    const nlohmann::json &knobs = b["knobs"];
    std::string knob = name.substr(5);
    if (!knobs.contains(knob) || !knobs[knob].is_number_integer() ||
        knobs[knob].get<int64_t>() != value)
      return "built with knob " + knob + " = " +
             (knobs.contains(knob) ? knobs[knob].dump() : std::string("(default)")) +
             ", but the configuration has " + std::to_string(value);
  }
  return "";
}

} // namespace tessel::autotune
