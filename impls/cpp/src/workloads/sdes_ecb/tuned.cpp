// sdes-ecb's tuned kernels, built with PARBENCH_CXX_TUNED_FLAGS (-march=native): the bitwise rounds
// as masks and shifts that g++ vectorises, and the table looked up with whatever this machine
// offers (AVX-512 VBMI, AVX2), chosen at compile time. sdes_ecb.cpp dispatches here for
// --kernel tuned, and for the copy ceiling.
#include "workloads/sdes_ecb/tuned.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "workloads/sdes_ecb/portable.hpp"

namespace parbench::sdes_ecb::tuned {

namespace {

// --- the bitwise kernel: mask-and-shift permutations with packed S-box constants ---------------
// The same cipher as the reference (sdes_ecb/portable.hpp), in a form written for g++'s vectoriser. Each
// permutation moves the bits that travel the same distance together, one mask and one shift per
// distance, checked against the spec's table at compile time; each S-box is packed into one
// 32-bit constant, so a lookup is a variable shift, which AVX2 and AVX-512 have (a lookup in the
// 4x4 byte array is a byte gather, which x86 does not have). With -march=native g++ vectorises
// the per-byte loop by itself (64 bytes an iteration with AVX-512); for the default target it
// stays scalar.

constexpr unsigned initial_permute(unsigned b) {
  return (b & 0x40u) << 1 | (b & 0x04u) << 4 | (b & 0x20u) | (b & 0x80u) >> 3 | (b & 0x12u) >> 1 | (b & 0x01u) << 2 |
         (b & 0x08u) >> 2;
}
constexpr unsigned inverse_permute(unsigned b) {
  return (b & 0x10u) << 3 | (b & 0x80u) >> 1 | (b & 0x20u) | (b & 0x09u) << 1 | (b & 0x02u) << 2 | (b & 0x40u) >> 4 |
         (b & 0x04u) >> 2;
}
constexpr unsigned expand_permute(unsigned r) { return (r & 1u) << 7 | (r & 0xeu) << 3 | (r & 7u) << 1 | r >> 3; }
constexpr unsigned permute4(unsigned s) { return (s & 4u) << 1 | (s & 1u) << 2 | (s & 2u) | s >> 3; }

template <std::size_t N>
constexpr bool same_as_table(unsigned (*form)(unsigned), int width, const int (&table)[N]) {
  for (unsigned v = 0; v < (1u << width); ++v) {
    if (form(v) != reference::permute(v, width, table)) return false;
  }
  return true;
}
static_assert(same_as_table(initial_permute, 8, reference::IP));
static_assert(same_as_table(inverse_permute, 8, reference::IP_INV));
static_assert(same_as_table(expand_permute, 4, reference::EP));
static_assert(same_as_table(permute4, 4, reference::P4));

// The entry for 4-bit input v (row from bits 1 and 4, column from bits 2 and 3) in the 2 bits at 2v.
constexpr std::uint32_t pack_sbox(const std::uint8_t (&box)[4][4]) {
  std::uint32_t packed = 0;
  for (unsigned v = 0; v < 16; ++v) packed |= std::uint32_t{box[((v >> 2) & 2u) | (v & 1u)][(v >> 1) & 3u]} << (2 * v);
  return packed;
}
constexpr std::uint32_t S0_PACKED = pack_sbox(reference::S0);
constexpr std::uint32_t S1_PACKED = pack_sbox(reference::S1);
constexpr unsigned packed_sbox(std::uint32_t packed, unsigned nibble) { return (packed >> (2 * nibble)) & 3u; }

constexpr unsigned f_k(unsigned block, unsigned subkey) {
  const unsigned left = block >> 4, right = block & 15u;
  const unsigned mixed = expand_permute(right) ^ subkey;
  const unsigned substituted = (packed_sbox(S0_PACKED, mixed >> 4) << 2) | packed_sbox(S1_PACKED, mixed & 15u);
  return ((left ^ permute4(substituted)) << 4) | right;
}

constexpr unsigned swap_halves(unsigned block) { return ((block & 15u) << 4) | (block >> 4); }

// Always inlined: a call per byte is a loop the vectoriser cannot touch.
[[gnu::always_inline]] inline std::uint8_t run_rounds(std::uint8_t block, unsigned first, unsigned second) {
  const unsigned after_first = f_k(initial_permute(block), first);
  return static_cast<std::uint8_t>(inverse_permute(f_k(swap_halves(after_first), second)));
}

// --- the table kernel -------------------------------------------------------------------------

// The head and tail of the SIMD loops (and the whole table where the build has no SIMD form).
void table_scalar(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
// The whole 256-byte table lives in four zmm registers: two 128-entry permutes and a blend on
// the top bit look up 64 bytes at a time, so the loop is bound by memory, not by lookups.
void table_simd(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                   bool streaming_stores) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  auto lookup = [&](const std::uint8_t* from) {
    const __m512i x = _mm512_loadu_si512(from);
    const __m512i low = _mm512_permutex2var_epi8(t0, x, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
  };
  std::size_t i = 0;
  if (streaming_stores) {
    // Buffers far larger than the caches: streaming stores skip the read-for-ownership of the
    // output (about a third of the memory traffic). They need a 64-byte aligned target.
    const std::size_t head = std::min<std::size_t>(n, (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
    table_scalar(table, in, out, head);
    for (i = head; i + 64 <= n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), lookup(in + i));
    _mm_sfence();
  } else {
    for (; i + 64 <= n; i += 64) _mm512_storeu_si512(out + i, lookup(in + i));
  }
  table_scalar(table, in + i, out + i, n - i);
}
constexpr const char* TABLE_KERNEL = "avx512vbmi";
constexpr bool HAS_STREAMING_STORES = true;
#elif defined(__AVX2__)
// Sixteen 16-entry pshufb tables, one per high nibble, selected by comparing the high nibble.
void table_simd(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  __m256i rows[16];
  for (int h = 0; h < 16; ++h) {
    rows[h] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * h)));
  }
  const __m256i low_mask = _mm256_set1_epi8(0x0f);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i low = _mm256_and_si256(x, low_mask);
    const __m256i high = _mm256_and_si256(_mm256_srli_epi16(x, 4), low_mask);
    __m256i result = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i selected = _mm256_cmpeq_epi8(high, _mm256_set1_epi8(static_cast<char>(h)));
      result = _mm256_or_si256(result, _mm256_and_si256(selected, _mm256_shuffle_epi8(rows[h], low)));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), result);
  }
  table_scalar(table, in + i, out + i, n - i);
}
constexpr const char* TABLE_KERNEL = "avx2";
constexpr bool HAS_STREAMING_STORES = false;
#else
void table_simd(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  table_scalar(table, in, out, n);
}
constexpr const char* TABLE_KERNEL = "scalar";
constexpr bool HAS_STREAMING_STORES = false;
#endif

