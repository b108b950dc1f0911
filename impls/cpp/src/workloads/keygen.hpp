// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
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

// A worker's share of the result: its keys back to back in one private anonymous mapping,
// reserved for the worst case (MAP_NORESERVE: only pages that are written get memory).
class KeyArena {
 public:
  explicit KeyArena(std::size_t capacity);
  ~KeyArena();
  KeyArena(const KeyArena&) = delete;
  KeyArena& operator=(const KeyArena&) = delete;
  // The next `bytes` of the arena, its pages faulted in up front.
  char* claim(std::size_t bytes);

 private:
  char* base_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
};

// The result the caller holds: `count` separate strings, key i = views[i], each viewing its own
// characters in one of the arenas, which this object owns (dropping it frees them all).
struct Keys {
  std::vector<std::string_view> views;
  std::vector<std::unique_ptr<KeyArena>> arenas;
};

// Every encoded key (key i at position i), kept in memory as the spec asks, and what ran.
struct Generated {
  Keys keys;
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
std::string checksum(const Params& params, const std::vector<std::string_view>& keys);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::keygen
