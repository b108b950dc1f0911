// sdes-ecb: S-DES (Schaefer 1996) in ECB mode over a large text, bitwise and by table (seed 001).
#include "workloads/sdes_ecb.hpp"

#include <openssl/sha.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "digest.hpp"
#include "registry.hpp"
#include "workloads/sdes_cipher.hpp"
#include "workloads/sdes_ecb_tuned.hpp"

namespace parbench::sdes_ecb {

namespace {

using cipher::P10;
using cipher::P8;
using cipher::permute;
using cipher::rotate5;
using cipher::run_rounds;

// The portable bitwise kernel: the per-byte rounds, built for the compiler's default target.
void encrypt_bitwise(Subkeys keys, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = run_rounds(in[i], keys.k1, keys.k2);
}

// The portable table kernel: one lookup per byte.
void encrypt_table_scalar(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

}  // namespace

Subkeys derive_subkeys(unsigned key10) {
  const unsigned p10 = permute(key10 & 0x3ffu, 10, P10);
  unsigned left = rotate5(p10 >> 5, 1), right = rotate5(p10 & 31u, 1);
  const unsigned k1 = permute((left << 5) | right, 10, P8);
  left = rotate5(left, 2);
  right = rotate5(right, 2);
  const unsigned k2 = permute((left << 5) | right, 10, P8);
  return {static_cast<std::uint8_t>(k1), static_cast<std::uint8_t>(k2)};
}

std::uint8_t encrypt_byte(std::uint8_t plain, Subkeys keys) { return run_rounds(plain, keys.k1, keys.k2); }

std::uint8_t decrypt_byte(std::uint8_t cipher, Subkeys keys) { return run_rounds(cipher, keys.k2, keys.k1); }

std::array<std::uint8_t, 256> derive_table(unsigned key10) {
  const Subkeys keys = derive_subkeys(key10);
  std::array<std::uint8_t, 256> table{};
  for (unsigned b = 0; b < 256; ++b) table[b] = encrypt_byte(static_cast<std::uint8_t>(b), keys);
  return table;
}

CipherState make_cipher(Cipher cipher, unsigned key10, KernelClass kernel, std::size_t buffer_bytes) {
  return {cipher, kernel, derive_subkeys(key10), derive_table(key10),
          tuned::has_streaming_stores() && kernel == KernelClass::tuned && cipher == Cipher::table &&
              buffer_bytes >= STREAMING_FROM_BYTES};
}

namespace {

const std::string BITWISE_DETAIL =
    "per-byte permutations (masks and shifts) and Feistel rounds in a plain loop, S-boxes as packed 32-bit constants";
const std::string PORTABLE_BITWISE_DETAIL = BITWISE_DETAIL + ", built for the compiler's default target (" PARBENCH_CXX_PORTABLE_FLAGS ")";
const std::string PORTABLE_TABLE_DETAIL = "256-byte table of the key, one lookup per byte, plain loop";

std::string tuned_bitwise_detail() {
  return "the portable per-byte rounds built with " PARBENCH_CXX_TUNED_FLAGS ": g++ vectorises the loop by itself (" +
         std::string(tuned::bitwise_isa()) + ")";
}

std::string tuned_table_detail() {
  const std::string kernel = tuned::table_kernel_name();
  if (kernel == "avx512vbmi") {
    return "AVX-512 VBMI: the 256-byte table in four zmm, two vpermi2b and a blend per 64 bytes; streaming stores from 32 MiB";
  }
  if (kernel == "avx2") return "AVX2: sixteen pshufb nibble tables per 32 bytes";
  return "scalar table loop (this build has neither AVX-512 VBMI nor AVX2)";
}

}  // namespace

std::string kernel_detail(const CipherState& state) {
  if (state.cipher == Cipher::bitwise) {
    return state.kernel == KernelClass::tuned ? tuned_bitwise_detail() : PORTABLE_BITWISE_DETAIL;
  }
  if (state.kernel == KernelClass::portable) return PORTABLE_TABLE_DETAIL;
  return tuned_table_detail() + (state.streaming_stores ? " (streaming stores on)" : "");
}

const char* table_kernel_name() { return tuned::table_kernel_name(); }
const char* stream_copy_kernel_name() { return tuned::stream_copy_kernel_name(); }

void encrypt_span(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  const bool tuned = state.kernel == KernelClass::tuned;
  if (state.cipher == Cipher::bitwise && tuned) tuned::encrypt_bitwise(state.subkeys.k1, state.subkeys.k2, in, out, n);
  else if (state.cipher == Cipher::bitwise) encrypt_bitwise(state.subkeys, in, out, n);
  else if (tuned) tuned::encrypt_table(state.table.data(), in, out, n, state.streaming_stores);
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

ChunkRun run_model(Model model, const SpanKernel& kernel, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                   std::size_t chunk, int workers, BusyLog* busy) {
  if (model == Model::seq) {
    const std::uint64_t start = monotonic_ns();
    kernel(in, out, n);
    if (busy) busy->span(0, start, monotonic_ns());
    return {n > 0 ? 1 : 0, 1};
  }
  const ChunkPlan plan(static_cast<std::int64_t>(n), static_cast<std::int64_t>(chunk));
  auto make_worker = [&] {
    return [&](std::int64_t c) {
      const auto begin = static_cast<std::size_t>(plan.begin(c));
      kernel(in + begin, out + begin, static_cast<std::size_t>(plan.end(c)) - begin);
    };
  };
  return model == Model::threads ? run_chunks_on_threads(plan, workers, make_worker, busy)
                                 : run_chunks_openmp(plan, workers, make_worker, busy);
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
          {"input", "key", "cipher", "chunk", "kernel"},
          {{"seq", "seq", false, "one call over the whole buffer on the main thread (--chunk accepted, ignored)" + ceiling},
           {"threads", "threads", true,
            "--workers std::jthreads started and joined per repetition; worker w takes chunk w, then claims chunks from an "
            "atomic counter; chunk min(1 MiB, ceil(size/workers))" + ceiling},
           {"openmp", "data-parallel", true,
            "#pragma omp for schedule(static,1) over chunks of min(1 MiB, ceil(size/workers)); the team is started by the "
            "region and ended by omp_pause_resource_all(omp_pause_hard) in every repetition" + ceiling}},
          "bitwise: " + PORTABLE_BITWISE_DETAIL + "; table: " + PORTABLE_TABLE_DETAIL,
          "bitwise: " + tuned_bitwise_detail() + "; table: " + tuned_table_detail()};
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

Model model_named(const std::string& name) {
  if (name == "seq") return Model::seq;
  return name == "threads" ? Model::threads : Model::openmp;
}

void report_kernels(Extra& extra, Model model, const CipherState& cipher) {
  report_kernel(extra, cipher.kernel, kernel_detail(cipher));
  if (cipher.cipher == Cipher::table) {
    extra.push_back({"table_kernel", std::string(cipher.kernel == KernelClass::tuned ? tuned::table_kernel_name() : "scalar")});
    extra.push_back({"streaming_stores", std::int64_t{cipher.streaming_stores}});
  }
  extra.push_back({"ceiling_kernel", std::string("non-temporal ") + tuned::stream_copy_kernel_name()});
  if (model == Model::openmp) {
    extra.push_back({"omp_team", std::string("per repetition")});
    extra.push_back({"omp_wait_policy", openmp_wait_policy()});
  }
}

}  // namespace

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  require_known_model(call, info);
  const Model model = model_named(call.model);
  const bool parallel = model != Model::seq;
  call.accept_only(parallel ? std::vector<std::string>{"input", "key", "cipher", "chunk", "kernel", "workers"}
                            : std::vector<std::string>{"input", "key", "cipher", "chunk", "kernel"});
  const KernelClass kernel = kernel_class(call, info);
  const std::string cipher_name = call.text("cipher");
  if (cipher_name != "bitwise" && cipher_name != "table") {
    throw UsageError("--cipher must be bitwise or table, got '" + cipher_name + "'");
  }
  const Cipher cipher_kind = cipher_name == "bitwise" ? Cipher::bitwise : Cipher::table;
  const std::int64_t base_key = call.integer("key");
  for (std::int64_t key : call.variants) {
    if (key > 1023) throw UsageError("--variants are sdes-ecb keys: 10 bits (0..1023), got " + std::to_string(key));
  }
  if (base_key < 0 || base_key > 1023) throw UsageError("--key must be a 10-bit key (0..1023)");

