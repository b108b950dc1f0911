// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#include "workloads/keygen.hpp"

#include <immintrin.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include <array>
#include <cstring>
#include <stdexcept>

#include "digest.hpp"

namespace parbench::keygen {

namespace {

constexpr char ALPHABET[] = "abcdefghijklmnopqrstuvwxyz234567";

// The reference form, for the last (possibly partial) group: 1..5 input bytes give 2, 4, 5, 7, 8
// significant characters; the rest is '=' padding.
void encode_groups_with_padding(const unsigned char* bytes, std::size_t n, char* out) {
  static const int significant[] = {0, 2, 4, 5, 7, 8};
  for (std::size_t at = 0; at < n; at += 5, out += 8) {
    const std::size_t take = std::min<std::size_t>(5, n - at);
    std::uint64_t group = 0;
    for (std::size_t k = 0; k < 5; ++k) group = (group << 8) | (k < take ? bytes[at + k] : 0);
    for (int c = 0; c < 8; ++c) out[c] = c < significant[take] ? ALPHABET[(group >> (35 - 5 * c)) & 31] : '=';
  }
}

#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
// 40 bytes -> 64 characters per step: vpermb puts each 5-byte group, reversed, in the low
// bytes of its own 64-bit lane (so the lane holds the group as a 40-bit integer),
// vpmultishiftqb cuts the eight 5-bit fields out of each lane (bits 35, 30, ..., 0), and a
// second vpermb maps each field to its letter (a 64-entry table: the alphabet twice, so the
// three high bits vpmultishiftqb leaves do not matter). Returns how many bytes it encoded.
std::size_t encode_full_groups(const unsigned char* bytes, std::size_t n, char* out) {
  alignas(64) static const auto tables = [] {
    struct {
      std::uint8_t spread[64], shifts[64], letters[64];
    } t{};
    for (int lane = 0; lane < 8; ++lane) {
      for (int k = 0; k < 8; ++k) {
        t.spread[8 * lane + k] = static_cast<std::uint8_t>(k < 5 ? 5 * lane + 4 - k : 0);
        t.shifts[8 * lane + k] = static_cast<std::uint8_t>(35 - 5 * k);
      }
    }
    for (int i = 0; i < 64; ++i) t.letters[i] = static_cast<std::uint8_t>(ALPHABET[i & 31]);
    return t;
  }();
  const __m512i spread = _mm512_load_si512(tables.spread), shifts = _mm512_load_si512(tables.shifts);
  const __m512i letters = _mm512_load_si512(tables.letters);
  std::size_t at = 0;
  for (; at + 40 <= n; at += 40, out += 64) {
    // A masked load reads exactly 40 bytes, so the last block never touches memory past the key.
    const __m512i block = _mm512_maskz_loadu_epi8(0xff'ffff'ffffull, bytes + at);
    // The maskz forms with every lane set are the plain instructions; GCC 12 warns about the
    // undefined pass-through operand of the unmasked intrinsics (its bug 105593).
    constexpr __mmask64 all = ~__mmask64{0};
    const __m512i groups = _mm512_maskz_permutexvar_epi8(all, spread, block);
    const __m512i fields = _mm512_maskz_multishift_epi64_epi8(all, shifts, groups);
    _mm512_storeu_si512(out, _mm512_maskz_permutexvar_epi8(all, fields, letters));
  }
  return at;
}
constexpr const char* BASE32_KERNEL = "avx512vbmi";
#else
// Two letters per lookup: a 1024-entry table of letter pairs, four lookups per 5-byte group.
std::size_t encode_full_groups(const unsigned char* bytes, std::size_t n, char* out) {
  static const auto pairs = [] {
    std::array<std::array<char, 2>, 1024> t{};
    for (int i = 0; i < 1024; ++i) t[i] = {ALPHABET[i >> 5], ALPHABET[i & 31]};
    return t;
  }();
  std::size_t at = 0;
  for (; at + 5 <= n; at += 5, out += 8) {
    const std::uint64_t group = (std::uint64_t{bytes[at]} << 32) | (std::uint64_t{bytes[at + 1]} << 24) |
                                (std::uint64_t{bytes[at + 2]} << 16) | (std::uint64_t{bytes[at + 3]} << 8) | bytes[at + 4];
    for (int p = 0; p < 4; ++p) std::memcpy(out + 2 * p, pairs[(group >> (30 - 10 * p)) & 1023].data(), 2);
  }
  return at;
}
constexpr const char* BASE32_KERNEL = "scalar";
#endif

}  // namespace

const char* base32_kernel_name() { return BASE32_KERNEL; }

void base32_lower_into(const unsigned char* bytes, std::size_t n, char* out) {
  const std::size_t done = encode_full_groups(bytes, n, out);
  encode_groups_with_padding(bytes + done, n - done, out + done / 5 * 8);
}

std::string base32_lower(const unsigned char* bytes, std::size_t n) {
  std::string out(base32_length(n), '=');
  base32_lower_into(bytes, n, out.data());
  return out;
}

namespace {

// One worker's generator and scratch space; made on the worker's own thread.
class KeyMaker {
 public:
  explicit KeyMaker(const Params& params)
      : params_(params),
        raw_(static_cast<std::size_t>(params.key_bytes)),
        encoded_(base32_length(raw_.size())) {}

  void make_keys(std::int64_t first, std::int64_t end, std::vector<std::string>& keys) {
    for (std::int64_t i = first; i < end; ++i) {
      fill_random(i);
      keys[static_cast<std::size_t>(i)] = base32_lower(raw_.data(), raw_.size());
    }
  }

