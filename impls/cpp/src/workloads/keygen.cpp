// keygen: strong random keys encoded as lower-case RFC 4648 Base32 (seed 000).
#include "workloads/keygen.hpp"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <system_error>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>

#include "digest.hpp"
#include "registry.hpp"
#include "workloads/keygen/tuned.hpp"

namespace parbench::keygen {

void base32_plain_append(const unsigned char* bytes, std::size_t n, std::string& out) {
  // Whole input bytes go into a bit buffer; whenever it holds 5 bits or more, the top 5 become a letter.
  unsigned buffer = 0;
  int bits = 0;
  const std::size_t start = out.size();
  for (std::size_t i = 0; i < n; ++i) {
    buffer = (buffer << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  while ((out.size() - start) % 8 != 0) out += '=';
}

std::string base32_plain(const unsigned char* bytes, std::size_t n) {
  std::string out;
  out.reserve(base32_length(n));
  base32_plain_append(bytes, n, out);
  return out;
}

void fill_getrandom(unsigned char* out, std::size_t n) {
  // getrandom may return fewer bytes than asked (above 32 MiB, or on a signal): ask for the rest.
  while (n > 0) {
    const ssize_t got = getrandom(out, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    out += got;
    n -= static_cast<std::size_t>(got);
  }
}

std::string base32_tuned(const unsigned char* bytes, std::size_t n) {
  std::string out(base32_length(n), '=');
  tuned::base32_into(tuned::choose_base32({}), bytes, n, out.data());
  return out;
}

namespace {

// A CTR-DRBG (AES-256, NIST SP 800-90A) of the worker's own: OpenSSL's EVP_RAND with no parent,
// so it is seeded from the operating system (getrandom) when it is made and reseeds from it by
// itself. RAND_bytes' per-thread DRBGs are children of the process's primary DRBG, and OpenSSL
// 3.0 takes the primary's lock on every generate call to read its reseed counter.
class Csprng {
 public:
  Csprng() : rand_(EVP_RAND_fetch(nullptr, "CTR-DRBG", nullptr), EVP_RAND_free), state_(nullptr, EVP_RAND_CTX_free) {
    if (!rand_) fail("EVP_RAND_fetch(CTR-DRBG)");
    state_.reset(EVP_RAND_CTX_new(rand_.get(), nullptr));
    char cipher[] = "AES-256-CTR";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_DRBG_PARAM_CIPHER, cipher, 0), OSSL_PARAM_construct_end()};
    if (!state_ || EVP_RAND_instantiate(state_.get(), 256, 0, nullptr, 0, params) != 1) fail("EVP_RAND_instantiate");
  }

  // EVP_RAND_generate cuts a large request into the DRBG's largest (64 KiB) itself.
  void fill(unsigned char* out, std::size_t n) {
    if (n > 0 && EVP_RAND_generate(state_.get(), out, n, 256, 0, nullptr, 0) != 1) fail("EVP_RAND_generate");
  }

 private:
  [[noreturn]] static void fail(const char* what) {
    throw std::runtime_error(std::string(what) + " failed: " + ERR_error_string(ERR_get_error(), nullptr));
  }
  std::unique_ptr<EVP_RAND, decltype(&EVP_RAND_free)> rand_;
  std::unique_ptr<EVP_RAND_CTX, decltype(&EVP_RAND_CTX_free)> state_;
};

// Random bytes are made for a batch of keys at once (one large DRBG request instead of one per
// key), a batch of about 1 MiB so it stays in the core's L2 until it is encoded.
constexpr std::int64_t RANDOM_BATCH_BYTES = std::int64_t{1} << 20;

// One worker's generator and scratch space; made on the worker's own thread, inside the timed region.
class KeyMaker {
 public:
  KeyMaker(const Params& params, std::int64_t chunk)
      : params_(params),
        key_bytes_(static_cast<std::size_t>(params.key_bytes)),
        batch_keys_(std::clamp<std::int64_t>(RANDOM_BATCH_BYTES / std::max<std::int64_t>(1, params.key_bytes), 1, chunk)),
        random_(static_cast<std::size_t>(batch_keys_) * key_bytes_),
        encoded_(base32_length(key_bytes_)),
        base32_(params.base32 ? *params.base32 : tuned::choose_base32({})) {
    if (params.source == Source::strong && params.kernel == KernelClass::tuned) csprng_.emplace();
    scratch_.reserve(base32_length(key_bytes_));
  }

  // Keys first .. end - 1. Portable: each its own std::string from base32_plain, strings[i] = key i.
  // Tuned: encoded straight into `arena`, views[i] = key i. The same batches of random bytes in both.
  void make_keys(std::int64_t first, std::int64_t end, Generated& out, KeyArena* arena) {
    const std::size_t length = base32_length(key_bytes_);
    for_each_batch(first, end, [&](std::int64_t batch_first, std::int64_t n) {
      fill_random(batch_first, n);
      if (params_.kernel == KernelClass::portable) {
        for (std::int64_t k = 0; k < n; ++k) out.strings[static_cast<std::size_t>(batch_first + k)] = base32_plain(key(k), key_bytes_);
        return;
      }
      char* text = arena->claim(static_cast<std::size_t>(n) * length);
      for (std::int64_t k = 0; k < n; ++k, text += length) {
        tuned::base32_into(base32_, key(k), key_bytes_, text);
        out.keys.views[static_cast<std::size_t>(batch_first + k)] = std::string_view(text, length);
      }
    });
  }

  void random_only(std::int64_t first, std::int64_t end) {
    for_each_batch(first, end, [&](std::int64_t batch_first, std::int64_t n) { fill_random(batch_first, n); });
  }

  // The class's encoder over fixed bytes, nothing kept (portable: one reused std::string).
  void encode_only(std::int64_t first, std::int64_t end) {
    for (std::int64_t i = first; i < end; ++i) {
      if (params_.kernel == KernelClass::portable) {
        scratch_.clear();
        base32_plain_append(key(0), key_bytes_, scratch_);
      } else {
        tuned::base32_into(base32_, key(0), key_bytes_, encoded_.data());
      }
    }
  }

 private:
  template <class Batch>
  void for_each_batch(std::int64_t first, std::int64_t end, Batch&& batch) {
    for (std::int64_t at = first; at < end; at += batch_keys_) batch(at, std::min(batch_keys_, end - at));
  }

  const unsigned char* key(std::int64_t k) const { return random_.data() + static_cast<std::size_t>(k) * key_bytes_; }

  // The bytes of keys first .. first + n - 1 into random_: the only place the sources and the
  // classes' generators differ.
  void fill_random(std::int64_t first, std::int64_t n) {
    if (params_.source == Source::strong) {
      if (csprng_) csprng_->fill(random_.data(), static_cast<std::size_t>(n) * key_bytes_);
      else fill_getrandom(random_.data(), static_cast<std::size_t>(n) * key_bytes_);
      return;
    }
    for (std::int64_t k = 0; k < n; ++k) {
      splitmix64_bytes(params_.seed, static_cast<std::uint64_t>(first + k), random_.data() + static_cast<std::size_t>(k) * key_bytes_,
                       key_bytes_);
    }
  }

  const Params& params_;
  std::size_t key_bytes_;
  std::int64_t batch_keys_;
  std::optional<Csprng> csprng_;
  std::vector<unsigned char> random_;
  std::vector<char> encoded_;
  const tuned::Base32Technique& base32_;
  std::string scratch_;
};

// Runs every chunk of keys with the model's workers: `make_work()` runs on each worker's thread
// and returns its `work(maker, first, end)`; the worker's KeyMaker is made there too.
template <class MakeWork>
ChunkRun run_chunks(const ChunkWorkers& workers, const Params& params, std::int64_t chunk, MakeWork&& make_work,
                    BusyLog* busy = nullptr) {
  const ChunkPlan plan(params.count, chunk);
  return workers.run(plan, [&] {
    return [&plan, maker = KeyMaker(params, chunk), work = make_work()](std::int64_t c) mutable {
      work(maker, plan.begin(c), plan.end(c));
    };
  }, busy);
}

// Kernels before 5.14 refuse MADV_POPULATE_WRITE (EINVAL); the writes then fault page by page.
void populate_for_writing(char* from, std::size_t bytes) {
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(from) & ~(page - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(from) + bytes;
  madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_WRITE);
}

}  // namespace

KeyArena::KeyArena(std::size_t capacity) : capacity_(capacity) {
  if (capacity_ == 0) return;
  void* mapping = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<char*>(mapping);
}

KeyArena::~KeyArena() {
  if (base_) munmap(base_, capacity_);
}

char* KeyArena::claim(std::size_t bytes) {
  if (bytes > capacity_ - used_) throw std::bad_alloc();
  char* start = base_ + used_;
  used_ += bytes;
  // One madvise faults a batch's pages in: about 0.44 s of kernel time for 1.6 GB here, against
  // about 0.69 s when each first write to a page takes its own fault.
  if (bytes > 0) populate_for_writing(start, bytes);
  return start;
}

Generated generate(const ChunkWorkers& workers, const Params& params, std::int64_t chunk, BusyLog* busy) {
  Generated generated;
  generated.kernel = params.kernel;
  if (params.kernel == KernelClass::portable) {
    generated.strings.resize(static_cast<std::size_t>(params.count));
    generated.ran = run_chunks(workers, params, chunk, [&] {
      return [&generated](KeyMaker& maker, std::int64_t first, std::int64_t end) { maker.make_keys(first, end, generated, nullptr); };
    }, busy);
    return generated;
  }
  Keys& keys = generated.keys;
  keys.views.resize(static_cast<std::size_t>(params.count));
  // One arena per worker, reserved here (address space only) and handed out as workers start.
  const std::size_t worst_case = static_cast<std::size_t>(params.count) * base32_length(static_cast<std::size_t>(params.key_bytes));
  for (int w = 0; w < workers.workers(); ++w) keys.arenas.push_back(std::make_unique<KeyArena>(worst_case));
  std::atomic<std::size_t> next_arena{0};
  generated.ran = run_chunks(workers, params, chunk, [&] {
    KeyArena& arena = *keys.arenas[next_arena.fetch_add(1)];
    return [&arena, &generated](KeyMaker& maker, std::int64_t first, std::int64_t end) {
      maker.make_keys(first, end, generated, &arena);
    };
  }, busy);
  return generated;
}

CeilingTimes time_ceiling(const ChunkWorkers& workers, const Params& params, std::int64_t chunk) {
  CeilingTimes times;
  times.csprng_ns = time_ns([&] {
    run_chunks(workers, params, chunk, [] {
      return [](KeyMaker& maker, std::int64_t first, std::int64_t end) { maker.random_only(first, end); };
    });
  });
  times.base32_ns = time_ns([&] {
    run_chunks(workers, params, chunk, [] {
      return [](KeyMaker& maker, std::int64_t first, std::int64_t end) { maker.encode_only(first, end); };
    });
  });
  return times;
}

std::string checksum(const Generated& generated) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < generated.size(); ++i) sum += fnv1a64(generated.key(i));
  return digest_hex(sum);
}

