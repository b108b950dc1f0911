// sdes-ecb's tuned kernels: built for this machine (PARBENCH_CXX_TUNED_FLAGS, -march=native),
// where the rest of the implementation is built for the compiler's default target.
#pragma once

#include <cstddef>
#include <cstdint>

namespace parbench::sdes_ecb::tuned {

// Mask-and-shift permutations with packed S-box constants, per byte, built for this machine: g++
// vectorises the loop.
void encrypt_bitwise(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n);
// What encrypt_bitwise became here: the widest vector extension the build had.
const char* bitwise_isa();

// The key's 256-byte table looked up with the widest SIMD form this machine has; `streaming`
// writes around the caches (only where has_streaming_stores()).
void encrypt_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool streaming);
// avx512vbmi, avx2 or scalar.
const char* table_kernel_name();
bool has_streaming_stores();

// The copy ceiling: the widest non-temporal stores this machine has, and an sfence.
void stream_copy(const std::uint8_t* in, std::uint8_t* out, std::size_t n);
// avx512, avx2 or sse2.
const char* stream_copy_kernel_name();

}  // namespace parbench::sdes_ecb::tuned
