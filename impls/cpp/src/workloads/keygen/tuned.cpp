// keygen's tuned Base32, chosen when it runs (tuned.hpp): AVX-512 VBMI where the CPU has it, else
// AVX2, else letter pairs; keygen.cpp uses it for --kernel tuned.
#include "workloads/keygen/tuned.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "protocol.hpp"
#include "workloads/keygen.hpp"

namespace parbench::keygen::tuned {

namespace {

constexpr const char* ALPHABET = BASE32_ALPHABET;

bool has_avx512vbmi() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi");
}
bool has_avx2() { return __builtin_cpu_supports("avx2"); }
bool every_x86_64() { return true; }

// 40 bytes -> 64 characters per step: vpermb puts each 5-byte group, reversed, in the low
// bytes of its own 64-bit lane (so the lane holds the group as a 40-bit integer),
// vpmultishiftqb cuts the eight 5-bit fields out of each lane (bits 35, 30, ..., 0), and a
// second vpermb maps each field to its letter (a 64-entry table: the alphabet twice, so the
// three high bits vpmultishiftqb leaves do not matter). Returns how many bytes it encoded.
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] std::size_t encode_vbmi(const unsigned char* bytes, std::size_t n, char* out) {
  alignas(64) static const auto tables = [] {
    struct {
      std::uint8_t spread[64], shifts[64], letters[64];
    } t{};
    for (int lane = 0; lane < 8; ++lane) {
      for (int k = 0; k < 8; ++k) {
        t.spread[8 * lane + k] = static_cast<std::uint8_t>(k < 5 ? 5 * lane + 4 - k : 0);
        t.shifts[8 * lane + k] = static_cast<std::uint8_t>(35 - 5 * k);
      }
    }
    for (int i = 0; i < 64; ++i) t.letters[i] = static_cast<std::uint8_t>(ALPHABET[i & 31]);
    return t;
  }();
  const __m512i spread = _mm512_load_si512(tables.spread), shifts = _mm512_load_si512(tables.shifts);
  const __m512i letters = _mm512_load_si512(tables.letters);
  std::size_t at = 0;
  for (; at + 40 <= n; at += 40, out += 64) {
    // A masked load reads exactly 40 bytes, so the last block never touches memory past the key.
    const __m512i block = _mm512_maskz_loadu_epi8(0xff'ffff'ffffull, bytes + at);
    // The maskz forms with every lane set are the plain instructions; GCC 12 warns about the
    // undefined pass-through operand of the unmasked intrinsics (its bug 105593).
    constexpr __mmask64 all = ~__mmask64{0};
    const __m512i groups = _mm512_maskz_permutexvar_epi8(all, spread, block);
    const __m512i fields = _mm512_maskz_multishift_epi64_epi8(all, shifts, groups);
    _mm512_storeu_si512(out, _mm512_maskz_permutexvar_epi8(all, fields, letters));
  }
  return at;
}

// 20 bytes -> 32 characters per step, for CPUs without VBMI: each 128-bit lane takes one 5-byte
// group of a 16-byte load (vpshufb: the two bytes that hold character k's 5 bits, big-endian, in
// 16-bit word k), vpmullw by 2^(5k mod 8) brings those bits to the top of the word and vpsrlw 11
// down to 0..31; two such vectors pack to 32 bytes (vpackuswb, then vpermq to undo its lane
// order), and a letter is 'a' + v, less 73 from v = 26 on ('2' = 'a' + 26 - 73). Loads read 16
// bytes at every 10, so a step runs only while 26 bytes remain; returns how many it encoded.
// Ten bytes' sixteen 5-bit values, one per 16-bit word (a lambda would not take the target).
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i avx2_fields(const unsigned char* ten, __m256i spread, __m256i multipliers) {
  const __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(ten)));
  return _mm256_srli_epi16(_mm256_mullo_epi16(_mm256_shuffle_epi8(both, spread), multipliers), 11);
}