namespace {

const std::string PORTABLE_DETAIL = "reference, transliterated";
// The portable kernel's one library call: C++ has no standard CSPRNG.
const std::string PORTABLE_GENERATOR = "getrandom(2)";

std::string tuned_detail(const tuned::Base32Technique& base32) {
  return std::string(base32.detail) +
         " written into per-worker mmap arenas (pages populated per batch), a std::vector<std::string_view> of keys";
}

const std::string TUNED_GENERATOR = "OpenSSL CTR-DRBG (AES-256) per worker, seeded from getrandom";

// --list's Base32 techniques: name = what it is.
std::string base32_listed() {
  std::string listed;
  for (const tuned::Base32Technique& technique : tuned::base32_techniques()) {
    listed += std::string(listed.empty() ? "" : ", ") + technique.name + " = " + technique.detail;
  }
  return listed;
}

}  // namespace

std::string kernel_detail(const Params& params) {
  const bool seeded = params.source == Source::seeded;
  if (params.kernel == KernelClass::portable) return PORTABLE_DETAIL + ": " + (seeded ? "SplitMix64 bytes (seeded)" : PORTABLE_GENERATOR);
  return (seeded ? "SplitMix64 bytes (seeded)" : TUNED_GENERATOR) + " + " +
         tuned_detail(params.base32 ? *params.base32 : tuned::choose_base32({}));
}

