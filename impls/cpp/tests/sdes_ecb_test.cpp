// sdes-ecb against workloads/sdes-ecb.md: subkeys, byte vectors, the key-642 table, and every model agreeing.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "digest.hpp"
#include "workers_for.hpp"
#include "workloads/sdes_ecb.hpp"

using namespace parbench::sdes_ecb;
using parbench::KernelClass;
using parbench::WorkerKind;

namespace {
std::uint8_t encrypt_with(unsigned key, std::uint8_t plain) { return encrypt_byte(plain, derive_subkeys(key)); }

std::vector<std::uint8_t> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::vector<std::uint8_t> bytes(n);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(generator());
  return bytes;
}
}  // namespace

TEST(SdesSubkeys, Key1010000010GivesK1_10100100AndK2_01000011) {
  const Subkeys keys = derive_subkeys(0b1010000010);
  EXPECT_EQ(keys.k1, 0b10100100);
  EXPECT_EQ(keys.k2, 0b01000011);
}

TEST(SdesEncrypt, Key0000000000Plain10101010) { EXPECT_EQ(encrypt_with(0b0000000000, 0b10101010), 0b00010001); }
TEST(SdesEncrypt, Key1110001110Plain10101010) { EXPECT_EQ(encrypt_with(0b1110001110, 0b10101010), 0b11001010); }
TEST(SdesEncrypt, Key1110001110Plain01010101) { EXPECT_EQ(encrypt_with(0b1110001110, 0b01010101), 0b01110000); }
TEST(SdesEncrypt, Key1111111111Plain10101010) { EXPECT_EQ(encrypt_with(0b1111111111, 0b10101010), 0b00000100); }
TEST(SdesEncrypt, Key1010000010Plain10010111) { EXPECT_EQ(encrypt_with(0b1010000010, 0b10010111), 0b00111000); }
TEST(SdesEncrypt, Key1010000010Plain00000011) { EXPECT_EQ(encrypt_with(0b1010000010, 0b00000011), 0b11010000); }

// The spec's vectors again, through the portable kernel's loop over a span (both ciphers): the
// loop that runs is the reference procedure, byte for byte.
TEST(SdesPortableKernel, GivesTheSpecsByteVectorsThroughTheSpanLoop) {
  const struct {
    unsigned key;
    std::uint8_t plain, cipher;
  } vectors[] = {{0b0000000000, 0b10101010, 0b00010001}, {0b1110001110, 0b10101010, 0b11001010},
                 {0b1110001110, 0b01010101, 0b01110000}, {0b1111111111, 0b10101010, 0b00000100},
                 {0b1010000010, 0b10010111, 0b00111000}, {0b1010000010, 0b00000011, 0b11010000}};
  for (const auto& vector : vectors) {
    for (Cipher cipher : {Cipher::bitwise, Cipher::table}) {
      std::uint8_t out = 0;
      encrypt_span(make_cipher(cipher, vector.key, KernelClass::portable), &vector.plain, &out, 1);
      EXPECT_EQ(out, vector.cipher) << "key " << vector.key << " cipher " << static_cast<int>(cipher);
    }
  }
}

// The reference procedure's key schedule, evaluated by the compiler.
static_assert(reference::subkeys(0b1010000010).k1 == 0b10100100 && reference::subkeys(0b1010000010).k2 == 0b01000011);
static_assert(reference::encrypt_byte(0b10100100, 0b01000011, 0b10010111) == 0b00111000);

TEST(SdesDecrypt, SwappingTheSubkeysInvertsEveryByteForEveryKey) {
  for (unsigned key = 0; key < 1024; ++key) {
    const Subkeys keys = derive_subkeys(key);
    for (unsigned b = 0; b < 256; ++b) ASSERT_EQ(decrypt_byte(encrypt_byte(static_cast<std::uint8_t>(b), keys), keys), b);
  }
}

TEST(SdesTable, Key642) {
  const auto table = derive_table(642);
  EXPECT_EQ(parbench::to_hex(table.data(), table.size()),
            "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb"
            "1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124"
            "129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b5"
            "5156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1e"
            "fcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c89"
            "6d8ad1412ccf940434a41a6f71e1bf2a");
}

