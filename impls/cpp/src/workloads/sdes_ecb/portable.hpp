// sdes-ecb's portable kernel: the "Reference procedure" of docs/workloads/sdes-ecb.md, transliterated
// (the spec's tables as arrays of positions looped over as written, the S-boxes as 4x4 arrays, the
// same order of operations). Built for the compiler's default target in sdes_ecb.cpp.
// sdes_ecb/tuned.cpp reads the tables and functions only at compile time (its static_asserts and
// constant tables): a function of this header called at run time from a kernel with a target
// attribute could be inlined with that target, and the linker keeps one copy of an inline
// function for both files.
#pragma once

#include <cstddef>
#include <cstdint>

namespace parbench::sdes_ecb::reference {

constexpr int P10[] = {3, 5, 2, 7, 4, 10, 1, 9, 8, 6};
constexpr int P8[] = {6, 3, 7, 4, 8, 5, 10, 9};
constexpr int IP[] = {2, 6, 3, 1, 4, 8, 5, 7};
constexpr int IP_INV[] = {4, 1, 3, 5, 7, 2, 8, 6};
constexpr int EP[] = {4, 1, 2, 3, 2, 3, 4, 1};
constexpr int P4[] = {2, 4, 3, 1};
constexpr std::uint8_t S0[4][4] = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}};
constexpr std::uint8_t S1[4][4] = {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}};

// The table's positions count from 1 = the most significant of `width` bits.
template <std::size_t N>
constexpr unsigned permute(unsigned value, int width, const int (&table)[N]) {
  unsigned out = 0;
  for (int position : table) out = (out << 1) | ((value >> (width - position)) & 1u);
  return out;
}

// A left rotation of a 5-bit half.
constexpr unsigned rotate5(unsigned half, unsigned by) { return ((half << by) | (half >> (5 - by))) & 0b11111u; }

struct Subkeys {
  std::uint8_t k1;
  std::uint8_t k2;
};

// key: 10 bits.
constexpr Subkeys subkeys(unsigned key) {
  const unsigned p10 = permute(key, 10, P10);
  unsigned left = rotate5(p10 >> 5, 1), right = rotate5(p10 & 0b11111u, 1);
  const unsigned k1 = permute((left << 5) | right, 10, P8);
  left = rotate5(left, 2);
  right = rotate5(right, 2);
  const unsigned k2 = permute((left << 5) | right, 10, P8);
  return {static_cast<std::uint8_t>(k1), static_cast<std::uint8_t>(k2)};
}

// Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input.
constexpr unsigned sbox(const std::uint8_t (&box)[4][4], unsigned bits4) {
  const unsigned row = (((bits4 >> 3) & 1u) << 1) | (bits4 & 1u);
  const unsigned column = (bits4 >> 1) & 0b11u;
  return box[row][column];
}

// block: 8 bits, left = the high 4, right = the low 4.
constexpr unsigned f_k(unsigned block, unsigned subkey) {
  const unsigned left = block >> 4, right = block & 0xfu;
  const unsigned mixed = permute(right, 4, EP) ^ subkey;
  const unsigned s = (sbox(S0, mixed >> 4) << 2) | sbox(S1, mixed & 0xfu);
  return ((left ^ permute(s, 4, P4)) << 4) | right;
}

// Decryption is the same with k1 and k2 swapped.
constexpr std::uint8_t encrypt_byte(unsigned k1, unsigned k2, unsigned plain) {
  const unsigned block = f_k(permute(plain, 8, IP), k1);
  const unsigned swapped = ((block & 0xfu) << 4) | (block >> 4);
  return static_cast<std::uint8_t>(permute(f_k(swapped, k2), 8, IP_INV));
}

}  // namespace parbench::sdes_ecb::reference
