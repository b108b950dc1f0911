// sdes-ecb's AVX2 kernels (avx2.hpp). Built for the compiler's default target like the rest of
// tuned.cpp's techniques: every function that uses AVX2 says so in its own target attribute, and
// the helpers are always inlined into them (GCC inlines a function only into one whose target
// includes the callee's, and a lambda does not take its enclosing function's target).
#include "workloads/sdes_ecb/avx2.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "workloads/sdes_ecb/portable.hpp"

namespace parbench::sdes_ecb::tuned::avx2 {

namespace {

#define PARBENCH_AVX2_INLINE [[gnu::target("avx2"), gnu::always_inline]] inline

// --- the nibble tables, made from the spec's tables at compile time -----------------------------
// Every permutation of the cipher moves single bits, so it is linear over GF(2):
// f(b) = f(b & 0x0f) ^ f(b & 0xf0), and a byte's image is two 16-entry lookups, one per nibble,
// which vpshufb does for 32 bytes at once. Adjacent steps that are all linear fold into one
// table pair (SW with IP^-1), and P4 folds into the S-boxes' entries (P4(S0(a) << 2 | S1(b)) =
// P4(S0(a) << 2) ^ P4(S1(b))). The S-boxes stay lookups of their own 4-bit inputs, after the
// subkey is XORed in: the cipher is computed step by step, never as one table of the whole.

using Nibbles = std::array<std::uint8_t, 16>;

struct NibblePair {
  Nibbles low;   // f(v) for the low nibble v
  Nibbles high;  // f(v << 4) for the high nibble v
};

template <class Map>
constexpr NibblePair nibble_pair(Map map) {
  NibblePair pair{};
  for (unsigned v = 0; v < 16; ++v) {
    pair.low[v] = static_cast<std::uint8_t>(map(v));
    pair.high[v] = static_cast<std::uint8_t>(map(v << 4));
  }
  return pair;
}

template <class Map>
constexpr Nibbles nibble_table(Map map) {
  Nibbles table{};
  for (unsigned v = 0; v < 16; ++v) table[v] = static_cast<std::uint8_t>(map(v));
  return table;
}

constexpr unsigned swap_halves(unsigned block) { return ((block & 0x0fu) << 4) | (block >> 4); }

// IP of the plaintext.
constexpr NibblePair IP_PAIR = nibble_pair([](unsigned b) { return reference::permute(b, 8, reference::IP); });
// E/P of a 4-bit half (the right one in round 1, the left one, R after SW, in round 2).
constexpr Nibbles EP_TABLE = nibble_table([](unsigned r) { return reference::permute(r, 4, reference::EP); });
// S0 and S1 with P4 folded in, written where f_K XORs them: round 1's L is the high nibble,
// round 2's (after SW, unswapped) the low one.
constexpr unsigned s0_p4(unsigned a) { return reference::permute(reference::sbox(reference::S0, a) << 2, 4, reference::P4); }
constexpr unsigned s1_p4(unsigned b) { return reference::permute(reference::sbox(reference::S1, b), 4, reference::P4); }
constexpr Nibbles S0_P4_HIGH = nibble_table([](unsigned a) { return s0_p4(a) << 4; });
constexpr Nibbles S1_P4_HIGH = nibble_table([](unsigned b) { return s1_p4(b) << 4; });
constexpr Nibbles S0_P4_LOW = nibble_table(s0_p4);
constexpr Nibbles S1_P4_LOW = nibble_table(s1_p4);
// The state after round 2 is unswapped (L1 high, L2 low): SW then IP^-1, one pair.
constexpr NibblePair OUT_PAIR = nibble_pair([](unsigned z) { return reference::permute(swap_halves(z), 8, reference::IP_INV); });

// The same steps a byte at a time, so the tables are checked against the reference at compile time.
constexpr unsigned look_up(const NibblePair& pair, unsigned b) { return pair.low[b & 15u] ^ pair.high[b >> 4]; }
constexpr unsigned rounds_of(unsigned k1, unsigned k2, unsigned plain) {
  const unsigned x = look_up(IP_PAIR, plain);
  const unsigned m1 = EP_TABLE[x & 15u] ^ k1;
  const unsigned y = x ^ S0_P4_HIGH[m1 >> 4] ^ S1_P4_HIGH[m1 & 15u];
  const unsigned m2 = EP_TABLE[y >> 4] ^ k2;
  const unsigned z = y ^ S0_P4_LOW[m2 >> 4] ^ S1_P4_LOW[m2 & 15u];
  return look_up(OUT_PAIR, z);
}
constexpr bool pairs_are_the_permutations() {
  for (unsigned b = 0; b < 256; ++b) {
    if (look_up(IP_PAIR, b) != reference::permute(b, 8, reference::IP)) return false;
    if (look_up(OUT_PAIR, b) != reference::permute(swap_halves(b), 8, reference::IP_INV)) return false;
  }
  return true;
}
constexpr bool rounds_are_the_cipher(unsigned key) {
  const reference::Subkeys keys = reference::subkeys(key);
  for (unsigned b = 0; b < 256; ++b) {
    if (rounds_of(keys.k1, keys.k2, b) != reference::encrypt_byte(keys.k1, keys.k2, b)) return false;
  }
  return true;
}
static_assert(pairs_are_the_permutations());
// A few keys here (the compiler's constexpr budget); the tests run every technique on random keys.
static_assert(rounds_are_the_cipher(642) && rounds_are_the_cipher(0) && rounds_are_the_cipher(1023) && rounds_are_the_cipher(0b1110001110));

// --- the vector steps ---------------------------------------------------------------------------

PARBENCH_AVX2_INLINE __m256i broadcast(const Nibbles& table) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table.data())));
}
PARBENCH_AVX2_INLINE __m256i low_nibbles(__m256i v) { return _mm256_and_si256(v, _mm256_set1_epi8(0x0f)); }
// A 16-bit shift: the bits a neighbour byte brings into the top of each byte are masked off.
PARBENCH_AVX2_INLINE __m256i high_nibbles(__m256i v) { return _mm256_and_si256(_mm256_srli_epi16(v, 4), _mm256_set1_epi8(0x0f)); }
PARBENCH_AVX2_INLINE __m256i lookup(__m256i table, __m256i nibbles) { return _mm256_shuffle_epi8(table, nibbles); }
PARBENCH_AVX2_INLINE __m256i xor3(__m256i a, __m256i b, __m256i c) { return _mm256_xor_si256(a, _mm256_xor_si256(b, c)); }

