// keygen's tuned Base32: built for this machine (PARBENCH_CXX_TUNED_FLAGS, -march=native), where
// the rest of the implementation is built for the compiler's default target.
#pragma once

#include <cstddef>

namespace parbench::keygen::tuned {

// Writes the base32_length(n) characters of bytes[0..n) to `out`: the whole 5-byte groups with the
// widest form this machine has, the last partial group and its padding group by group.
void base32_into(const unsigned char* bytes, std::size_t n, char* out);
// avx512vbmi or letter-pairs.
const char* base32_kernel_name();

}  // namespace parbench::keygen::tuned
