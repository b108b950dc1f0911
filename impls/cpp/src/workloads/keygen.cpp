// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#include "workloads/keygen.hpp"

#include <openssl/err.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <thread>

#include "digest.hpp"

namespace parbench::keygen {

std::string base32_lower(const unsigned char* bytes, std::size_t n) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  // 1..5 input bytes give 2, 4, 5, 7, 8 significant characters; the rest is '=' padding.
  static const int significant[] = {0, 2, 4, 5, 7, 8};
  std::string out((n + 4) / 5 * 8, '=');
  char* to = out.data();
  for (std::size_t at = 0; at < n; at += 5, to += 8) {
    const std::size_t take = std::min<std::size_t>(5, n - at);
    std::uint64_t group = 0;
    for (std::size_t k = 0; k < 5; ++k) group = (group << 8) | (k < take ? bytes[at + k] : 0);
    for (int c = 0; c < significant[take]; ++c) to[c] = alphabet[(group >> (35 - 5 * c)) & 31];
  }
  return out;
}

namespace {

void fill_random(const Params& params, std::int64_t index, unsigned char* out) {
  const auto n = static_cast<std::size_t>(params.key_bytes);
  if (params.source == Source::seeded) {
    splitmix64_bytes(params.seed, static_cast<std::uint64_t>(index), out, n);
  } else if (RAND_bytes(out, static_cast<int>(n)) != 1) {
    throw std::runtime_error("RAND_bytes failed: " + std::to_string(ERR_get_error()));
  }
}

// One key from its index: the unit of work every model shares.
void make_keys(const Params& params, std::int64_t first, std::int64_t end, std::vector<std::string>& keys) {
  std::vector<unsigned char> raw(static_cast<std::size_t>(params.key_bytes));
  for (std::int64_t i = first; i < end; ++i) {
    fill_random(params, i, raw.data());
    keys[static_cast<std::size_t>(i)] = base32_lower(raw.data(), raw.size());
  }
}

}  // namespace

std::vector<std::string> generate_seq(const Params& params) {
  std::vector<std::string> keys(static_cast<std::size_t>(params.count));
  make_keys(params, 0, params.count, keys);
  return keys;
}

std::vector<std::string> generate_threads(const Params& params, int workers) {
  std::vector<std::string> keys(static_cast<std::size_t>(params.count));
  std::vector<std::jthread> threads;
  // Contiguous equal ranges: every key costs the same, so no work stealing is needed.
  for (int w = 0; w < workers; ++w) {
    const std::int64_t first = params.count * w / workers;
    const std::int64_t end = params.count * (w + 1) / workers;
    threads.emplace_back([&params, &keys, first, end] { make_keys(params, first, end, keys); });
  }
  threads.clear();  // joins
  return keys;
}

std::vector<std::string> generate_openmp(const Params& params, int workers) {
  std::vector<std::string> keys(static_cast<std::size_t>(params.count));
#pragma omp parallel num_threads(workers)
  {
    std::vector<unsigned char> raw(static_cast<std::size_t>(params.key_bytes));
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < params.count; ++i) {
      fill_random(params, i, raw.data());
      keys[static_cast<std::size_t>(i)] = base32_lower(raw.data(), raw.size());
    }
  }
  return keys;
}

std::string checksum(const Params& params, const std::vector<std::string>& keys) {
  if (params.source == Source::strong) {
    std::uint64_t chars = 0;
    for (const auto& key : keys) chars += key.size();
    return std::to_string(keys.size()) + ":" + std::to_string(chars);
  }
  std::uint64_t sum = 0;
  for (const auto& key : keys) sum += fnv1a64(key);
  return digest_hex(sum);
}

WorkloadInfo describe() {
  return {"keygen",
          {"count", "bytes", "source", "seed"},
          {{"seq", "seq"},
           {"threads", "threads", true, "one std::jthread per worker over an equal contiguous range of keys"},
           {"openmp", "data-parallel", true, "#pragma omp for schedule(static) (libgomp)"}}};
}

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  require_known_model(call, info);
  call.accept_only(call.model == "seq" ? std::vector<std::string>{"count", "bytes", "source", "seed"}
                                       : std::vector<std::string>{"count", "bytes", "source", "seed", "workers"});
  Params params;
  params.count = call.integer("count");
  params.key_bytes = call.integer("bytes");
  const std::string source = call.text_or("source", "strong");
  if (source != "strong" && source != "seeded") throw UsageError("--source must be strong or seeded, got '" + source + "'");
  params.source = source == "strong" ? Source::strong : Source::seeded;
  params.seed = static_cast<std::uint64_t>(call.integer_or("seed", 0));
  if (params.count < 0 || params.key_bytes < 0 || params.key_bytes > (1 << 30)) throw UsageError("--count and --bytes must be >= 0");
  const int workers = call.model == "seq" ? 1 : call.workers();

  run_repetitions(call, [&] {
    std::vector<std::string> keys;
    Repetition repetition;
    repetition.ns = time_ns([&] {
      if (call.model == "seq") keys = generate_seq(params);
      else if (call.model == "threads") keys = generate_threads(params, workers);
      else keys = generate_openmp(params, workers);
    });
    repetition.items = static_cast<std::uint64_t>(params.count);
    repetition.checksum = checksum(params, keys);
    repetition.extra = {{"workers", std::int64_t{workers}}};
    return repetition;
  });
}

}  // namespace parbench::keygen
