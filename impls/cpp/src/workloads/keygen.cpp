// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#include "workloads/keygen.hpp"

#include <openssl/err.h>
#include <openssl/rand.h>

#include <stdexcept>

#include "digest.hpp"

namespace parbench::keygen {

void base32_lower_into(const unsigned char* bytes, std::size_t n, char* out) {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  // 1..5 input bytes give 2, 4, 5, 7, 8 significant characters; the rest is '=' padding.
  static const int significant[] = {0, 2, 4, 5, 7, 8};
  for (std::size_t at = 0; at < n; at += 5, out += 8) {
    const std::size_t take = std::min<std::size_t>(5, n - at);
    std::uint64_t group = 0;
    for (std::size_t k = 0; k < 5; ++k) group = (group << 8) | (k < take ? bytes[at + k] : 0);
    for (int c = 0; c < 8; ++c) out[c] = c < significant[take] ? alphabet[(group >> (35 - 5 * c)) & 31] : '=';
  }
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
