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

Generated run_model(Model model, const Params& params, int workers) {
  return generate(model, params, parbench::default_chunk(params.count, workers, CHUNK_CAP_KEYS), workers);
}

namespace {
// RFC 4648 bit by bit: the slow, obvious form the fast encoder must agree with.
std::string base32_by_bits(const std::vector<unsigned char>& bytes) {
  std::string out;
  for (std::size_t bit = 0; bit < 8 * bytes.size(); bit += 5) {
    unsigned field = 0;
    for (std::size_t k = bit; k < bit + 5; ++k) {
      const unsigned b = k < 8 * bytes.size() ? (bytes[k / 8] >> (7 - k % 8)) & 1u : 0u;
      field = (field << 1) | b;
    }
    out += "abcdefghijklmnopqrstuvwxyz234567"[field];
  }
  while (out.size() % 8 != 0) out += '=';
  return out;
}
}  // namespace

TEST(Base32Lower, AgreesWithTheBitByBitFormAtEveryLengthUpTo300) {
  // Lengths around 40 bytes exercise the 64-character SIMD step, its scalar tail and the padding.
  std::vector<unsigned char> bytes;
  for (std::size_t n = 0; n <= 300; ++n) {
    ASSERT_EQ(base32_lower(bytes.data(), bytes.size()), base32_by_bits(bytes)) << "length " << n;
    bytes.push_back(static_cast<unsigned char>(n * 151 + 7));
  }
}

TEST(Keygen, ThousandBytesGiveSixteenHundredCharsWithoutPadding) {
  const Generated generated = run_model(Model::seq, {1, 1000, Source::strong, 0}, 1);
  const auto& keys = generated.keys.views;
  ASSERT_EQ(keys.front().size(), 1600u);
  EXPECT_EQ(keys.front().find('='), std::string::npos);
}

TEST(Keygen, SeededCount3Bytes10Seed1) {
  const Params params = seeded(3, 10, 1);
  EXPECT_EQ(checksum(params, run_model(Model::seq, params, 1).keys.views), "d3605c1b2c10e632");
}

TEST(Keygen, StrongChecksumIsCountAndTotalChars) {
  const Params params{7, 1000, Source::strong, 0};
  EXPECT_EQ(checksum(params, run_model(Model::threads, params, 2).keys.views), "7:11200");
}

TEST(Keygen, StrongKeysDiffer) {
  for (Model model : {Model::seq, Model::threads, Model::openmp}) {
    const Generated generated = run_model(model, {64, 16, Source::strong, 0}, 2);
    const auto& keys = generated.keys.views;
    EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
  }
}

TEST(Keygen, EveryModelAgreesForArbitraryParamsAndChunks) {
  for (const Params& params : {seeded(257, 1000, 7), seeded(101, 37, 99), seeded(5, 3, 12345)}) {
    const std::string expected = checksum(params, run_model(Model::seq, params, 1).keys.views);
    for (int workers : {1, 3, 8}) {
      for (std::int64_t chunk : {std::int64_t{1}, std::int64_t{10}, parbench::default_chunk(params.count, workers, CHUNK_CAP_KEYS)}) {
        for (Model model : {Model::seq, Model::threads, Model::openmp}) {
          EXPECT_EQ(checksum(params, generate(model, params, chunk, workers).keys.views), expected)
              << "model " << static_cast<int>(model) << " x" << workers << " chunk " << chunk;
        }
      }
    }
  }
}

TEST(KeygenChunking, SmokeScaleOnTwoWorkersUsesBoth) {
  // 2000 keys on 2 workers: chunks of 1000, one per worker, even if one thread starts late.
  const Params params{2000, 1000, Source::strong, 0};
  for (Model model : {Model::threads, Model::openmp}) {
    const Generated generated = run_model(model, params, 2);
    EXPECT_EQ(generated.ran.chunks, 2);
    EXPECT_EQ(generated.ran.workers_used, 2) << "model " << static_cast<int>(model);
  }
}

TEST(KeygenChunking, LargeCountsAreCutInChunksOf1024Keys) {
  const Params params{5000, 8, Source::seeded, 1};
  const Generated generated = run_model(Model::threads, params, 2);
  EXPECT_EQ(generated.ran.chunks, 5);  // 1024 x 4 + 904
  EXPECT_EQ(generated.ran.workers_used, 2);
}

TEST(KeygenResult, EveryKeyIsItsOwnStringInTheWorkersArenas) {
  const Params params{3000, 1000, Source::strong, 0};
  const Generated generated = run_model(Model::threads, params, 2);
  ASSERT_EQ(generated.keys.views.size(), 3000u);
  EXPECT_EQ(generated.keys.arenas.size(), 2u);
  for (std::size_t i = 1; i < generated.keys.views.size(); ++i) {
    const auto& previous = generated.keys.views[i - 1];
    const auto& key = generated.keys.views[i];
    ASSERT_EQ(key.size(), 1600u);
    // Distinct, non-overlapping characters (not one string shared by several keys).
    ASSERT_TRUE(key.data() >= previous.data() + previous.size() || key.data() + key.size() <= previous.data()) << i;
  }
}

TEST(KeygenCeiling, BothPartsAreTimed) {
  for (Model model : {Model::seq, Model::threads, Model::openmp}) {
    const CeilingTimes times = time_ceiling(model, {300, 1000, Source::strong, 0}, 150, 2);
    EXPECT_GT(times.csprng_ns, 0u);
    EXPECT_GT(times.base32_ns, 0u);
  }
}
