// sdes-ecb's tuned kernels, each a technique chosen when it runs: the file is built for the
// compiler's default target, and each SIMD kernel carries its own target attribute, so one binary
// runs the best technique this CPU has and falls back to the next where it lacks an instruction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace parbench::sdes_ecb::tuned {

// in[0..n) -> out[0..n) under the subkeys; `streaming` writes around the caches (where the
// technique `streams`).
using BitwiseKernel = void (*)(std::uint8_t k1, std::uint8_t k2, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                               bool streaming);
// in[0..n) -> out[0..n) through the key's 256-byte table.
using TableKernel = void (*)(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool streaming);

// One way to compute a tuned kernel, and what the CPU needs to run it.
template <class Kernel>
struct Technique {
  const char* name;    // --bitwise-kernel / --table-kernel, extra.bitwise_kernel / extra.table_kernel
  const char* detail;  // extra.kernel_detail
  const char* needs;   // the CPU features it needs, for the message when it is asked for and absent
  bool (*available)();
  Kernel kernel;
  bool streams;  // has non-temporal stores (used from STREAMING_FROM_BYTES)
};
using BitwiseTechnique = Technique<BitwiseKernel>;
using TableTechnique = Technique<TableKernel>;

// Every technique, best first (measured on the development machine); the last needs nothing
// beyond x86-64, so every CPU has one.
const std::vector<BitwiseTechnique>& bitwise_techniques();
const std::vector<TableTechnique>& table_techniques();

// The copy ceiling: the widest non-temporal stores this CPU has, and an sfence.
void stream_copy(const std::uint8_t* in, std::uint8_t* out, std::size_t n);
// avx512, avx2 or sse2.
const char* stream_copy_kernel_name();

}  // namespace parbench::sdes_ecb::tuned