// The copy ceiling: the widest non-temporal store the build has. Stores start at the first
// aligned address of `out` (they need one); the unaligned head and the tail go through memcpy.
#if defined(__AVX512F__)
using StreamVector = __m512i;
inline void stream_store(std::uint8_t* to, const std::uint8_t* from) {
  _mm512_stream_si512(reinterpret_cast<__m512i*>(to), _mm512_loadu_si512(from));
}
constexpr const char* STREAM_COPY_KERNEL = "avx512";
#elif defined(__AVX2__)
using StreamVector = __m256i;
inline void stream_store(std::uint8_t* to, const std::uint8_t* from) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(to), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from)));
}
constexpr const char* STREAM_COPY_KERNEL = "avx2";
#else
using StreamVector = __m128i;
inline void stream_store(std::uint8_t* to, const std::uint8_t* from) {
  _mm_stream_si128(reinterpret_cast<__m128i*>(to), _mm_loadu_si128(reinterpret_cast<const __m128i*>(from)));
}
constexpr const char* STREAM_COPY_KERNEL = "sse2";
#endif


}  // namespace

void encrypt_bitwise(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = run_rounds(in[i], k1, k2);
}

const char* bitwise_isa() {
#if defined(__AVX512BW__)
  return "AVX-512";
#elif defined(__AVX2__)
  return "AVX2";
#else
  return "no vector extension beyond the default target";
#endif
}

void encrypt_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool streaming) {
  table_simd(table, in, out, n, streaming);
}
const char* table_kernel_name() { return TABLE_KERNEL; }
bool has_streaming_stores() { return HAS_STREAMING_STORES; }

void stream_copy(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  constexpr std::size_t width = sizeof(StreamVector);
  const std::size_t head = std::min<std::size_t>(n, (width - reinterpret_cast<std::uintptr_t>(out) % width) % width);
  std::memcpy(out, in, head);
  std::size_t i = head;
  for (; i + width <= n; i += width) stream_store(out + i, in + i);
  _mm_sfence();
  std::memcpy(out + i, in + i, n - i);
}
const char* stream_copy_kernel_name() { return STREAM_COPY_KERNEL; }

}  // namespace parbench::sdes_ecb::tuned
