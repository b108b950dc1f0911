// keygen's tuned Base32, chosen when it runs: the file is built for the compiler's default target,
// and the AVX-512 VBMI encoder carries its own target attribute, so one binary uses it where the
// CPU has VBMI and falls back to letter pairs where it has not.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace parbench::keygen::tuned {

// One way to encode Base32, and what the CPU needs to run it. `full_groups` encodes the longest
// prefix of whole 5-byte groups it handles and returns how many bytes that was.
struct Base32Technique {
  const char* name;    // --base32-kernel, extra.base32_kernel
  const char* detail;  // in extra.kernel_detail
  const char* needs;   // the CPU features it needs, for the message when it is asked for and absent
  bool (*available)();
  std::size_t (*full_groups)(const unsigned char* bytes, std::size_t n, char* out);
};

// Every technique, best first; the last needs nothing beyond x86-64.
const std::vector<Base32Technique>& base32_techniques();

// The technique `asked` names, or the best this CPU runs where it is empty; exit 2 (UsageError)
// for a name that is not one or one this CPU cannot run, never a quiet fallback.
const Base32Technique& choose_base32(std::string_view asked);

// Writes the base32_length(n) characters of bytes[0..n) to `out`: the whole 5-byte groups by
// `technique`, the last partial group and its padding group by group.
void base32_into(const Base32Technique& technique, const unsigned char* bytes, std::size_t n, char* out);

}  // namespace parbench::keygen::tuned
