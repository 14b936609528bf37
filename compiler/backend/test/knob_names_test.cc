//===- knob_names_test.cc - runtime/target's knob names are the backends' -===//

#include "compiler/backend/Registry.h"
#include "runtime/target/Knobs.h"

#include "gtest/gtest.h"

namespace tessel {
namespace {

TEST(KnobNames, MatchEachBackend) {
  for (TargetKind kind : {TargetKind::Cpu, TargetKind::Cuda, TargetKind::Rocm}) {
    absl::StatusOr<const Backend *> backend = lookupBackend(kind);
    ASSERT_TRUE(backend.ok()) << backend.status();
    std::vector<std::string> declared;
    for (const KnobInfo &k : (*backend)->knobs())
      declared.push_back(k.name);
    EXPECT_EQ(KnobNames(kind), declared) << TargetKindName(kind);
  }
}

} // namespace
} // namespace tessel
