// sdes-ecb: S-DES (Schaefer 1996) in ECB mode over a large text, bitwise and by table (seed 001).
#include "workloads/sdes_ecb.hpp"

#include <openssl/sha.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "digest.hpp"
#include "registry.hpp"
#include "workloads/sdes_ecb/tuned.hpp"

namespace parbench::sdes_ecb {

namespace {

// The portable bitwise kernel: the reference rounds per byte, built for the compiler's default target.
void encrypt_bitwise(Subkeys keys, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = reference::encrypt_byte(keys.k1, keys.k2, in[i]);
}

// The portable table kernel: one lookup per byte.
void encrypt_table_scalar(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

std::array<std::uint8_t, 256> table_of(Subkeys keys) {
  std::array<std::uint8_t, 256> table{};
  for (unsigned b = 0; b < 256; ++b) table[b] = reference::encrypt_byte(keys.k1, keys.k2, b);
  return table;
}

}  // namespace

Subkeys derive_subkeys(unsigned key10) { return reference::subkeys(key10 & 0x3ffu); }

std::uint8_t encrypt_byte(std::uint8_t plain, Subkeys keys) { return reference::encrypt_byte(keys.k1, keys.k2, plain); }

std::uint8_t decrypt_byte(std::uint8_t cipher, Subkeys keys) { return reference::encrypt_byte(keys.k2, keys.k1, cipher); }

std::array<std::uint8_t, 256> derive_table(unsigned key10) { return table_of(derive_subkeys(key10)); }

namespace {

// The names of the techniques this CPU runs, best first.
template <class Technique>
std::string runs_here_of(const std::vector<Technique>& techniques) {
  std::string names;
  for (const Technique& technique : techniques) {
    if (technique.available()) names += (names.empty() ? "" : ", ") + std::string(technique.name);
  }
  return names;
}

}  // namespace

template <class Technique>
const Technique& choose_technique(const std::vector<Technique>& techniques, std::string_view asked, const std::string& flag) {
  std::string runs_here, all;
  for (const Technique& technique : techniques) {
    const bool runs = technique.available();
    if (asked.empty() && runs) return technique;
    if (technique.name == asked && runs) return technique;
    if (technique.name == asked) {
      throw UsageError("--" + flag + " " + std::string(asked) + " needs " + technique.needs + ", which this CPU lacks; it runs: " +
                       runs_here_of(techniques));
    }
    all += (all.empty() ? "" : ", ") + std::string(technique.name);
  }
  throw UsageError("unknown --" + flag + " '" + std::string(asked) + "'; valid: " + all + " (this CPU runs: " +
                   runs_here_of(techniques) + ")");
}
template const tuned::BitwiseTechnique& choose_technique(const std::vector<tuned::BitwiseTechnique>&, std::string_view,
                                                         const std::string&);
template const tuned::TableTechnique& choose_technique(const std::vector<tuned::TableTechnique>&, std::string_view,
                                                       const std::string&);

CipherState make_cipher(Cipher cipher, unsigned key10, KernelClass kernel, std::size_t buffer_bytes, std::string_view technique) {
  const Subkeys keys = derive_subkeys(key10);
  const bool table = cipher == Cipher::table;
  CipherState state{cipher, kernel, keys, table ? table_of(keys) : std::array<std::uint8_t, 256>{}};
  if (kernel != KernelClass::tuned) return state;
  bool streams = false;
  if (table) {
    state.table_technique = &choose_technique(tuned::table_techniques(), technique, "table-kernel");
    streams = state.table_technique->streams;
  } else {
    state.bitwise = &choose_technique(tuned::bitwise_techniques(), technique, "bitwise-kernel");
    streams = state.bitwise->streams;
  }
  state.streaming_stores = streams && buffer_bytes >= STREAMING_FROM_BYTES;
  return state;
}

namespace {

// Both ciphers' portable kernel, as docs/protocol.md names it.
const std::string PORTABLE_DETAIL = "reference, transliterated";

// --list's tuned entry: every technique of both ciphers, the one this CPU runs first marked.
template <class Technique>
std::string techniques_listed(const std::vector<Technique>& techniques) {
  std::string listed;
  const Technique& best = choose_technique(techniques, {}, "");
  for (const Technique& technique : techniques) {
    listed += std::string(listed.empty() ? "" : "; ") + technique.name + (&technique == &best ? " (runs here by default)" : "") +
              " = " + technique.detail;
  }
  return listed;
}

}  // namespace

std::string kernel_detail(const CipherState& state) {
  if (state.kernel == KernelClass::portable) return PORTABLE_DETAIL;
  const std::string detail = state.bitwise ? state.bitwise->detail : state.table_technique->detail;
  return detail + (state.streaming_stores ? " (streaming stores on)" : "");
}

const char* stream_copy_kernel_name() { return tuned::stream_copy_kernel_name(); }

void encrypt_span(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  if (state.bitwise) state.bitwise->kernel(state.subkeys.k1, state.subkeys.k2, in, out, n, state.streaming_stores);
  else if (state.table_technique) state.table_technique->kernel(state.table.data(), in, out, n, state.streaming_stores);
  else if (state.cipher == Cipher::bitwise) encrypt_bitwise(state.subkeys, in, out, n);
  else encrypt_table_scalar(state.table.data(), in, out, n);
}

SpanKernel encrypting(const CipherState& state) {
  return [&state](const std::uint8_t* in, std::uint8_t* out, std::size_t n) { encrypt_span(state, in, out, n); };
}

void stream_copy_span(const std::uint8_t* in, std::uint8_t* out, std::size_t n) { tuned::stream_copy(in, out, n); }

SpanKernel streaming_copy() { return stream_copy_span; }

SpanKernel glibc_memcpy() {
  return [](const std::uint8_t* in, std::uint8_t* out, std::size_t n) { std::memcpy(out, in, n); };
}

ChunkRun run_model(const ChunkWorkers& workers, const SpanKernel& kernel, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                   std::size_t chunk, BusyLog* busy) {
  if (workers.kind() == WorkerKind::calling_thread) {
    const std::uint64_t start = monotonic_ns();
    kernel(in, out, n);
    if (busy) busy->span(0, start, monotonic_ns());
    return {n > 0 ? 1 : 0, 1};
  }
  const ChunkPlan plan(static_cast<std::int64_t>(n), static_cast<std::int64_t>(chunk));
  return workers.run(plan, [&] {
    return [&](std::int64_t c) {
      const auto begin = static_cast<std::size_t>(plan.begin(c));
      kernel(in + begin, out + begin, static_cast<std::size_t>(plan.end(c)) - begin);
    };
  }, busy);
}

std::string sha256_hex(const std::uint8_t* bytes, std::size_t n) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(bytes, n, digest);
  return to_hex(digest, sizeof digest);
}

WorkloadInfo describe() {
  const std::string ceiling =
      "; extra.ceiling_ns = the same chunks copied by the same model with non-temporal stores, "
      "extra.baseline_memcpy_ns = with glibc memcpy";
  return {"sdes-ecb",
          {"input", "key", "cipher", "chunk", "kernel", "bitwise_kernel", "table_kernel"},
          {{.name = "seq", .family = "seq", .note = "one call over the whole buffer on the main thread (--chunk accepted, ignored)" + ceiling},
           {.name = "threads",
            .family = "threads",
            .workers = true,
            .note = "--workers std::threads; worker w takes chunk w, then claims chunks from an atomic counter; chunk "
                    "min(1 MiB, ceil(size/workers))" + ceiling,
            .start = THREADS_START},
           {.name = "openmp",
            .family = "data-parallel",
            .workers = true,
            .note = "#pragma omp for schedule(static,1) over chunks of min(1 MiB, ceil(size/workers)) on libgomp's team" + ceiling,
            .start = OPENMP_START}},
          PORTABLE_DETAIL,
          "the best technique this CPU runs, chosen when it runs (--bitwise-kernel / --table-kernel name one; one this CPU "
          "lacks is exit 2). bitwise: " + techniques_listed(tuned::bitwise_techniques()) +
              ". table: " + techniques_listed(tuned::table_techniques())};
}

namespace {

std::vector<std::uint8_t> load_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw UsageError("--input: cannot open '" + path + "'");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(file.tellg()));
  file.seekg(0);
  file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw UsageError("--input: cannot read '" + path + "'");
  return bytes;
}

}  // namespace

