// sdes-ecb's cipher of one byte (Schaefer 1996, as Stallings tabulates it), shared by the portable
// kernel (sdes_ecb.cpp, built for the compiler's default target) and the tuned one
// (sdes_ecb_tuned.cpp, the same rounds built for this machine): one source, two builds.
#pragma once

#include <cstdint>

namespace parbench::sdes_ecb::cipher {

// Permutation tables, 1-based, bit 1 = most significant, as the spec writes them.
constexpr int P10[] = {3, 5, 2, 7, 4, 10, 1, 9, 8, 6};
constexpr int P8[] = {6, 3, 7, 4, 8, 5, 10, 9};
constexpr int IP[] = {2, 6, 3, 1, 4, 8, 5, 7};
constexpr int IP_INVERSE[] = {4, 1, 3, 5, 7, 2, 8, 6};
constexpr int EXPAND_PERMUTE[] = {4, 1, 2, 3, 2, 3, 4, 1};
constexpr int P4[] = {2, 4, 3, 1};
constexpr std::uint8_t S0[4][4] = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}};
constexpr std::uint8_t S1[4][4] = {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}};

// Any permutation, one bit at a time, straight from the table (the key schedule, and the
// reference the per-byte forms below are checked against at compile time).
template <std::size_t N>
constexpr unsigned permute(unsigned value, int input_width, const int (&positions)[N]) {
  unsigned out = 0;
  for (int position : positions) out = (out << 1) | ((value >> (input_width - position)) & 1u);
  return out;
}

constexpr unsigned rotate5(unsigned half, int by) { return ((half << by) | (half >> (5 - by))) & 31u; }

// The per-byte permutations move the bits that travel the same distance together, one mask and one
// shift per distance (Go's kernel writes them the same way): bit by bit, g++ makes the portable
// loop 1.6x slower (16 against 10 ns a byte at its default target).
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

constexpr bool same_as_table(unsigned (*form)(unsigned), int width, const int* table, int n) {
  for (unsigned v = 0; v < (1u << width); ++v) {
    unsigned expected = 0;
    for (int k = 0; k < n; ++k) expected = (expected << 1) | ((v >> (width - table[k])) & 1u);
    if (form(v) != expected) return false;
  }
  return true;
}
static_assert(same_as_table(initial_permute, 8, IP, 8));
static_assert(same_as_table(inverse_permute, 8, IP_INVERSE, 8));
static_assert(same_as_table(expand_permute, 4, EXPAND_PERMUTE, 8));
static_assert(same_as_table(permute4, 4, P4, 4));

// Each S-box packed into one constant, the entry for 4-bit input v (row from bits 1 and 4, column
// from bits 2 and 3) in the 2 bits at 2v, so a lookup is one shift of a register. Looked up in the
// byte array, it is a load per nibble that g++ cannot vectorise (x86 has no byte gather); with the
// shift, g++ vectorises the loop by itself wherever the target has variable shifts (AVX2 and up).
constexpr std::uint32_t pack_sbox(const std::uint8_t (&box)[4][4]) {
  std::uint32_t packed = 0;
  for (unsigned v = 0; v < 16; ++v) packed |= std::uint32_t{box[((v >> 2) & 2u) | (v & 1u)][(v >> 1) & 3u]} << (2 * v);
  return packed;
}
constexpr std::uint32_t S0_PACKED = pack_sbox(S0);
constexpr std::uint32_t S1_PACKED = pack_sbox(S1);
constexpr unsigned sbox(std::uint32_t packed, unsigned nibble) { return (packed >> (2 * nibble)) & 3u; }

constexpr unsigned f_k(unsigned block, unsigned subkey) {
  const unsigned left = block >> 4, right = block & 15u;
  const unsigned mixed = expand_permute(right) ^ subkey;
  const unsigned substituted = (sbox(S0_PACKED, mixed >> 4) << 2) | sbox(S1_PACKED, mixed & 15u);
  return ((left ^ permute4(substituted)) << 4) | right;
}

constexpr unsigned swap_halves(unsigned block) { return ((block & 15u) << 4) | (block >> 4); }

// IP, f_K(first), SW, f_K(second), IP⁻¹. Always inlined (as Rust's encrypt_byte is,
// #[inline(always)]): a call per byte is a loop the vectoriser cannot touch.
[[gnu::always_inline]] inline std::uint8_t run_rounds(std::uint8_t block, unsigned first, unsigned second) {
  const unsigned after_first = f_k(initial_permute(block), first);
  return static_cast<std::uint8_t>(inverse_permute(f_k(swap_halves(after_first), second)));
}

}  // namespace parbench::sdes_ecb::cipher