TEST(SdesEcb, QuickBrownFoxUnderKey642) {
  const std::string text = "The quick brown fox jumps over the lazy dog\n";
  const auto* in = reinterpret_cast<const std::uint8_t*>(text.data());
  for (KernelClass kernel : {KernelClass::portable, KernelClass::tuned}) {
    for (Cipher cipher : {Cipher::bitwise, Cipher::table}) {
      std::vector<std::uint8_t> out(text.size());
      encrypt_span(make_cipher(cipher, 642, kernel), in, out.data(), out.size());
      EXPECT_EQ(sha256_hex(out.data(), out.size()), "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf");
    }
  }
}

TEST(SdesKernels, PortableAndTunedGiveTheSameCiphertextForEveryKey) {
  // Every key a repetition's variant may name (0..1023), both ciphers, both kernel classes.
  const auto plain = random_bytes(4099, 5);
  for (unsigned key = 0; key < 1024; ++key) {
    std::vector<std::uint8_t> reference(plain.size()), out(plain.size());
    encrypt_span(make_cipher(Cipher::bitwise, key, KernelClass::portable), plain.data(), reference.data(), plain.size());
    for (KernelClass kernel : {KernelClass::portable, KernelClass::tuned}) {
      for (Cipher cipher : {Cipher::bitwise, Cipher::table}) {
        encrypt_span(make_cipher(cipher, key, kernel), plain.data(), out.data(), out.size());
        ASSERT_EQ(out, reference) << "key " << key << " cipher " << static_cast<int>(cipher) << " kernel " << static_cast<int>(kernel);
      }
    }
  }
}

TEST(SdesKernels, KernelDetailSaysWhatRan) {
  // docs/protocol.md, "Kernel classes": the portable kernel's name, for both ciphers.
  EXPECT_EQ(kernel_detail(make_cipher(Cipher::table, 642, KernelClass::portable)), "reference, transliterated");
  EXPECT_EQ(kernel_detail(make_cipher(Cipher::bitwise, 642, KernelClass::portable)), "reference, transliterated");
  const CipherState tuned_bitwise = make_cipher(Cipher::bitwise, 642, KernelClass::tuned);
  EXPECT_EQ(kernel_detail(tuned_bitwise), tuned_bitwise.bitwise->detail);
  EXPECT_EQ(kernel_detail(make_cipher(Cipher::bitwise, 642, KernelClass::tuned, 0, "scalar")).rfind("mask-and-shift permutations", 0), 0u);
  EXPECT_NE(kernel_detail(make_cipher(Cipher::table, 642, KernelClass::tuned)), kernel_detail(make_cipher(Cipher::table, 642)));
  // Streaming stores are a tuned-table technique only.
  EXPECT_FALSE(make_cipher(Cipher::table, 642, KernelClass::portable, STREAMING_FROM_BYTES).streaming_stores);
}

TEST(SdesKernels, VariantKeysGiveDifferentCiphertexts) {
  // The checker's variants (642, 1023, 5, 777): no repetition can reuse another's output.
  const auto plain = random_bytes(1000, 9);
  std::set<std::string> digests;
  for (unsigned key : {642u, 1023u, 5u, 777u}) {
    std::vector<std::uint8_t> out(plain.size());
    encrypt_span(make_cipher(Cipher::table, key), plain.data(), out.data(), out.size());
    digests.insert(sha256_hex(out.data(), out.size()));
  }
  EXPECT_EQ(digests.size(), 4u);
}

TEST(SdesEcb, TableKernelMatchesBitwiseForEveryKeyAndOddLengths) {
  // Lengths around the SIMD widths exercise both the vector loop and its scalar tail.
  for (unsigned key = 0; key < 1024; key += 37) {
    for (std::size_t n : {0u, 1u, 31u, 63u, 64u, 65u, 129u, 1000u}) {
      const auto plain = random_bytes(n, key + static_cast<unsigned>(n));
      std::vector<std::uint8_t> by_rounds(n), by_table(n);
      encrypt_span(make_cipher(Cipher::bitwise, key), plain.data(), by_rounds.data(), n);
      for (KernelClass kernel : {KernelClass::portable, KernelClass::tuned}) {
        encrypt_span(make_cipher(Cipher::table, key, kernel), plain.data(), by_table.data(), n);
        ASSERT_EQ(by_rounds, by_table) << "key " << key << " n " << n;
      }
    }
  }
}

