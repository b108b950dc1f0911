// sdes-ecb's tuned kernels, chosen when they run (tuned.hpp): the bitwise rounds by GFNI affine
// transforms, else by AVX2 nibble tables (avx2.cpp), else as masks and shifts that g++ vectorises
// for the widest target the CPU has; the table looked up with AVX-512 VBMI, else AVX2 (avx2.cpp),
// else a scalar loop; and the copy ceiling. This file
// is built for the compiler's default target: every kernel that needs more says so in its own
// target attribute, and runs only where its technique's available() says the CPU has it.
#include "workloads/sdes_ecb/tuned.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "workloads/sdes_ecb/avx2.hpp"
#include "workloads/sdes_ecb/portable.hpp"

namespace parbench::sdes_ecb::tuned {

namespace {

// --- what the CPU has (GCC's __builtin_cpu_supports also checks that the OS saves the registers)

bool has_avx2() { return __builtin_cpu_supports("avx2"); }
bool has_avx512bw() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"); }
bool has_gfni_avx512() { return has_avx512bw() && __builtin_cpu_supports("gfni"); }
bool has_avx512vbmi() { return has_avx512bw() && __builtin_cpu_supports("avx512vbmi"); }
bool every_x86_64() { return true; }

#define PARBENCH_GFNI_AVX512 "avx512f,avx512bw,gfni"
#define PARBENCH_AVX512_VBMI "avx512f,avx512bw,avx512vbmi"
#define PARBENCH_AVX512_BW "avx512f,avx512bw"

// Applies `step` to every 64 bytes of in[0..n) into out; the partial blocks at the ends go through
// masked loads and stores, so no byte beyond either buffer is touched. With `streaming`, full
// blocks are written with non-temporal stores to 64-byte-aligned addresses (the head up to the
// first one is a masked block), which skip reading each destination line before writing it.
// GCC inlines a function only into one whose target includes the callee's, so the loop is
// stamped out once per target rather than written once with the widest.
#define PARBENCH_AVX512_MAP_BLOCKS(NAME, TARGET)                                                                            \
  template <class Step>                                                                                                  \
  [[gnu::target(TARGET)]] void NAME(const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool streaming, const Step& step) { \
    std::size_t at = streaming ? std::min<std::size_t>(n, (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64) : 0;  \
    if (at > 0) {                                                                                                        \
      const __mmask64 mask = (std::uint64_t{1} << at) - 1;                                                               \
      _mm512_mask_storeu_epi8(out, mask, step(_mm512_maskz_loadu_epi8(mask, in)));                                       \
    }                                                                                                                    \
    if (streaming) {                                                                                                     \
      for (; at + 64 <= n; at += 64) {                                                                                   \
        _mm512_stream_si512(reinterpret_cast<__m512i*>(out + at), step(_mm512_loadu_si512(in + at)));                   \
      }                                                                                                                  \
      _mm_sfence();                                                                                                      \
    } else {                                                                                                             \
      for (; at + 64 <= n; at += 64) _mm512_storeu_si512(out + at, step(_mm512_loadu_si512(in + at)));                   \
    }                                                                                                                    \
    if (at < n) {                                                                                                        \
      const __mmask64 mask = (std::uint64_t{1} << (n - at)) - 1;                                                         \
      _mm512_mask_storeu_epi8(out + at, mask, step(_mm512_maskz_loadu_epi8(mask, in + at)));                             \
    }                                                                                                                    \
  }

PARBENCH_AVX512_MAP_BLOCKS(map_blocks_gfni, PARBENCH_GFNI_AVX512)
PARBENCH_AVX512_MAP_BLOCKS(map_blocks_vbmi, PARBENCH_AVX512_VBMI)
PARBENCH_AVX512_MAP_BLOCKS(map_blocks_avx512, PARBENCH_AVX512_BW)

// --- the bitwise kernel by GFNI: every permutation one vgf2p8affineqb ------------------------
// Every permutation of the cipher (IP, E/P, P4, SW, IP⁻¹) moves bits within a byte, so it is an
// 8×8 bit matrix that vgf2p8affineqb applies to 64 bytes at once; the subkeys are XORed in, and
// the S-boxes S0 and S1 are the spec's 16-entry tables looked up by vpshufb per 4-bit half. The
// cipher is computed step by step for every byte: no table of the whole cipher is used.

// vgf2p8affineqb's matrix for a bit permutation: output bit i of a byte is the parity of
// (matrix byte 7 − i) AND the input byte, so that row holds the one input bit output bit i takes.
// table[k] is the input position (1 = the most significant of in_width bits) of output position
// k + 1; output position 1 is bit out_top − 1.
template <std::size_t N>
constexpr std::uint64_t permutation_matrix(const int (&table)[N], int in_width, int out_top) {
  std::uint64_t matrix = 0;
  for (std::size_t k = 0; k < N; ++k) {
    const int out_bit = out_top - 1 - static_cast<int>(k);
    const int in_bit = in_width - table[k];
    matrix |= (std::uint64_t{1} << in_bit) << (8 * (7 - out_bit));
  }
  return matrix;
}

constexpr int SWAP_HALVES[] = {5, 6, 7, 8, 1, 2, 3, 4};
constexpr std::uint64_t IP_MATRIX = permutation_matrix(reference::IP, 8, 8);
constexpr std::uint64_t IP_INV_MATRIX = permutation_matrix(reference::IP_INV, 8, 8);
// E/P reads the right half (the low 4 bits) and fills the byte.
constexpr std::uint64_t EP_MATRIX = permutation_matrix(reference::EP, 4, 8);
// P4 reads the S-boxes' 4 bits (S0's in bits 3–2, S1's in 1–0) and writes the left half, where
// f_K XORs it into L.
constexpr std::uint64_t P4_TO_LEFT_MATRIX = permutation_matrix(reference::P4, 4, 8);
constexpr std::uint64_t SWAP_MATRIX = permutation_matrix(SWAP_HALVES, 8, 8);

// What vgf2p8affineqb computes for one byte, so the matrices are checked against the spec's
// tables at compile time.
constexpr unsigned affine(std::uint64_t matrix, unsigned byte) {
  unsigned out = 0;
  for (int bit = 0; bit < 8; ++bit) {
    const unsigned row = static_cast<unsigned>(matrix >> (8 * (7 - bit))) & 0xffu;
    out |= static_cast<unsigned>(__builtin_parity(row & byte)) << bit;
  }
  return out;
}
constexpr bool matrices_match_the_tables() {
  for (unsigned b = 0; b < 256; ++b) {
    if (affine(IP_MATRIX, b) != reference::permute(b, 8, reference::IP)) return false;
    if (affine(IP_INV_MATRIX, b) != reference::permute(b, 8, reference::IP_INV)) return false;
    if (affine(EP_MATRIX, b) != reference::permute(b & 15u, 4, reference::EP)) return false;
    if (affine(P4_TO_LEFT_MATRIX, b) != reference::permute(b & 15u, 4, reference::P4) << 4) return false;
    if (affine(SWAP_MATRIX, b) != (((b & 15u) << 4) | (b >> 4))) return false;
  }
  return true;
}
static_assert(matrices_match_the_tables());

// S-box `box` as 16 entries indexed by its 4-bit input, its 2-bit output shifted left by `shift`,
// written once per 128-bit lane, as vpshufb reads its table.
constexpr std::array<std::uint8_t, 64> sbox_by_input(const std::uint8_t (&box)[4][4], unsigned shift) {
  std::array<std::uint8_t, 64> entries{};
  for (unsigned at = 0; at < 64; ++at) entries[at] = static_cast<std::uint8_t>(reference::sbox(box, at % 16) << shift);
  return entries;
}
constexpr std::array<std::uint8_t, 64> S0_BY_INPUT = sbox_by_input(reference::S0, 2);
constexpr std::array<std::uint8_t, 64> S1_BY_INPUT = sbox_by_input(reference::S1, 0);

// The cipher over 64 bytes; the members are made inside the kernel (a target function).
struct GfniRounds {
  __m512i k1, k2, s0, s1;

  // f_K: L ^= P4(S0(l4) ‖ S1(r4)) with (l4 ‖ r4) = E/P(R) ^ subkey; R kept.
  [[gnu::target(PARBENCH_GFNI_AVX512)]] __m512i round(__m512i block, __m512i subkey) const {
    const __m512i low_nibble = _mm512_set1_epi8(0x0f);
    const __m512i mixed = _mm512_xor_si512(_mm512_gf2p8affine_epi64_epi8(block, _mm512_set1_epi64(EP_MATRIX), 0), subkey);
    const __m512i left_in = _mm512_and_si512(_mm512_srli_epi16(mixed, 4), low_nibble);
    const __m512i right_in = _mm512_and_si512(mixed, low_nibble);
    const __m512i sboxes = _mm512_or_si512(_mm512_shuffle_epi8(s0, left_in), _mm512_shuffle_epi8(s1, right_in));
    return _mm512_xor_si512(block, _mm512_gf2p8affine_epi64_epi8(sboxes, _mm512_set1_epi64(P4_TO_LEFT_MATRIX), 0));
  }

  [[gnu::target(PARBENCH_GFNI_AVX512)]] __m512i operator()(__m512i plain) const {
    const __m512i first = round(_mm512_gf2p8affine_epi64_epi8(plain, _mm512_set1_epi64(IP_MATRIX), 0), k1);
    const __m512i second = round(_mm512_gf2p8affine_epi64_epi8(first, _mm512_set1_epi64(SWAP_MATRIX), 0), k2);
    return _mm512_gf2p8affine_epi64_epi8(second, _mm512_set1_epi64(IP_INV_MATRIX), 0);
  }
};

[[gnu::target(PARBENCH_GFNI_AVX512)]] void bitwise_gfni_avx512(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in,
                                                                std::uint8_t* out, std::size_t n, bool streaming) {
  const GfniRounds rounds{_mm512_set1_epi8(static_cast<char>(k1)), _mm512_set1_epi8(static_cast<char>(k2)), _mm512_loadu_si512(S0_BY_INPUT.data()),
                          _mm512_loadu_si512(S1_BY_INPUT.data())};
  map_blocks_gfni(in, out, n, streaming, rounds);
}

// --- the bitwise kernel: mask-and-shift permutations with packed S-box constants ---------------
// The fallback where the CPU lacks GFNI: the same cipher as the reference (sdes_ecb/portable.hpp), in
// a form written for g++'s vectoriser. Each permutation moves the bits that travel the same
// distance together, one mask and one shift per distance, checked against the spec's table at
// compile time; each S-box is packed into one 32-bit constant, so a lookup is a variable shift,
// which AVX2 and AVX-512 have (a lookup in the 4x4 byte array is a byte gather, which x86 does
// not have). In a function with an AVX-512 or AVX2 target attribute g++ vectorises the per-byte
// loop by itself; for the default target it stays scalar.

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


// The loop g++ vectorises: stamped out for each target below.
[[gnu::always_inline]] inline void masks_loop(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = run_rounds(in[i], k1, k2);
}

// 512-bit vectors: without the preference g++ keeps to 256 bits for AVX-512 targets.
[[gnu::target(PARBENCH_AVX512_BW ",prefer-vector-width=512")]] void bitwise_masks_avx512(
    std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  masks_loop(k1, k2, in, out, n);
}
[[gnu::target("avx2")]] void bitwise_masks_avx2(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out,
                                                std::size_t n, bool) {
  masks_loop(k1, k2, in, out, n);
}
void bitwise_masks_scalar(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  masks_loop(k1, k2, in, out, n);
}

// --- the table kernels -------------------------------------------------------------------------

// The scalar technique.
void table_scalar(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

// The whole 256-byte table lives in four zmm registers: bits 0–6 of each byte index 128 entries
// in two of them (vpermi2b), bit 7 picks which pair, so 64 bytes are two permutes and a blend.
struct VbmiLookup {
  __m512i t0, t1, t2, t3;
  [[gnu::target(PARBENCH_AVX512_VBMI)]] __m512i operator()(__m512i x) const {
    const __m512i low = _mm512_permutex2var_epi8(t0, x, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
  }
};

[[gnu::target(PARBENCH_AVX512_VBMI)]] void table_avx512vbmi(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out,
                                                             std::size_t n, bool streaming) {
  const VbmiLookup lookup{_mm512_loadu_si512(table), _mm512_loadu_si512(table + 64), _mm512_loadu_si512(table + 128),
                          _mm512_loadu_si512(table + 192)};
  map_blocks_vbmi(in, out, n, streaming, lookup);
}

// --- the copy ceiling: the widest non-temporal store the CPU has --------------------------------

struct Identity {
  [[gnu::target(PARBENCH_AVX512_BW)]] __m512i operator()(__m512i x) const { return x; }
};

[[gnu::target(PARBENCH_AVX512_BW)]] void stream_copy_avx512(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  map_blocks_avx512(in, out, n, true, Identity{});
}

// Stores start at the first aligned address of `out` (they need one); the head and the tail go
// through memcpy.
[[gnu::target("avx2")]] void stream_copy_avx2(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  const std::size_t head = std::min<std::size_t>(n, (32 - reinterpret_cast<std::uintptr_t>(out) % 32) % 32);
  std::memcpy(out, in, head);
  std::size_t i = head;
  for (; i + 32 <= n; i += 32) {
    _mm256_stream_si256(reinterpret_cast<__m256i*>(out + i), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
  }
  _mm_sfence();
  std::memcpy(out + i, in + i, n - i);
}

void stream_copy_sse2(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  const std::size_t head = std::min<std::size_t>(n, (16 - reinterpret_cast<std::uintptr_t>(out) % 16) % 16);
  std::memcpy(out, in, head);
  std::size_t i = head;
  for (; i + 16 <= n; i += 16) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(out + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
  }
  _mm_sfence();
  std::memcpy(out + i, in + i, n - i);
}

struct StreamCopy {
  const char* name;
  void (*copy)(const std::uint8_t*, std::uint8_t*, std::size_t);
};

StreamCopy widest_stream_copy() {
  if (has_avx512bw()) return {"avx512", stream_copy_avx512};
  if (has_avx2()) return {"avx2", stream_copy_avx2};
  return {"sse2", stream_copy_sse2};
}

}  // namespace

const std::vector<BitwiseTechnique>& bitwise_techniques() {
  static const std::vector<BitwiseTechnique> techniques{
      {"gfni-avx512",
       "GFNI + AVX-512 through <immintrin.h>: every permutation (IP, E/P, P4, SW, IP^-1) an 8x8 bit matrix applied by "
       "vgf2p8affineqb, the S-boxes by vpshufb, 64 bytes a step; streaming stores from 4 MiB",
       "GFNI, AVX-512 F and AVX-512 BW", has_gfni_avx512, bitwise_gfni_avx512, true},
      {"avx2",
       "AVX2 through <immintrin.h>: every permutation two 16-entry vpshufb nibble tables (IP; E/P; P4 folded into the "
       "S-box tables; SW with IP^-1), the subkeys XORed in, S0 and S1 by vpshufb, 64 bytes a loop iteration in registers; "
       "streaming stores from 4 MiB",
       "AVX2", has_avx2, avx2::bitwise_nibble_tables, true},
      {"avx512bw",
       "mask-and-shift permutations with packed S-box constants, one byte per loop iteration, vectorised by g++ for AVX-512 BW "
       "(a target attribute)",
       "AVX-512 F and AVX-512 BW", has_avx512bw, bitwise_masks_avx512, false},
      {"avx2-masks",
       "mask-and-shift permutations with packed S-box constants, one byte per loop iteration, vectorised by g++ for AVX2 "
       "(a target attribute)",
       "AVX2", has_avx2, bitwise_masks_avx2, false},
      {"scalar",
       "mask-and-shift permutations with packed S-box constants, one byte per loop iteration, for the default x86-64 target "
       "(which has no per-byte variable shift, so the loop stays scalar)",
       "x86-64", every_x86_64, bitwise_masks_scalar, false},
  };
  return techniques;
}

const std::vector<TableTechnique>& table_techniques() {
  static const std::vector<TableTechnique> techniques{
      {"avx512vbmi",
       "AVX-512 VBMI: the 256-byte table in four zmm, two vpermi2b and a blend per 64 bytes; streaming stores from 4 MiB",
       "AVX-512 F, BW and VBMI", has_avx512vbmi, table_avx512vbmi, true},
      {"avx2",
       "AVX2: the table as sixteen 16-entry vpshufb rows of differences, indexed by the byte less 16 per row (vpshufb "
       "zeroes an index with bit 7 set, so the XOR of the rows telescopes to the byte's own), two chains of 8 and one "
       "vpblendvb by bit 7, 64 bytes a loop iteration; streaming stores from 4 MiB",
       "AVX2", has_avx2, avx2::table_telescoping, true},
      {"scalar", "scalar table loop, one lookup per byte", "x86-64", every_x86_64, table_scalar, false},
  };
  return techniques;
}

void stream_copy(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  static const StreamCopy widest = widest_stream_copy();
  widest.copy(in, out, n);
}
const char* stream_copy_kernel_name() { return widest_stream_copy().name; }

}  // namespace parbench::sdes_ecb::tuned
