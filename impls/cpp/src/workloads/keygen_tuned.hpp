// keygen's tuned Base32: built for this machine (PARBENCH_CXX_TUNED_FLAGS, -march=native), where
// the rest of the implementation is built for the compiler's default target.
#pragma once

#include <cstddef>

namespace parbench::keygen::tuned {

// RFC 4648's alphabet, lower case.
constexpr char ALPHABET[] = "abcdefghijklmnopqrstuvwxyz234567";

// Encodes the whole 5-byte groups at the start of bytes[0..n) (8 letters each) with the widest form
// this machine has; returns how many bytes it encoded (the rest goes through the reference form).
std::size_t encode_full_groups(const unsigned char* bytes, std::size_t n, char* out);
// avx512vbmi or letter-pairs.
const char* base32_kernel_name();

}  // namespace parbench::keygen::tuned
