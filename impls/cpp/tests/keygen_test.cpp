// keygen against workloads/keygen.md: Base32 vectors, the seeded checksum, every model agreeing.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <string>

#include "digest.hpp"
#include "workers_for.hpp"
#include "workloads/keygen.hpp"

using namespace parbench::keygen;
using parbench::KernelClass;
using parbench::WorkerKind;

namespace {
std::string encode(const std::string& text) {
  return base32_tuned(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}
std::string encode_plain(const std::string& text) {
  return base32_plain(reinterpret_cast<const unsigned char*>(text.data()), text.size());
}
Params seeded(std::int64_t count, std::int64_t key_bytes, std::uint64_t seed, KernelClass kernel = KernelClass::portable) {
  return {count, key_bytes, Source::seeded, seed, kernel};
}
Params strong(std::int64_t count, std::int64_t key_bytes, KernelClass kernel = KernelClass::portable) {
  return {count, key_bytes, Source::strong, 0, kernel};
}
std::vector<std::string> all_keys(const Generated& generated) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < generated.size(); ++i) keys.emplace_back(generated.key(i));
  return keys;
}
constexpr KernelClass BOTH[] = {KernelClass::portable, KernelClass::tuned};
}  // namespace

TEST(Base32Lower, Empty) { EXPECT_EQ(encode(""), ""); EXPECT_EQ(encode_plain(""), ""); }
TEST(Base32Lower, F) { EXPECT_EQ(encode("f"), "my======"); EXPECT_EQ(encode_plain("f"), "my======"); }
TEST(Base32Lower, Fo) { EXPECT_EQ(encode("fo"), "mzxq===="); EXPECT_EQ(encode_plain("fo"), "mzxq===="); }
TEST(Base32Lower, Foo) { EXPECT_EQ(encode("foo"), "mzxw6==="); EXPECT_EQ(encode_plain("foo"), "mzxw6==="); }
TEST(Base32Lower, Foob) { EXPECT_EQ(encode("foob"), "mzxw6yq="); EXPECT_EQ(encode_plain("foob"), "mzxw6yq="); }
TEST(Base32Lower, Fooba) { EXPECT_EQ(encode("fooba"), "mzxw6ytb"); EXPECT_EQ(encode_plain("fooba"), "mzxw6ytb"); }
TEST(Base32Lower, Foobar) { EXPECT_EQ(encode("foobar"), "mzxw6ytboi======"); EXPECT_EQ(encode_plain("foobar"), "mzxw6ytboi======"); }

Generated run_model(WorkerKind kind, const Params& params, int workers) {
  return generate(workers_for(kind, workers), params, parbench::default_chunk(params.count, workers, CHUNK_CAP_KEYS));
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
    ASSERT_EQ(base32_tuned(bytes.data(), bytes.size()), base32_by_bits(bytes)) << "length " << n;
    ASSERT_EQ(base32_plain(bytes.data(), bytes.size()), base32_by_bits(bytes)) << "plain, length " << n;
    bytes.push_back(static_cast<unsigned char>(n * 151 + 7));
  }
}

TEST(Base32Lower, TheLastTechniqueRunsOnEveryCpu) {
  // So the agreement test below always runs one technique beside the default.
  ASSERT_STREQ(tuned::base32_techniques().back().name, "letter-pairs");
}

namespace {
std::vector<std::string> base32_technique_names() {
  std::vector<std::string> names;
  for (const tuned::Base32Technique& technique : tuned::base32_techniques()) names.emplace_back(technique.name);
  return names;
}
}  // namespace

// Every technique, one this CPU cannot run skipped with what it needs.
class Base32Technique : public ::testing::TestWithParam<std::string> {
 protected:
  const tuned::Base32Technique& technique() const {
    for (const tuned::Base32Technique& t : tuned::base32_techniques()) {
      if (t.name == GetParam()) return t;
    }
    throw std::logic_error("no technique " + GetParam());
  }
};

TEST_P(Base32Technique, AgreesWithTheBitByBitFormAtEveryLengthUpTo300AndWritesNothingPast) {
  if (!technique().available()) GTEST_SKIP() << GetParam() << " needs " << technique().needs << ", which this CPU lacks";
  std::vector<unsigned char> bytes;
  for (std::size_t n = 0; n <= 300; ++n) {
    const std::string expected = base32_by_bits(bytes);
    std::string out(expected.size() + 1, '!');
    tuned::base32_into(technique(), bytes.data(), bytes.size(), out.data());
    ASSERT_EQ(out, expected + "!") << GetParam() << ", length " << n;
    bytes.push_back(static_cast<unsigned char>(n * 151 + 7));
  }
}