namespace {

void report_kernels(Extra& extra, const ChunkWorkers& workers, const CipherState& cipher) {
  report_kernel(extra, cipher.kernel, kernel_detail(cipher));
  if (cipher.bitwise) extra.push_back({"bitwise_kernel", std::string(cipher.bitwise->name)});
  if (cipher.cipher == Cipher::table) {
    extra.push_back({"table_kernel", std::string(cipher.table_technique ? cipher.table_technique->name : "scalar")});
  }
  if (cipher.kernel == KernelClass::tuned) extra.push_back({"streaming_stores", std::int64_t{cipher.streaming_stores}});
  extra.push_back({"ceiling_kernel", std::string("non-temporal ") + tuned::stream_copy_kernel_name()});
  if (workers.kind() == WorkerKind::openmp) {
    extra.push_back({"omp_team", std::string("made before the ready line")});
    extra.push_back({"omp_wait_policy", openmp_wait_policy()});
  }
}

}  // namespace

namespace {

// --bitwise-kernel / --table-kernel, checked before the ready line: each belongs to its cipher's
// tuned kernel, and a technique this CPU cannot run is exit 2 here, not a fallback.
std::string chosen_technique(const Invocation& call, KernelClass kernel, const std::string& cipher) {
  const std::string other = cipher == "bitwise" ? "table" : "bitwise";
  if (call.has(other + "_kernel")) throw UsageError("--" + other + "-kernel belongs to --cipher " + other);
  if (!call.has(cipher + "_kernel")) {
    // The variable Rust, Go, Java and Node read too, so that one run of the harness can force a
    // path in every runtime (the flags stay for a call by hand). It names a technique of the
    // call's cipher and only a tuned kernel has techniques; one that cannot run here is exit 2.
    const char* forced = std::getenv("PARBENCH_SDES_TECHNIQUE");
    if (forced == nullptr || *forced == '\0' || kernel != KernelClass::tuned) return {};
    try {
      make_cipher(cipher == "bitwise" ? Cipher::bitwise : Cipher::table, 0, kernel, 0, forced);
    } catch (const UsageError& refused) {
      throw UsageError(std::string("PARBENCH_SDES_TECHNIQUE=") + forced + ": " + refused.what());
    }
    return forced;
  }
  const std::string flag = cipher + "-kernel";
  if (kernel != KernelClass::tuned) throw UsageError("--" + flag + " belongs to --kernel tuned");
  const std::string technique = call.text(cipher + "_kernel");
  if (technique.empty()) throw UsageError("--" + flag + " needs a technique's name");
  make_cipher(cipher == "bitwise" ? Cipher::bitwise : Cipher::table, 0, kernel, 0, technique);
  return technique;
}

}  // namespace

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  const ModelInfo& model = require_known_model(call, info);
  std::vector<std::string> accepted{"input", "key", "cipher", "chunk", "kernel", "bitwise_kernel", "table_kernel"};
  if (model.workers) accepted.push_back("workers");
  call.accept_only(accepted);
  const StartMode start = start_mode(call, model);
  const KernelClass kernel = kernel_class(call, info);
  const std::string cipher_name = call.text("cipher");
  if (cipher_name != "bitwise" && cipher_name != "table") {
    throw UsageError("--cipher must be bitwise or table, got '" + cipher_name + "'");
  }
  const Cipher cipher_kind = cipher_name == "bitwise" ? Cipher::bitwise : Cipher::table;
  const std::int64_t base_key = call.integer("key");
  if (base_key < 0 || base_key > 1023) throw UsageError("--key must be a 10-bit key (0..1023)");
  const std::string technique = chosen_technique(call, kernel, cipher_name);

  std::vector<std::uint8_t> plaintext;
  const std::uint64_t load_ns = time_ns([&] { plaintext = load_file(call.text("input")); });
  const std::size_t n = plaintext.size();
  // Written once here so page faults on the output stay out of every timed region; every
  // repetition (and its ceiling) writes into this same buffer.
  std::vector<std::uint8_t> ciphertext(n, 0);

  const int worker_count = model.workers ? call.workers() : 1;
  const std::int64_t chunk = model.workers ? chosen_chunk(call, static_cast<std::int64_t>(n), worker_count, CHUNK_CAP_BYTES)
                                           : std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
  ChunkWorkers workers(worker_kind_named(call.model), worker_count, start);
  auto run_with = [&](const SpanKernel& span_kernel, BusyLog* busy) {
    return run_model(workers, span_kernel, plaintext.data(), ciphertext.data(), n, static_cast<std::size_t>(chunk), busy);
  };

  // Repetition j encrypts under its variant, the key the launcher sends.
  run_repetitions(call, workers.ready(), [&](std::uint64_t key) {
    if (key > 1023) throw UsageError("an sdes-ecb variant is a 10-bit key (0..1023), got " + std::to_string(key));
    Repetition repetition;
    ChunkRun ran;
    CipherState cipher;
    BusyLog busy(worker_count);
    time_region(repetition, [&] {
      cipher = make_cipher(cipher_kind, static_cast<unsigned>(key), kernel, n, technique);
      ran = run_with(encrypting(cipher), &busy);
    });
    if (model.workers) repetition.busy = busy.json(repetition.clock_start);
    // The output was faulted in before the first repetition: what is left is thread stacks.
    const std::int64_t minor_faults = repetition.cpu.minor_faults;
    repetition.items = n;
    time_checksum(repetition, [&] { return sha256_hex(ciphertext.data(), n); });
    const std::uint64_t ceiling_ns = time_ns([&] { run_with(streaming_copy(), nullptr); });
    const std::uint64_t memcpy_ns = time_ns([&] { run_with(glibc_memcpy(), nullptr); });
    report_chunks(repetition.extra, worker_count, ChunkPlan(static_cast<std::int64_t>(n), chunk), ran);
    repetition.extra.push_back({"load_ns", static_cast<std::int64_t>(load_ns)});
    repetition.extra.push_back({"minor_faults", minor_faults});
    repetition.extra.push_back({"ceiling", std::string("copy")});
    repetition.extra.push_back({"ceiling_ns", static_cast<std::int64_t>(ceiling_ns)});
    repetition.extra.push_back({"baseline_memcpy_ns", static_cast<std::int64_t>(memcpy_ns)});
    report_kernels(repetition.extra, workers, cipher);
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace parbench::sdes_ecb