TEST(SdesEcb, StreamingTableKernelMatchesBitwiseAtAnyAlignment) {
  const auto plain = random_bytes(5000, 3);
  const CipherState rounds = make_cipher(Cipher::bitwise, 642);
  const CipherState streaming = make_cipher(Cipher::table, 642, KernelClass::tuned, STREAMING_FROM_BYTES);
  for (std::size_t offset : {0u, 1u, 3u, 63u}) {
    for (std::size_t n : {0u, 5u, 64u, 200u, 4000u}) {
      std::vector<std::uint8_t> expected(n), out(n + 64);
      encrypt_span(rounds, plain.data(), expected.data(), n);
      encrypt_span(streaming, plain.data(), out.data() + offset, n);
      ASSERT_EQ(std::vector<std::uint8_t>(out.begin() + offset, out.begin() + offset + n), expected) << offset << " " << n;
    }
  }
}

TEST(SdesEcb, EveryModelAgreesForArbitraryChunksAndWorkers) {
  const auto plain = random_bytes(100003, 7);
  for (const CipherState& state : {make_cipher(Cipher::bitwise, 0b1110001110), make_cipher(Cipher::table, 0b1110001110),
                                   make_cipher(Cipher::table, 0b1110001110, KernelClass::tuned),
                                   make_cipher(Cipher::table, 0b1110001110, KernelClass::tuned, STREAMING_FROM_BYTES)}) {
    std::vector<std::uint8_t> expected(plain.size()), out(plain.size());
    encrypt_span(state, plain.data(), expected.data(), plain.size());
    for (std::size_t chunk : {1u, 977u, 65536u, 1u << 20}) {
      for (int workers : {1, 2, 5}) {
        for (WorkerKind model : CHUNKED_KINDS) {
          std::fill(out.begin(), out.end(), 0);
          run_model(workers_for(model, workers), encrypting(state), plain.data(), out.data(), plain.size(), chunk);
          ASSERT_EQ(out, expected) << "model " << static_cast<int>(model) << " chunk " << chunk << " workers " << workers;
        }
      }
    }
  }
}

TEST(SdesCopyCeiling, StreamingCopyCopiesEveryByteAtAnyAlignment) {
  const auto plain = random_bytes(5000, 11);
  for (std::size_t offset : {0u, 1u, 17u, 63u}) {
    for (std::size_t n : {0u, 1u, 63u, 64u, 65u, 4000u}) {
      std::vector<std::uint8_t> out(n + 64, 0);
      stream_copy_span(plain.data(), out.data() + offset, n);
      ASSERT_TRUE(std::equal(plain.begin(), plain.begin() + static_cast<std::ptrdiff_t>(n), out.begin() + static_cast<std::ptrdiff_t>(offset)))
          << offset << " " << n;
      ASSERT_EQ(out[offset + n], 0) << "wrote past the end at offset " << offset << " n " << n;
    }
  }
}

TEST(SdesChunking, TenMebibytesOnTwoWorkersAreTenChunksOfOneMebibyteOnTwoThreads) {
  const std::size_t n = std::size_t{10} << 20;
  std::vector<std::uint8_t> in(n, 1), out(n);
  const std::int64_t chunk = parbench::default_chunk(static_cast<std::int64_t>(n), 2, CHUNK_CAP_BYTES);
  EXPECT_EQ(chunk, 1 << 20);
  for (WorkerKind model : PARALLEL_KINDS) {
    const parbench::ChunkRun ran = run_model(workers_for(model, 2), streaming_copy(), in.data(), out.data(), n, chunk);
    EXPECT_EQ(ran.chunks, 10);
    EXPECT_EQ(ran.workers_used, 2) << "model " << static_cast<int>(model);
  }
}