  std::vector<std::uint8_t> plaintext;
  const std::uint64_t load_ns = time_ns([&] { plaintext = load_file(call.text("input")); });
  const std::size_t n = plaintext.size();
  // Written once here so page faults on the output stay out of every timed region; every
  // repetition (and its ceiling) writes into this same buffer.
  std::vector<std::uint8_t> ciphertext(n, 0);

  const int workers = parallel ? call.workers() : 1;
  const std::int64_t chunk = parallel ? chosen_chunk(call, static_cast<std::int64_t>(n), workers, CHUNK_CAP_BYTES)
                                      : std::max<std::int64_t>(1, static_cast<std::int64_t>(n));
  auto run_with = [&](const SpanKernel& span_kernel, BusyLog* busy) {
    return run_model(model, span_kernel, plaintext.data(), ciphertext.data(), n, static_cast<std::size_t>(chunk), workers,
                     busy);
  };

  // Repetition j encrypts under key variants[j] (--key without --variants).
  run_repetitions(call, base_key, [&](std::int64_t key) {
    Repetition repetition;
    ChunkRun ran;
    CipherState cipher;
    BusyLog busy(workers);
    time_region(repetition, [&] {
      cipher = make_cipher(cipher_kind, static_cast<unsigned>(key), kernel, n);
      ran = run_with(encrypting(cipher), &busy);
    });
    if (parallel) repetition.busy = busy.json(repetition.clock_start);
    // The output was faulted in before the first repetition: what is left is thread stacks.
    const std::int64_t minor_faults = repetition.cpu.minor_faults;
    repetition.items = n;
    time_checksum(repetition, [&] { return sha256_hex(ciphertext.data(), n); });
    const std::uint64_t ceiling_ns = time_ns([&] { run_with(streaming_copy(), nullptr); });
    const std::uint64_t memcpy_ns = time_ns([&] { run_with(glibc_memcpy(), nullptr); });
    report_chunks(repetition.extra, workers, ChunkPlan(static_cast<std::int64_t>(n), chunk), ran);
    repetition.extra.push_back({"load_ns", static_cast<std::int64_t>(load_ns)});
    repetition.extra.push_back({"minor_faults", minor_faults});
    repetition.extra.push_back({"ceiling", std::string("copy")});
    repetition.extra.push_back({"ceiling_ns", static_cast<std::int64_t>(ceiling_ns)});
    repetition.extra.push_back({"baseline_memcpy_ns", static_cast<std::int64_t>(memcpy_ns)});
    report_kernels(repetition.extra, model, cipher);
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace parbench::sdes_ecb
