// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chunking.hpp"
#include "protocol.hpp"
#include "workloads/keygen/tuned.hpp"

namespace parbench::keygen {

// RFC 4648's alphabet, lower case.
constexpr char BASE32_ALPHABET[] = "abcdefghijklmnopqrstuvwxyz234567";
// Characters of the Base32 text of `n` bytes, padding included.
constexpr std::size_t base32_length(std::size_t n) { return (n + 4) / 5 * 8; }
// The portable encoder: RFC 4648 in a plain loop (a 5-bit window over a bit buffer), appended to `out`.
void base32_plain_append(const unsigned char* bytes, std::size_t n, std::string& out);
std::string base32_plain(const unsigned char* bytes, std::size_t n);
// The tuned encoder (keygen/tuned.hpp), into a new string.
std::string base32_tuned(const unsigned char* bytes, std::size_t n);

// The portable generator: getrandom(2) until `n` bytes are filled.
void fill_getrandom(unsigned char* out, std::size_t n);

enum class Source { strong, seeded };

// portable: getrandom(2) + base32_plain into std::strings kept in a std::vector<std::string>;
// tuned: a CTR-DRBG per worker + the SIMD encoder into per-worker mmap arenas of string_views.
// `seeded` replaces only the bytes (SplitMix64), in either class.
struct Params {
  std::int64_t count = 0;
  std::int64_t key_bytes = 0;
  Source source = Source::strong;
  std::uint64_t seed = 0;
  KernelClass kernel = KernelClass::portable;
  // The tuned kernel's Base32 (--base32-kernel); nullptr = the best this CPU runs.
  const tuned::Base32Technique* base32 = nullptr;
};

// Chunk size cap of the chunking rule: chunk = min(1024, ceil(count / workers)) keys.
constexpr std::int64_t CHUNK_CAP_KEYS = 1024;

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

// Every encoded key (key i at position i), kept in memory as the spec asks, and what ran. The
// portable kernel fills `strings`, the tuned one `keys`.
struct Generated {
  std::vector<std::string> strings;
  Keys keys;
  ChunkRun ran;
  KernelClass kernel = KernelClass::portable;
  std::size_t size() const { return kernel == KernelClass::portable ? strings.size() : keys.views.size(); }
  std::string_view key(std::size_t i) const { return kernel == KernelClass::portable ? std::string_view(strings[i]) : keys.views[i]; }
};

// seq: every chunk in order on the calling thread; threads / openmp: the chunks over the model's
// workers, made in the call (cold) or before (warm) (chunking.hpp).
Generated generate(const ChunkWorkers& workers, const Params& params, std::int64_t chunk, BusyLog* busy = nullptr);

// The ceiling's two parts, with the same model, chunks and workers, nothing kept.
struct CeilingTimes {
  std::uint64_t csprng_ns = 0;  // the generator alone filling count x bytes bytes
  std::uint64_t base32_ns = 0;  // the encoder alone over count keys of fixed bytes
};
CeilingTimes time_ceiling(const ChunkWorkers& workers, const Params& params, std::int64_t chunk);

// The order-free digest of the encoded keys (both sources).
std::string checksum(const Generated& generated);

// extra.kernel_detail: the generator, the encoder and the store of the class.
std::string kernel_detail(const Params& params);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::keygen