TEST(SdesChunking, SmokeSizeOnTwoWorkersUsesBothEvenWhenOneChunkIsQuick) {
  // 1 MiB by table takes microseconds: a worker that started late must still get its chunk.
  const std::size_t n = std::size_t{1} << 20;
  std::vector<std::uint8_t> in(n, 3), out(n);
  const CipherState cipher = make_cipher(Cipher::table, 642, KernelClass::tuned, n);
  for (int attempt = 0; attempt < 20; ++attempt) {
    for (WorkerKind model : PARALLEL_KINDS) {
      const auto ran = run_model(workers_for(model, 2), encrypting(cipher), in.data(), out.data(), n,
                                 parbench::default_chunk(static_cast<std::int64_t>(n), 2, CHUNK_CAP_BYTES));
      ASSERT_EQ(ran.chunks, 2);
      ASSERT_EQ(ran.workers_used, 2) << "model " << static_cast<int>(model);
    }
  }
}

// --- the tuned techniques: every one, fallbacks included, against the portable kernel; one this
// CPU cannot run is skipped with what it needs (the default's own test below reads the CPU).

namespace {
template <class Technique>
std::vector<std::string> runnable_names(const std::vector<Technique>& techniques) {
  std::vector<std::string> names;
  for (const Technique& technique : techniques) {
    if (technique.available()) names.emplace_back(technique.name);
  }
  return names;
}

struct NamedTechnique {
  Cipher cipher;
  std::string name;
};
[[maybe_unused]] void PrintTo(const NamedTechnique& technique, std::ostream* out) {
  *out << (technique.cipher == Cipher::bitwise ? "bitwise " : "table ") << technique.name;
}

std::vector<NamedTechnique> every_technique() {
  std::vector<NamedTechnique> all;
  for (const auto& technique : tuned::bitwise_techniques()) all.push_back({Cipher::bitwise, technique.name});
  for (const auto& technique : tuned::table_techniques()) all.push_back({Cipher::table, technique.name});
  return all;
}

// What the technique needs where this CPU lacks it, else empty.
std::string lacking(const NamedTechnique& technique) {
  const auto missing = [&](const auto& techniques) -> std::string {
    for (const auto& t : techniques) {
      if (t.name == technique.name) return t.available() ? "" : t.needs;
    }
    return "an unknown technique";
  };
  return technique.cipher == Cipher::bitwise ? missing(tuned::bitwise_techniques()) : missing(tuned::table_techniques());
}
}  // namespace

class SdesTechnique : public ::testing::TestWithParam<NamedTechnique> {};

TEST_P(SdesTechnique, AgreesWithThePortableKernelOnRandomInputsAndKeys) {
  const auto [cipher, name] = GetParam();
  if (const std::string needs = lacking(GetParam()); !needs.empty()) GTEST_SKIP() << name << " needs " << needs << ", which this CPU lacks";
  // Lengths around 64 and alignments off it reach the masked head and tail of the AVX-512 loops
  // and the padded blocks of the AVX2 ones, and STREAMING_FROM_BYTES switches their non-temporal
  // stores on.
  std::mt19937 generator(47);
  const auto plain = random_bytes(STREAMING_FROM_BYTES + 200, 47);
  for (int trial = 0; trial < 24; ++trial) {
    const unsigned key = generator() % 1024;
    const std::size_t offset = generator() % 64;
    const std::size_t n = trial < 2 ? STREAMING_FROM_BYTES + generator() % 100 : generator() % 300;
    const CipherState state = make_cipher(cipher, key, KernelClass::tuned, n, name);
    ASSERT_EQ(state.streaming_stores, n >= STREAMING_FROM_BYTES && (state.bitwise ? state.bitwise->streams : state.table_technique->streams));
    std::vector<std::uint8_t> expected(n), out(n + 128, 0xa5);
    encrypt_span(make_cipher(Cipher::bitwise, key), plain.data() + offset, expected.data(), n);
    encrypt_span(state, plain.data() + offset, out.data() + offset, n);
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), out.begin() + static_cast<std::ptrdiff_t>(offset)))
        << name << " key " << key << " n " << n << " offset " << offset;
    ASSERT_EQ(out[offset + n], 0xa5) << name << " wrote past the end (n " << n << ")";
    if (offset > 0) {
      ASSERT_EQ(out[offset - 1], 0xa5) << name << " wrote before the start";
    }
  }
}

