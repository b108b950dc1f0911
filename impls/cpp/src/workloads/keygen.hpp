// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "chunking.hpp"
#include "protocol.hpp"

namespace parbench::keygen {

// Characters of the Base32 text of `n` bytes, padding included.
constexpr std::size_t base32_length(std::size_t n) { return (n + 4) / 5 * 8; }
// Writes base32_length(n) characters to `out`.
void base32_lower_into(const unsigned char* bytes, std::size_t n, char* out);
std::string base32_lower(const unsigned char* bytes, std::size_t n);
// The form the encoder was compiled with (-march decides): avx512vbmi or scalar.
const char* base32_kernel_name();

enum class Source { strong, seeded };

struct Params {
  std::int64_t count = 0;
  std::int64_t key_bytes = 0;
  Source source = Source::strong;
  std::uint64_t seed = 0;
};

// Chunk size cap of the chunking rule: chunk = min(1024, ceil(count / workers)) keys.
constexpr std::int64_t CHUNK_CAP_KEYS = 1024;

enum class Model { seq, threads, openmp };

// Every encoded key (key i at position i), kept in memory as the spec asks, and what ran.
struct Generated {
  std::vector<std::string> keys;
  ChunkRun ran;
};

// seq: every chunk in order on the calling thread; threads / openmp: the chunks over `workers`
// threads started and ended inside the call (chunking.hpp).
Generated generate(Model model, const Params& params, std::int64_t chunk, int workers);

// The ceiling's two parts, with the same model, chunks and workers, nothing kept.
struct CeilingTimes {
  std::uint64_t csprng_ns = 0;  // the generator alone filling count x bytes bytes
  std::uint64_t base32_ns = 0;  // the encoder alone over count keys of fixed bytes
};
CeilingTimes time_ceiling(Model model, const Params& params, std::int64_t chunk, int workers);

// "<count>:<total chars>" for strong keys, the order-free digest for seeded ones.
std::string checksum(const Params& params, const std::vector<std::string>& keys);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::keygen
