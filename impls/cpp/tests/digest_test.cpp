// The shared checksum helpers against the vectors in workloads/README.md.
#include <gtest/gtest.h>

#include "digest.hpp"

using namespace parbench;

TEST(Fnv1a64, EmptyStringIsTheOffsetBasis) { EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull); }

TEST(Fnv1a64, LetterA) { EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull); }

TEST(OrderFreeDigest, PrintsSixteenLowerCaseHexDigits) { EXPECT_EQ(digest_hex(0xABCull), "0000000000000abc"); }

TEST(OrderFreeDigest, IsTheSameInAnyOrder) {
  EXPECT_EQ(fnv1a64("x") + fnv1a64("y") + fnv1a64("z"), fnv1a64("z") + fnv1a64("x") + fnv1a64("y"));
}

TEST(SplitMix64Bytes, Seed1Index0Sixteen) {
  unsigned char bytes[16];
  splitmix64_bytes(1, 0, bytes, 16);
  EXPECT_EQ(to_hex(bytes, 16), "c15c0289ec2d0a9167ec8e65a18debbe");
}

TEST(SplitMix64Bytes, TruncatesToTheAskedLength) {
  unsigned char whole[16], cut[11];
  splitmix64_bytes(5, 3, whole, 16);
  splitmix64_bytes(5, 3, cut, 11);
  EXPECT_EQ(to_hex(cut, 11), to_hex(whole, 11));
}
