// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "protocol.hpp"

namespace parbench::keygen {

std::string base32_lower(const unsigned char* bytes, std::size_t n);

enum class Source { strong, seeded };

struct Params {
  std::int64_t count = 0;
  std::int64_t key_bytes = 0;
  Source source = Source::strong;
  std::uint64_t seed = 0;
};

// Each model returns every encoded key (index i at position i), kept in memory as the spec asks.
std::vector<std::string> generate_seq(const Params& params);
std::vector<std::string> generate_threads(const Params& params, int workers);
std::vector<std::string> generate_openmp(const Params& params, int workers);

// "<count>:<total chars>" for strong keys, the order-free digest for seeded ones.
std::string checksum(const Params& params, const std::vector<std::string>& keys);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::keygen