  void random_only(std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) fill_random(i);
  }

  void encode_only(std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) base32_lower_into(raw_.data(), raw_.size(), encoded_.data());
  }

 private:
  void fill_random(std::int64_t index) {
    if (params_.source == Source::seeded) {
      splitmix64_bytes(params_.seed, static_cast<std::uint64_t>(index), raw_.data(), raw_.size());
    } else if (RAND_bytes(raw_.data(), static_cast<int>(raw_.size())) != 1) {
      throw std::runtime_error("RAND_bytes failed: " + std::to_string(ERR_get_error()));
    }
  }

  const Params& params_;
  std::vector<unsigned char> raw_;
  std::vector<char> encoded_;
};

// Runs `work(maker, first, end)` over every chunk of keys with the model's workers.
template <class Work>
ChunkRun run_chunks(Model model, const Params& params, std::int64_t chunk, int workers, Work&& work) {
  const ChunkPlan plan(params.count, chunk);
  auto make_worker = [&] {
    return [&, maker = KeyMaker(params)](std::int64_t c) mutable { work(maker, plan.begin(c), plan.end(c)); };
  };
  if (model == Model::threads) return run_chunks_on_threads(plan, workers, make_worker);
  if (model == Model::openmp) return run_chunks_openmp(plan, workers, make_worker);
  return run_chunks_here(plan, make_worker);
}

}  // namespace

Generated generate(Model model, const Params& params, std::int64_t chunk, int workers) {
  Generated generated;
  generated.keys.resize(static_cast<std::size_t>(params.count));
  generated.ran = run_chunks(model, params, chunk, workers, [&](KeyMaker& maker, std::int64_t first, std::int64_t end) {
    maker.make_keys(first, end, generated.keys);
  });
  return generated;
}

CeilingTimes time_ceiling(Model model, const Params& params, std::int64_t chunk, int workers) {
  CeilingTimes times;
  times.csprng_ns = time_ns([&] {
    run_chunks(model, params, chunk, workers, [](KeyMaker& maker, std::int64_t first, std::int64_t end) {
      maker.random_only(first, end);
    });
  });
  times.base32_ns = time_ns([&] {
    run_chunks(model, params, chunk, workers, [](KeyMaker& maker, std::int64_t first, std::int64_t end) {
      maker.encode_only(first, end);
    });
  });
  return times;
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
  const std::string rule = "chunks of min(1024, ceil(count/workers)) keys; ";
  const std::string keys = "each key a std::string in one std::vector<std::string>";
  return {"keygen",
          {"count", "bytes", "source", "seed", "chunk"},
          {{"seq", "seq", false, "every chunk in order on the main thread; " + keys},
           {"threads", "threads", true,
            "--workers std::jthreads started and joined per repetition; worker w takes chunk w, then claims chunks from an atomic counter; " +
                rule + keys},
           {"openmp", "data-parallel", true,
            "#pragma omp for schedule(static,1) over chunks (libgomp); the team is started by the region and ended by "
            "omp_pause_resource_all(omp_pause_hard) in every repetition; " + rule + keys}}};
}

namespace {

Model model_named(const std::string& name) {
  if (name == "seq") return Model::seq;
  return name == "threads" ? Model::threads : Model::openmp;
}

Params read_params(const Invocation& call) {
  Params params;
  params.count = call.integer("count");
  params.key_bytes = call.integer("bytes");
  const std::string source = call.text_or("source", "strong");
  if (source != "strong" && source != "seeded") throw UsageError("--source must be strong or seeded, got '" + source + "'");
  params.source = source == "strong" ? Source::strong : Source::seeded;
  params.seed = static_cast<std::uint64_t>(call.integer_or("seed", 0));
  if (params.count < 0 || params.key_bytes < 0 || params.key_bytes > (1 << 30)) throw UsageError("--count and --bytes must be >= 0");
  return params;
}

}  // namespace

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  require_known_model(call, info);
  const Model model = model_named(call.model);
  call.accept_only(model == Model::seq ? std::vector<std::string>{"count", "bytes", "source", "seed", "chunk"}
                                       : std::vector<std::string>{"count", "bytes", "source", "seed", "chunk", "workers"});
  const Params params = read_params(call);
  const int workers = model == Model::seq ? 1 : call.workers();
  const std::int64_t chunk = chosen_chunk(call, params.count, workers, CHUNK_CAP_KEYS);

  run_repetitions(call, [&] {
    Generated generated;
    Repetition repetition;
    repetition.ns = time_ns([&] { generated = generate(model, params, chunk, workers); });
    repetition.items = static_cast<std::uint64_t>(params.count);
    repetition.checksum = checksum(params, generated.keys);
    const CeilingTimes ceiling = time_ceiling(model, params, chunk, workers);
    report_chunks(repetition.extra, workers, ChunkPlan(params.count, chunk), generated.ran);
    repetition.extra.push_back({"ceiling", std::string("csprng+base32")});
    repetition.extra.push_back({"ceiling_ns", static_cast<std::int64_t>(ceiling.csprng_ns + ceiling.base32_ns)});
    repetition.extra.push_back({"csprng_ns", static_cast<std::int64_t>(ceiling.csprng_ns)});
    repetition.extra.push_back({"base32_ns", static_cast<std::int64_t>(ceiling.base32_ns)});
    if (model == Model::openmp) {
      repetition.extra.push_back({"omp_team", std::string("per repetition")});
      repetition.extra.push_back({"omp_wait_policy", openmp_wait_policy()});
    }
    return repetition;
  });  // the keys are dropped here, after the checksum and the ceiling
}

}  // namespace parbench::keygen