// The cipher over 32 bytes: 10 vpshufb; every table and both subkeys stay in registers.
struct NibbleRounds {
  __m256i k1, k2, ip_low, ip_high, ep, s0_high, s1_high, s0_low, s1_low, out_low, out_high;

  PARBENCH_AVX2_INLINE __m256i operator()(__m256i plain) const {
    const __m256i x = _mm256_xor_si256(lookup(ip_low, low_nibbles(plain)), lookup(ip_high, high_nibbles(plain)));
    const __m256i m1 = _mm256_xor_si256(lookup(ep, low_nibbles(x)), k1);
    const __m256i y = xor3(x, lookup(s0_high, high_nibbles(m1)), lookup(s1_high, low_nibbles(m1)));
    const __m256i m2 = _mm256_xor_si256(lookup(ep, high_nibbles(y)), k2);
    const __m256i z = xor3(y, lookup(s0_low, high_nibbles(m2)), lookup(s1_low, low_nibbles(m2)));
    return _mm256_xor_si256(lookup(out_low, low_nibbles(z)), lookup(out_high, high_nibbles(z)));
  }
};

// The 256-byte table by sixteen 16-entry vpshufb rows, without a blend per row: vpshufb gives 0
// wherever its index has bit 7 set, and x - 16h has bit 7 clear exactly when h <= x's high
// nibble (for x < 128). So with rows of differences, D_h = T_h ^ T_(h-1), the XOR over h = 0..7
// of vpshufb(D_h, x - 16h) telescopes to T_(high nibble) for every x < 128; the same chain over
// x ^ 0x80 with rows 8..15 gives it for x >= 128, and bit 7 of x blends the two (one vpblendvb
// per 32 bytes). Per row: a subtraction, a vpshufb and an XOR.
struct TelescopingLookup {
  __m256i differences[16];