TEST_P(Base32Technique, AgreesWithThePortableEncoderOnRandomKeys) {
  if (!technique().available()) GTEST_SKIP() << GetParam() << " needs " << technique().needs << ", which this CPU lacks";
  std::mt19937 generator(61);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<unsigned char> bytes(trial < 100 ? 1000 : generator() % 2000);
    for (auto& b : bytes) b = static_cast<unsigned char>(generator());
    std::string out(parbench::keygen::base32_length(bytes.size()), '!');
    tuned::base32_into(technique(), bytes.data(), bytes.size(), out.data());
    ASSERT_EQ(out, base32_plain(bytes.data(), bytes.size())) << GetParam() << ", length " << bytes.size();
  }
}

INSTANTIATE_TEST_SUITE_P(Every, Base32Technique, ::testing::ValuesIn(base32_technique_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string label = info.param;
                           std::replace(label.begin(), label.end(), '-', '_');
                           return label;
                         });

TEST(Base32Lower, TheDefaultIsTheBestTheCpuHas) {
  const bool vbmi = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
  EXPECT_STREQ(tuned::choose_base32({}).name, vbmi ? "avx512vbmi" : __builtin_cpu_supports("avx2") ? "avx2" : "letter-pairs");
}

TEST(Base32Lower, ATechniqueNotKnownOrNotRunHereIsAUsageError) {
  EXPECT_THROW(tuned::choose_base32("sse9"), parbench::UsageError);
  for (const tuned::Base32Technique& technique : tuned::base32_techniques()) {
    if (technique.available()) {
      EXPECT_STREQ(tuned::choose_base32(technique.name).name, technique.name);
    } else {
      EXPECT_THROW(tuned::choose_base32(technique.name), parbench::UsageError) << technique.name;
    }
  }
}

TEST(Keygen, ThousandBytesGiveSixteenHundredCharsWithoutPadding) {
  for (KernelClass kernel : BOTH) {
    const Generated generated = run_model(WorkerKind::calling_thread, strong(1, 1000, kernel), 1);
    ASSERT_EQ(generated.key(0).size(), 1600u);
    EXPECT_EQ(generated.key(0).find('='), std::string::npos);
  }
}

TEST(Keygen, SeededCount3Bytes10Seed1) {
  // docs/protocol.md, "Test vectors of protocol 2": the keys themselves (the probes) and the digest.
  for (KernelClass kernel : BOTH) {
    const Generated generated = run_model(WorkerKind::calling_thread, seeded(3, 10, 1, kernel), 1);
    EXPECT_EQ(all_keys(generated), (std::vector<std::string>{"yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"}));
    EXPECT_EQ(checksum(generated), "d3605c1b2c10e632");
  }
}

TEST(Keygen, ProbeIndexIsTheGenerationOrderWhateverTheChunksAndWorkers) {
  // Key i is SplitMix64 bytes(seed, i, bytes) encoded, for every model, chunk and kernel.
  const Params reference = seeded(300, 100, 11);
  const std::vector<std::string> expected = all_keys(run_model(WorkerKind::calling_thread, reference, 1));
  std::vector<unsigned char> bytes(100);
  for (std::int64_t i : {0, 100, 256, 299}) {
    parbench::splitmix64_bytes(11, static_cast<std::uint64_t>(i), bytes.data(), bytes.size());
    EXPECT_EQ(expected[static_cast<std::size_t>(i)], base32_by_bits(bytes)) << i;
  }
  for (KernelClass kernel : BOTH) {
    for (WorkerKind model : PARALLEL_KINDS) {
      EXPECT_EQ(all_keys(generate(workers_for(model, 3), seeded(300, 100, 11, kernel), 7)), expected) << static_cast<int>(model);
    }
  }
}

TEST(Keygen, VariantSeedsGiveDifferentDigests) {
  // The checker's variants 11..14: each repetition's answer is its own.
  std::set<std::string> digests;
  for (std::uint64_t seed : {11u, 12u, 13u, 14u}) digests.insert(checksum(run_model(WorkerKind::calling_thread, seeded(257, 100, seed), 1)));
  EXPECT_EQ(digests.size(), 4u);
}

