// sdes-ecb's AVX2 kernels (tuned.cpp lists them as techniques): the bitwise cipher by nibble
// tables and the 256-byte table lookup, for the CPUs that have AVX2 but no AVX-512 (AMD Zen 1-3,
// Intel client cores). Each carries the "avx2" target attribute and may run only where
// __builtin_cpu_supports("avx2") says so.
#pragma once

#include <cstddef>
#include <cstdint>

namespace parbench::sdes_ecb::tuned::avx2 {

// The cipher computed step by step for every byte, 64 bytes a loop iteration: each bit
// permutation (IP, E/P, P4 folded into the S-boxes, IP^-1 with SW) as two 16-entry vpshufb
// tables, one per nibble, the subkeys XORed in, S0 and S1 as 16-entry tables. With `streaming`,
// non-temporal stores.
void bitwise_nibble_tables(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                           bool streaming);

// The key's 256-byte table as sixteen 16-entry vpshufb rows of differences whose XOR telescopes
// to the row of each byte's high nibble (avx2.cpp). With `streaming`, non-temporal stores.
void table_telescoping(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool streaming);

}  // namespace parbench::sdes_ecb::tuned::avx2