WorkloadInfo describe() {
  const std::string rule = "chunks of min(1024, ceil(count/workers)) keys; ";
  const std::string keys = "per worker: random bytes ~1 MiB at a time (at most a chunk), then each key encoded; the kernel "
                           "class decides generator, encoder and store (extra.kernel_detail)";
  return {"keygen",
          {"count", "bytes", "source", "seed", "chunk", "kernel", "probes", "base32_kernel"},
          {{.name = "seq", .family = "seq", .note = "every chunk in order on the main thread; " + keys},
           {.name = "threads",
            .family = "threads",
            .workers = true,
            .note = "--workers std::threads; worker w takes chunk w, then claims chunks from an atomic counter; " + rule + keys,
            .start = THREADS_START},
           {.name = "openmp",
            .family = "data-parallel",
            .workers = true,
            .note = "#pragma omp for schedule(static,1) over chunks on libgomp's team; " + rule + keys,
            .start = OPENMP_START}},
          PORTABLE_DETAIL + ": " + PORTABLE_GENERATOR,
          TUNED_GENERATOR + " + " + tuned_detail(tuned::choose_base32({})) + " (the best Base32 this CPU runs: " +
              base32_listed() + "; --base32-kernel names one, one this CPU lacks is exit 2)"};
}

namespace {

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
  const ModelInfo& model = require_known_model(call, info);
  call.accept_only(model.workers ? std::vector<std::string>{"count", "bytes", "source", "seed", "chunk", "kernel", "probes", "base32_kernel",
                                                            "workers"}
                                 : std::vector<std::string>{"count", "bytes", "source", "seed", "chunk", "kernel", "probes", "base32_kernel"});
  const StartMode start = start_mode(call, model);
  Params params = read_params(call);
  params.kernel = kernel_class(call, info);
  // Chosen before the ready line: a Base32 this CPU lacks is exit 2 here, not a fallback.
  if (call.has("base32_kernel") && params.kernel != KernelClass::tuned) throw UsageError("--base32-kernel belongs to --kernel tuned");
  if (params.kernel == KernelClass::tuned) params.base32 = &tuned::choose_base32(call.text_or("base32_kernel", ""));
  const int worker_count = model.workers ? call.workers() : 1;
  const std::int64_t chunk = chosen_chunk(call, params.count, worker_count, CHUNK_CAP_KEYS);
  const std::vector<std::int64_t> probes = call.integer_list("probes");
  for (std::int64_t probe : probes) {
    if (probe >= params.count) throw UsageError("--probes are key indices 0.." + std::to_string(params.count - 1) + ", got " + std::to_string(probe));
  }
  ChunkWorkers workers(worker_kind_named(call.model), worker_count, start);