TEST(Keygen, StrongChecksumIsTheOrderFreeDigestOfTheKeys) {
  for (KernelClass kernel : BOTH) {
    const Generated generated = run_model(WorkerKind::threads, strong(7, 1000, kernel), 2);
    std::uint64_t sum = 0;
    for (const auto& key : all_keys(generated)) sum += parbench::fnv1a64(key);
    EXPECT_EQ(checksum(generated), parbench::digest_hex(sum));
  }
}

TEST(Keygen, StrongKeysDiffer) {
  for (KernelClass kernel : BOTH) {
    for (WorkerKind model : CHUNKED_KINDS) {
      const auto keys = all_keys(run_model(model, strong(64, 16, kernel), 2));
      EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()).size(), keys.size());
    }
  }
}

TEST(Keygen, PortableAndTunedGiveTheSameKeys) {
  for (const Params& params : {seeded(257, 1000, 7), seeded(101, 37, 99), seeded(5, 3, 12345)}) {
    Params tuned = params;
    tuned.kernel = KernelClass::tuned;
    EXPECT_EQ(all_keys(run_model(WorkerKind::calling_thread, params, 1)), all_keys(run_model(WorkerKind::calling_thread, tuned, 1)));
  }
}

TEST(Keygen, EveryModelAgreesForArbitraryParamsAndChunks) {
  for (KernelClass kernel : BOTH) {
    for (const Params& params : {seeded(257, 1000, 7, kernel), seeded(101, 37, 99, kernel), seeded(5, 3, 12345, kernel)}) {
      const std::string expected = checksum(run_model(WorkerKind::calling_thread, params, 1));
      for (int workers : {1, 3, 8}) {
        for (std::int64_t chunk : {std::int64_t{1}, std::int64_t{10}, parbench::default_chunk(params.count, workers, CHUNK_CAP_KEYS)}) {
          for (WorkerKind model : CHUNKED_KINDS) {
            EXPECT_EQ(checksum(generate(workers_for(model, workers), params, chunk)), expected)
                << "model " << static_cast<int>(model) << " x" << workers << " chunk " << chunk;
          }
        }
      }
    }
  }
}

TEST(KeygenBusy, EveryWorkerReportsAnIntervalInsideTheRepetition) {
  for (WorkerKind model : PARALLEL_KINDS) {
    parbench::BusyLog busy(2);
    const std::uint64_t start = parbench::monotonic_ns();
    generate(workers_for(model, 2), strong(2000, 100), 1000, &busy);
    const std::string json = busy.json(start);
    EXPECT_EQ(json.rfind("[[0,", 0), 0u) << json;
    EXPECT_NE(json.find("],[1,"), std::string::npos) << json;
  }
}

TEST(KeygenChunking, SmokeScaleOnTwoWorkersUsesBoth) {
  // 2000 keys on 2 workers: chunks of 1000, one per worker, even if one thread starts late.
  const Params params = strong(2000, 1000);
  for (WorkerKind model : PARALLEL_KINDS) {
    const Generated generated = run_model(model, params, 2);
    EXPECT_EQ(generated.ran.chunks, 2);
    EXPECT_EQ(generated.ran.workers_used, 2) << "model " << static_cast<int>(model);
  }
}

TEST(KeygenChunking, LargeCountsAreCutInChunksOf1024Keys) {
  const Params params{5000, 8, Source::seeded, 1};
  const Generated generated = run_model(WorkerKind::threads, params, 2);
  EXPECT_EQ(generated.ran.chunks, 5);  // 1024 x 4 + 904
  EXPECT_EQ(generated.ran.workers_used, 2);
}

TEST(KeygenResult, PortableKeysAreStdStringsInAVector) {
  const Generated generated = run_model(WorkerKind::threads, strong(300, 1000), 2);
  ASSERT_EQ(generated.strings.size(), 300u);
  EXPECT_TRUE(generated.keys.arenas.empty());
  for (const auto& key : generated.strings) ASSERT_EQ(key.size(), 1600u);
}

TEST(KeygenResult, EveryTunedKeyIsItsOwnStringInTheWorkersArenas) {
  const Params params = strong(3000, 1000, KernelClass::tuned);
  const Generated generated = run_model(WorkerKind::threads, params, 2);
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
  for (WorkerKind model : CHUNKED_KINDS) {
    for (KernelClass kernel : BOTH) {
      const CeilingTimes times = time_ceiling(workers_for(model, 2), strong(300, 1000, kernel), 150);
      EXPECT_GT(times.csprng_ns, 0u);
      EXPECT_GT(times.base32_ns, 0u);
    }
  }
}
