// The helpers every workload's checksum shares: FNV-1a 64, the order-free digest, SplitMix64 bytes.
#include "digest.hpp"

#include <cstdio>

namespace parbench {

std::string digest_hex(std::uint64_t sum) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(sum));
  return text;
}

void splitmix64_bytes(std::uint64_t seed, std::uint64_t index, unsigned char* out, std::size_t n) {
  constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ull;
  std::uint64_t state = seed + index * golden_gamma;
  for (std::size_t written = 0; written < n; written += 8) {
    state += golden_gamma;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (std::size_t k = 0; k < 8 && written + k < n; ++k) out[written + k] = static_cast<unsigned char>(z >> (8 * k));
  }
}

std::string to_hex(const unsigned char* bytes, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string text(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    text[2 * i] = digits[bytes[i] >> 4];
    text[2 * i + 1] = digits[bytes[i] & 15];
  }
  return text;
}

}  // namespace parbench
