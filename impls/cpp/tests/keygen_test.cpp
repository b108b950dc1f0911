// keygen against workloads/keygen.md: Base32 vectors, the seeded checksum, every model agreeing.
#include <gtest/gtest.h>

#include <set>

#include "workloads/keygen.hpp"

using namespace parbench::keygen;

namespace {
std::string encode(const std::string& text) {
  return base32_lower(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}
Params seeded(std::int64_t count, std::int64_t key_bytes, std::uint64_t seed) {
  return {count, key_bytes, Source::seeded, seed};
}
}  // namespace

TEST(Base32Lower, Empty) { EXPECT_EQ(encode(""), ""); }
TEST(Base32Lower, F) { EXPECT_EQ(encode("f"), "my======"); }
TEST(Base32Lower, Fo) { EXPECT_EQ(encode("fo"), "mzxq===="); }
TEST(Base32Lower, Foo) { EXPECT_EQ(encode("foo"), "mzxw6==="); }
TEST(Base32Lower, Foob) { EXPECT_EQ(encode("foob"), "mzxw6yq="); }
TEST(Base32Lower, Fooba) { EXPECT_EQ(encode("fooba"), "mzxw6ytb"); }
TEST(Base32Lower, Foobar) { EXPECT_EQ(encode("foobar"), "mzxw6ytboi======"); }

TEST(Keygen, ThousandBytesGiveSixteenHundredCharsWithoutPadding) {
  const auto keys = generate_seq({1, 1000, Source::strong, 0});
  ASSERT_EQ(keys.front().size(), 1600u);
  EXPECT_EQ(keys.front().find('='), std::string::npos);
}

TEST(Keygen, SeededCount3Bytes10Seed1) {
  const Params params = seeded(3, 10, 1);
  EXPECT_EQ(checksum(params, generate_seq(params)), "d3605c1b2c10e632");
}

TEST(Keygen, StrongChecksumIsCountAndTotalChars) {
  const Params params{7, 1000, Source::strong, 0};
  EXPECT_EQ(checksum(params, generate_threads(params, 2)), "7:11200");
}

TEST(Keygen, StrongKeysDiffer) {
  const auto keys = generate_openmp({64, 16, Source::strong, 0}, 2);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
}

TEST(Keygen, EveryModelAgreesForArbitraryParams) {
  for (const Params& params : {seeded(257, 1000, 7), seeded(101, 37, 99), seeded(5, 3, 12345)}) {
    const std::string expected = checksum(params, generate_seq(params));
    for (int workers : {1, 3, 8}) {
      EXPECT_EQ(checksum(params, generate_threads(params, workers)), expected) << "threads x" << workers;
      EXPECT_EQ(checksum(params, generate_openmp(params, workers)), expected) << "openmp x" << workers;
    }
  }
}