  PARBENCH_AVX2_INLINE __m256i operator()(__m256i x) const {
    const __m256i step = _mm256_set1_epi8(16);
    __m256i low_index = x, high_index = _mm256_xor_si256(x, _mm256_set1_epi8(static_cast<char>(0x80)));
    __m256i low_half = lookup(differences[0], low_index), high_half = lookup(differences[8], high_index);
    for (int h = 1; h < 8; ++h) {
      low_index = _mm256_sub_epi8(low_index, step);
      high_index = _mm256_sub_epi8(high_index, step);
      low_half = _mm256_xor_si256(low_half, lookup(differences[h], low_index));
      high_half = _mm256_xor_si256(high_half, lookup(differences[8 + h], high_index));
    }
    return _mm256_blendv_epi8(low_half, high_half, x);
  }
};

// Fewer than 32 bytes through a zero-padded block on the stack, so nothing outside the buffers is read or written.
template <class Step>
PARBENCH_AVX2_INLINE void map_partial(const std::uint8_t* in, std::uint8_t* out, std::size_t n, const Step& step) {
  if (n == 0) return;
  alignas(32) std::uint8_t block[32] = {};
  std::memcpy(block, in, n);
  _mm256_store_si256(reinterpret_cast<__m256i*>(block), step(_mm256_load_si256(reinterpret_cast<const __m256i*>(block))));
  std::memcpy(out, block, n);
}

PARBENCH_AVX2_INLINE __m256i load(const std::uint8_t* at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)); }

// Applies `step` to in[0..n) into out, 64 bytes a loop iteration (two independent vectors). With
// `streaming`, the stores are non-temporal: they need 32-byte-aligned addresses, so the head up
// to the first one goes through the padded block.
template <class Step>
PARBENCH_AVX2_INLINE void map_blocks(const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool streaming, const Step& step) {
  std::size_t at = 0;
  if (streaming) {
    at = std::min<std::size_t>(n, (32 - reinterpret_cast<std::uintptr_t>(out) % 32) % 32);
    map_partial(in, out, at, step);
    for (; at + 64 <= n; at += 64) {
      const __m256i first = step(load(in + at)), second = step(load(in + at + 32));
      _mm256_stream_si256(reinterpret_cast<__m256i*>(out + at), first);
      _mm256_stream_si256(reinterpret_cast<__m256i*>(out + at + 32), second);
    }
    for (; at + 32 <= n; at += 32) _mm256_stream_si256(reinterpret_cast<__m256i*>(out + at), step(load(in + at)));
    _mm_sfence();
  } else {
    for (; at + 64 <= n; at += 64) {
      const __m256i first = step(load(in + at)), second = step(load(in + at + 32));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + at), first);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + at + 32), second);
    }
    for (; at + 32 <= n; at += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + at), step(load(in + at)));
  }
  map_partial(in + at, out + at, n - at, step);
}

}  // namespace

[[gnu::target("avx2")]] void bitwise_nibble_tables(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out,
                                                    std::size_t n, bool streaming) {
  const NibbleRounds rounds{_mm256_set1_epi8(static_cast<char>(k1)), _mm256_set1_epi8(static_cast<char>(k2)),
                            broadcast(IP_PAIR.low), broadcast(IP_PAIR.high), broadcast(EP_TABLE),
                            broadcast(S0_P4_HIGH), broadcast(S1_P4_HIGH), broadcast(S0_P4_LOW), broadcast(S1_P4_LOW),
                            broadcast(OUT_PAIR.low), broadcast(OUT_PAIR.high)};
  map_blocks(in, out, n, streaming, rounds);
}

[[gnu::target("avx2")]] void table_telescoping(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                                                bool streaming) {
  TelescopingLookup lookup_of;
  const auto row = [table](int h) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * h)); };
  for (int h = 0; h < 16; ++h) {
    const __m128i difference = h % 8 == 0 ? row(h) : _mm_xor_si128(row(h), row(h - 1));
    lookup_of.differences[h] = _mm256_broadcastsi128_si256(difference);
  }
  map_blocks(in, out, n, streaming, lookup_of);
}

}  // namespace parbench::sdes_ecb::tuned::avx2
