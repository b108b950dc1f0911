// The helpers every workload's checksum shares: FNV-1a 64, the order-free digest, SplitMix64 bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace parbench {

constexpr std::uint64_t fnv1a64_offset = 0xcbf29ce484222325ull;

inline std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t hash = fnv1a64_offset) {
  for (unsigned char b : bytes) {
    hash ^= b;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// The order-free digest is a sum mod 2^64 of fnv1a64 values; this prints it as the spec says.
std::string digest_hex(std::uint64_t sum);

// SplitMix64 bytes(seed, index, n), written into `out` (n bytes).
void splitmix64_bytes(std::uint64_t seed, std::uint64_t index, unsigned char* out, std::size_t n);

std::string to_hex(const unsigned char* bytes, std::size_t n);

}  // namespace parbench