  // Repetition j's seed is its variant (seeded; strong ignores it).
  run_repetitions(call, workers.ready(), [&](std::uint64_t seed) {
    Params repetition_params = params;
    repetition_params.seed = seed;
    Generated generated;
    Repetition repetition;
    BusyLog busy(worker_count);
    time_region(repetition, [&] { generated = generate(workers, repetition_params, chunk, &busy); });
    if (model.workers) repetition.busy = busy.json(repetition.clock_start);
    repetition.items = static_cast<std::uint64_t>(params.count);
    std::vector<std::string> probed;
    // The probes are read with the checksum (in checksum_ns): both only read the result.
    time_checksum(repetition, [&] {
      for (std::int64_t probe : probes) probed.emplace_back(generated.key(static_cast<std::size_t>(probe)));
      return checksum(generated);
    });
    const ChunkRun ran = generated.ran;
    const CeilingTimes ceiling = time_ceiling(workers, repetition_params, chunk);
    // The keys are dropped after the checksum and the ceiling, as the spec says.
    repetition.cleanup_ns = static_cast<std::int64_t>(time_ns([&] { generated = Generated{}; }));
    report_chunks(repetition.extra, worker_count, ChunkPlan(params.count, chunk), ran);
    report_kernel(repetition.extra, params.kernel, kernel_detail(repetition_params));
    if (params.base32) repetition.extra.push_back({"base32_kernel", std::string(params.base32->name)});
    if (!probes.empty()) repetition.extra.push_back({"probes", RawJson{json_string_list(probed)}});
    repetition.extra.push_back({"ceiling", std::string("csprng+base32")});
    repetition.extra.push_back({"ceiling_ns", static_cast<std::int64_t>(ceiling.csprng_ns + ceiling.base32_ns)});
    repetition.extra.push_back({"csprng_ns", static_cast<std::int64_t>(ceiling.csprng_ns)});
    repetition.extra.push_back({"base32_ns", static_cast<std::int64_t>(ceiling.base32_ns)});
    // The process's page faults across `ns` (cpu_user_ns / cpu_sys_ns say where the time went).
    repetition.extra.push_back({"minor_faults", repetition.cpu.minor_faults});
    if (workers.kind() == WorkerKind::openmp) {
      repetition.extra.push_back({"omp_team", std::string("made before the ready line")});
      repetition.extra.push_back({"omp_wait_policy", openmp_wait_policy()});
    }
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace parbench::keygen