TEST_P(SdesTechnique, EncryptsEveryByteUnderEveryKey) {
  const auto [cipher, name] = GetParam();
  if (const std::string needs = lacking(GetParam()); !needs.empty()) GTEST_SKIP() << name << " needs " << needs << ", which this CPU lacks";
  std::vector<std::uint8_t> every_byte(256), out(256);
  for (unsigned b = 0; b < 256; ++b) every_byte[b] = static_cast<std::uint8_t>(b);
  for (unsigned key = 0; key < 1024; ++key) {
    encrypt_span(make_cipher(cipher, key, KernelClass::tuned, 256, name), every_byte.data(), out.data(), 256);
    for (unsigned b = 0; b < 256; ++b) ASSERT_EQ(out[b], encrypt_with(key, static_cast<std::uint8_t>(b))) << name << " key " << key << " byte " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(Every, SdesTechnique, ::testing::ValuesIn(every_technique()),
                         [](const ::testing::TestParamInfo<NamedTechnique>& info) {
                           std::string label = std::string(info.param.cipher == Cipher::bitwise ? "bitwise_" : "table_") + info.param.name;
                           std::replace(label.begin(), label.end(), '-', '_');
                           return label;
                         });

TEST(SdesTechniques, EveryCpuRunsTheLastFallbackOfEachCipher) {
  // So the agreement test above always runs at least one fallback path, whatever the CPU.
  EXPECT_EQ(runnable_names(tuned::bitwise_techniques()).back(), "scalar");
  EXPECT_EQ(runnable_names(tuned::table_techniques()).back(), "scalar");
}

TEST(SdesTechniques, TheDefaultIsTheBestThisCpuRuns) {
  // Read from the CPU here, not from the kernels' own checks: on a GFNI + AVX-512 machine the
  // agreement test must compare the GFNI kernel, not a fallback it fell to.
  const bool avx512bw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  const std::string bitwise = make_cipher(Cipher::bitwise, 642, KernelClass::tuned).bitwise->name;
  const std::string table = make_cipher(Cipher::table, 642, KernelClass::tuned).table_technique->name;
  // AVX2's nibble tables come before AVX-512 BW's mask-and-shift loop: 7x faster here (1 MiB, the
  // Xeon of 2026-12-02), so a CPU with AVX-512 but no GFNI runs them too.
  EXPECT_EQ(bitwise, avx512bw && __builtin_cpu_supports("gfni") ? "gfni-avx512"
                     : __builtin_cpu_supports("avx2")           ? "avx2"
                                                                : "scalar");
  EXPECT_EQ(table, avx512bw && __builtin_cpu_supports("avx512vbmi") ? "avx512vbmi" : __builtin_cpu_supports("avx2") ? "avx2" : "scalar");
}

TEST(SdesTechniques, ATechniqueTheCpuLacksIsAUsageErrorNotAFallback) {
  const auto lacking = [] { return false; };
  const auto having = [] { return true; };
  const std::vector<tuned::TableTechnique> techniques{{"fancy", "", "the fancy extension", lacking, nullptr, false},
                                                      {"plain", "", "x86-64", having, nullptr, false}};
  try {
    choose_technique(techniques, "fancy", "table-kernel");
    FAIL() << "asking for a technique the CPU lacks must not fall back";
  } catch (const parbench::UsageError& error) {
    EXPECT_STREQ(error.what(), "--table-kernel fancy needs the fancy extension, which this CPU lacks; it runs: plain");
  }
  EXPECT_STREQ(choose_technique(techniques, "", "table-kernel").name, "plain");
  EXPECT_THROW(choose_technique(techniques, "nonsense", "table-kernel"), parbench::UsageError);
  EXPECT_THROW(make_cipher(Cipher::bitwise, 642, KernelClass::tuned, 0, "nonsense"), parbench::UsageError);
}