[[gnu::target("avx2")]] std::size_t encode_avx2(const unsigned char* bytes, std::size_t n, char* out) {
  alignas(32) static const auto tables = [] {
    struct {
      std::uint8_t spread[32];
      std::uint16_t multipliers[16];
    } t{};
    for (int lane = 0; lane < 2; ++lane) {
      for (int k = 0; k < 8; ++k) {
        const int first_bit = 5 * k, group = 5 * lane;
        t.spread[16 * lane + 2 * k] = static_cast<std::uint8_t>(group + first_bit / 8 + 1);  // the word's low byte
        t.spread[16 * lane + 2 * k + 1] = static_cast<std::uint8_t>(group + first_bit / 8);
        t.multipliers[8 * lane + k] = static_cast<std::uint16_t>(1u << (first_bit % 8));
      }
    }
    return t;
  }();
  const __m256i spread = _mm256_load_si256(reinterpret_cast<const __m256i*>(tables.spread));
  const __m256i multipliers = _mm256_load_si256(reinterpret_cast<const __m256i*>(tables.multipliers));
  std::size_t at = 0;
  for (; at + 26 <= n; at += 20, out += 32) {
    const __m256i first = avx2_fields(bytes + at, spread, multipliers), second = avx2_fields(bytes + at + 10, spread, multipliers);
    const __m256i fields = _mm256_permute4x64_epi64(_mm256_packus_epi16(first, second), 0xd8);
    const __m256i digits = _mm256_and_si256(_mm256_cmpgt_epi8(fields, _mm256_set1_epi8(25)), _mm256_set1_epi8(73));
    const __m256i letters = _mm256_sub_epi8(_mm256_add_epi8(fields, _mm256_set1_epi8('a')), digits);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), letters);
  }
  return at;
}

// Two letters per lookup: a 1024-entry table of letter pairs, four lookups per 5-byte group.
std::size_t encode_letter_pairs(const unsigned char* bytes, std::size_t n, char* out) {
  static const auto pairs = [] {
    std::array<std::array<char, 2>, 1024> t{};
    for (int i = 0; i < 1024; ++i) t[i] = {ALPHABET[i >> 5], ALPHABET[i & 31]};
    return t;
  }();
  std::size_t at = 0;
  for (; at + 5 <= n; at += 5, out += 8) {
    const std::uint64_t group = (std::uint64_t{bytes[at]} << 32) | (std::uint64_t{bytes[at + 1]} << 24) |
                                (std::uint64_t{bytes[at + 2]} << 16) | (std::uint64_t{bytes[at + 3]} << 8) | bytes[at + 4];
    for (int p = 0; p < 4; ++p) std::memcpy(out + 2 * p, pairs[(group >> (30 - 10 * p)) & 1023].data(), 2);
  }
  return at;
}

// The last (possibly partial) group: 1..5 input bytes give 2, 4, 5, 7, 8 significant characters;
// the rest is '=' padding.
void encode_groups_with_padding(const unsigned char* bytes, std::size_t n, char* out) {
  static const int significant[] = {0, 2, 4, 5, 7, 8};
  for (std::size_t at = 0; at < n; at += 5, out += 8) {
    const std::size_t take = std::min<std::size_t>(5, n - at);
    std::uint64_t group = 0;
    for (std::size_t k = 0; k < 5; ++k) group = (group << 8) | (k < take ? bytes[at + k] : 0);
    for (int c = 0; c < 8; ++c) out[c] = c < significant[take] ? ALPHABET[(group >> (35 - 5 * c)) & 31] : '=';
  }
}

}  // namespace

const std::vector<Base32Technique>& base32_techniques() {
  static const std::vector<Base32Technique> techniques{
      {"avx512vbmi", "AVX-512 VBMI Base32 (vpermb + vpmultishiftqb, 40 bytes -> 64 letters)", "AVX-512 F, BW and VBMI",
       has_avx512vbmi, encode_vbmi},
      {"avx2", "AVX2 Base32 (vpshufb + vpmullw + vpsrlw, 20 bytes -> 32 letters)", "AVX2", has_avx2, encode_avx2},
      {"letter-pairs", "Base32 by a 1024-entry letter-pair table", "x86-64", every_x86_64, encode_letter_pairs},
  };
  return techniques;
}

const Base32Technique& choose_base32(std::string_view asked) {
  std::string runs_here, all;
  for (const Base32Technique& technique : base32_techniques()) {
    if (technique.available()) runs_here += (runs_here.empty() ? "" : ", ") + std::string(technique.name);
    all += (all.empty() ? "" : ", ") + std::string(technique.name);
  }
  for (const Base32Technique& technique : base32_techniques()) {
    if ((asked.empty() || technique.name == asked) && technique.available()) return technique;
    if (technique.name == asked) {
      throw UsageError("--base32-kernel " + std::string(asked) + " needs " + technique.needs + ", which this CPU lacks; it runs: " + runs_here);
    }
  }
  throw UsageError("unknown --base32-kernel '" + std::string(asked) + "'; valid: " + all + " (this CPU runs: " + runs_here + ")");
}

void base32_into(const Base32Technique& technique, const unsigned char* bytes, std::size_t n, char* out) {
  const std::size_t done = technique.full_groups(bytes, n, out);
  encode_groups_with_padding(bytes + done, n - done, out + done / 5 * 8);
}

}  // namespace parbench::keygen::tuned
