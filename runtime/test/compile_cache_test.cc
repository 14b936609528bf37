//===- compile_cache_test.cc - the on-disk kernel cache -------------*- C++ -*-===//

#include "runtime/CompileCache.h"
#include "runtime/Sha256.h"

#include "gtest/gtest.h"

#include <fstream>
#include <random>

namespace {

using tessel::runtime::CacheKey;
using tessel::runtime::CompileCache;

TEST(Sha256, KnownDigests) {
  // FIPS 180-4 examples.
  EXPECT_EQ(tessel::runtime::Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(tessel::runtime::Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(tessel::runtime::Sha256Hex(
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(tessel::runtime::Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

class CacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = std::string(getenv("TEST_TMPDIR")) + "/cache-" + std::to_string(std::random_device{}());
    key = CacheKey{"tt.func @k() { tt.return }", "k", "BLOCK=128", "x86_64/znver3/+avx2",
                   "tessel-test"};
  }
  /// A fake compiler that writes `contents` and counts its calls.
  std::function<absl::Status(const std::string &)> compiler(const std::string &contents) {
    return [this, contents](const std::string &path) {
      ++compiles;
      std::ofstream(path, std::ios::binary) << contents;
      return absl::OkStatus();
    };
  }
  std::string dir;
  CacheKey key;
  int compiles = 0;
};

TEST_F(CacheTest, MissThenHit) {
  CompileCache cache(dir);
  auto first = cache.GetOrCompile(key, compiler("artifact-1"));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(cache.lastWasHit());
  auto second = cache.GetOrCompile(key, compiler("artifact-2"));
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(cache.lastWasHit());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(compiles, 1);
}

TEST_F(CacheTest, EveryKeyFieldMatters) {
  CompileCache cache(dir);
  ASSERT_TRUE(cache.GetOrCompile(key, compiler("a")).ok());
  for (int field = 0; field < 5; ++field) {
    CacheKey other = key;
    std::string *f[] = {&other.source, &other.entry, &other.specialization, &other.target,
                        &other.compilerVersion};
    *f[field] += "'";
    ASSERT_TRUE(cache.GetOrCompile(other, compiler("b")).ok());
    EXPECT_FALSE(cache.lastWasHit()) << "field " << field;
  }
}

TEST_F(CacheTest, CorruptArtifactIsRebuilt) {
  CompileCache cache(dir);
  auto path = cache.GetOrCompile(key, compiler("good artifact"));
  ASSERT_TRUE(path.ok());
  std::ofstream(*path, std::ios::binary) << "tampered";
  auto again = cache.GetOrCompile(key, compiler("good artifact"));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(cache.lastWasHit());
  EXPECT_EQ(compiles, 2);
  std::ifstream in(*again);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(contents, "good artifact");
}

TEST_F(CacheTest, ForeignMetadataIsRebuilt) {
  CompileCache cache(dir);
  ASSERT_TRUE(cache.GetOrCompile(key, compiler("x")).ok());
  std::ofstream(dir + "/" + key.digest() + ".meta") << "tessel-cache-v1\nsomething else\n";
  ASSERT_TRUE(cache.GetOrCompile(key, compiler("x")).ok());
  EXPECT_FALSE(cache.lastWasHit());
}

TEST_F(CacheTest, CompileErrorsPropagateAndLeaveNothing) {
  CompileCache cache(dir);
  auto failed = cache.GetOrCompile(
      key, [](const std::string &) { return absl::InvalidArgumentError("bad kernel"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(), "bad kernel");
  ASSERT_TRUE(cache.GetOrCompile(key, compiler("ok")).ok());
  EXPECT_FALSE(cache.lastWasHit());
}

} // namespace
