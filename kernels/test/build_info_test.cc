//===- build_info_test.cc - an artifact's recorded build against a configuration -*- C++ -*-===//
//
// The build info an artifact carries is untrusted text: a malformed field (a number where a
// string belongs, an array where an object belongs) is a clear reason to refuse the artifact,
// not an exception that ends tessel-bench.

#include "autotune/BuildInfo.h"

#include "gtest/gtest.h"

namespace {

using tessel::autotune::BuildInfoMismatch;

const tessel::zoo::Kernel &rowSum() {
  const tessel::zoo::Kernel *k = tessel::zoo::Find("row_sum");
  EXPECT_NE(k, nullptr);
  return *k;
}

TEST(BuildInfo, MatchingBuildIsAccepted) {
  const tessel::zoo::Kernel &k = rowSum();
  tessel::zoo::Shape shape = {{"rows", 37}, {"cols", 300}};
  tessel::autotune::Point point = {{"knob.num_warps", 4}};
  std::string constexprs;
  for (const auto &[name, value] : k.constexprs(point, shape))
    constexprs += std::string(constexprs.empty() ? "" : ",") + "\"" + name + "\":\"" + value + "\"";
  std::string info = "{\"entry\":\"" + k.entry + "\",\"constexprs\":{" + constexprs +
                     "},\"knobs\":{\"num_warps\":4}}";
  EXPECT_EQ(BuildInfoMismatch(info, k, point, shape), "");
  // Another knob value is a mismatch naming it.
  EXPECT_NE(BuildInfoMismatch(info, k, {{"knob.num_warps", 8}}, shape).find("knob num_warps"),
            std::string::npos);
}

TEST(BuildInfo, MalformedFieldsAreReasonsNotExceptions) {
  const tessel::zoo::Kernel &k = rowSum();
  tessel::zoo::Shape shape = {{"rows", 37}, {"cols", 300}};
  tessel::autotune::Point point = {{"knob.num_warps", 4}};
  for (const char *info : {
           "",
           "not json",
           "[1, 2]",
           "{\"entry\": 5, \"constexprs\": {}, \"knobs\": {}}",
           "{\"entry\": \"row_sum\", \"constexprs\": [], \"knobs\": {}}",
           "{\"entry\": \"row_sum\", \"constexprs\": {}, \"knobs\": []}",
           "{\"entry\": \"row_sum\", \"constexprs\": {\"BLOCK\": [1]}, \"knobs\": {}}",
           "{\"entry\": \"row_sum\", \"constexprs\": {}, \"knobs\": {\"num_warps\": \"4\"}}",
           "{\"entry\": \"row_sum\", \"constexprs\": {}, \"knobs\": {\"num_warps\": 4.5}}",
           "{\"entry\": null}",
       }) {
    std::string why;
    EXPECT_NO_THROW(why = BuildInfoMismatch(info, k, point, shape)) << info;
    EXPECT_FALSE(why.empty()) << info;
  }
  // Nesting deep enough to exhaust a recursive parser is refused before parsing.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(BuildInfoMismatch(deep, k, point, shape), "the artifact's build info is not valid");
}

} // namespace
