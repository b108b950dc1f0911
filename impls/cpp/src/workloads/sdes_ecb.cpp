// sdes-ecb: S-DES (Schaefer 1996) in ECB mode over a large text, bitwise and by table (seed 001).
#include "workloads/sdes_ecb.hpp"

#include <immintrin.h>
#include <openssl/sha.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "digest.hpp"
#include "registry.hpp"

namespace parbench::sdes_ecb {

namespace {

// Permutation tables, 1-based, bit 1 = most significant, as the spec (Stallings) writes them.
constexpr int P10[] = {3, 5, 2, 7, 4, 10, 1, 9, 8, 6};
constexpr int P8[] = {6, 3, 7, 4, 8, 5, 10, 9};
constexpr int IP[] = {2, 6, 3, 1, 4, 8, 5, 7};
constexpr int IP_INVERSE[] = {4, 1, 3, 5, 7, 2, 8, 6};
constexpr int EXPAND_PERMUTE[] = {4, 1, 2, 3, 2, 3, 4, 1};
constexpr int P4[] = {2, 4, 3, 1};
constexpr std::uint8_t S0[4][4] = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}};
constexpr std::uint8_t S1[4][4] = {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}};

template <std::size_t N>
constexpr unsigned permute(unsigned value, int input_width, const int (&positions)[N]) {
  unsigned out = 0;
  for (int position : positions) out = (out << 1) | ((value >> (input_width - position)) & 1u);
  return out;
}

constexpr unsigned rotate5(unsigned half, int by) { return ((half << by) | (half >> (5 - by))) & 31u; }

// Each S-box packed into one constant, entry (row, column) in the 2 bits at 2 * (4 * row + column),
// so that a lookup is a shift of a register. Looked up in the 2-D byte array above, it is a load
// per nibble that g++ cannot vectorise ("not suitable for gather load": x86 has no byte gather),
// so the whole per-byte loop stayed scalar; with the shift, g++ vectorises it by itself (variable
// shifts, 64 bytes a step with AVX-512). docs/runtimes/cpp.md has the evidence and the figures.
constexpr std::uint32_t pack_sbox(const std::uint8_t (&box)[4][4]) {
  std::uint32_t packed = 0;
  for (unsigned row = 0; row < 4; ++row) {
    for (unsigned column = 0; column < 4; ++column) packed |= std::uint32_t{box[row][column]} << (2 * (4 * row + column));
  }
  return packed;
}
constexpr std::uint32_t S0_PACKED = pack_sbox(S0);
constexpr std::uint32_t S1_PACKED = pack_sbox(S1);

// Row from bits 1 and 4, column from bits 2 and 3 of the 4-bit input.
constexpr unsigned sbox(std::uint32_t packed, unsigned nibble) {
  const unsigned row = ((nibble >> 2) & 2u) | (nibble & 1u), column = (nibble >> 1) & 3u;
  return (packed >> (2 * (4 * row + column))) & 3u;
}

constexpr unsigned f_k(unsigned block, unsigned subkey) {
  const unsigned left = block >> 4, right = block & 15u;
  const unsigned mixed = permute(right, 4, EXPAND_PERMUTE) ^ subkey;
  const unsigned substituted = (sbox(S0_PACKED, mixed >> 4) << 2) | sbox(S1_PACKED, mixed & 15u);
  return ((left ^ permute(substituted, 4, P4)) << 4) | right;
}

constexpr unsigned swap_halves(unsigned block) { return ((block & 15u) << 4) | (block >> 4); }

// Always inlined (as Rust's encrypt_byte is, #[inline(always)]): with four callers g++ keeps it out
// of line, and a call per byte is a loop the vectoriser cannot touch.
[[gnu::always_inline]] inline std::uint8_t run_rounds(std::uint8_t block, unsigned first, unsigned second) {
  const unsigned after_first = f_k(permute(block, 8, IP), first);
  return static_cast<std::uint8_t>(permute(f_k(swap_halves(after_first), second), 8, IP_INVERSE));
}

void encrypt_bitwise(Subkeys keys, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = run_rounds(in[i], keys.k1, keys.k2);
}

// The portable table kernel (and the SIMD kernels' head and tail): one lookup per byte.
void encrypt_table_scalar(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
// The whole 256-byte table lives in four zmm registers: two 128-entry permutes and a blend on
// the top bit look up 64 bytes at a time, so the loop is bound by memory, not by lookups.
void encrypt_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                   bool streaming_stores) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  auto lookup = [&](const std::uint8_t* from) {
    const __m512i x = _mm512_loadu_si512(from);
    const __m512i low = _mm512_permutex2var_epi8(t0, x, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, x, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
  };
  std::size_t i = 0;
  if (streaming_stores) {
    // Buffers far larger than the caches: streaming stores skip the read-for-ownership of the
    // output (about a third of the memory traffic). They need a 64-byte aligned target.
    const std::size_t head = std::min<std::size_t>(n, (64 - reinterpret_cast<std::uintptr_t>(out) % 64) % 64);
    encrypt_table_scalar(table, in, out, head);
    for (i = head; i + 64 <= n; i += 64) _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), lookup(in + i));
    _mm_sfence();
  } else {
    for (; i + 64 <= n; i += 64) _mm512_storeu_si512(out + i, lookup(in + i));
  }
  encrypt_table_scalar(table, in + i, out + i, n - i);
}
constexpr const char* TABLE_KERNEL = "avx512vbmi";
constexpr bool HAS_STREAMING_STORES = true;
#elif defined(__AVX2__)
// Sixteen 16-entry pshufb tables, one per high nibble, selected by comparing the high nibble.
void encrypt_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  __m256i rows[16];
  for (int h = 0; h < 16; ++h) {
    rows[h] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * h)));
  }
  const __m256i low_mask = _mm256_set1_epi8(0x0f);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i low = _mm256_and_si256(x, low_mask);
    const __m256i high = _mm256_and_si256(_mm256_srli_epi16(x, 4), low_mask);
    __m256i result = _mm256_setzero_si256();
    for (int h = 0; h < 16; ++h) {
      const __m256i selected = _mm256_cmpeq_epi8(high, _mm256_set1_epi8(static_cast<char>(h)));
      result = _mm256_or_si256(result, _mm256_and_si256(selected, _mm256_shuffle_epi8(rows[h], low)));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), result);
  }
  encrypt_table_scalar(table, in + i, out + i, n - i);
}
constexpr const char* TABLE_KERNEL = "avx2";
constexpr bool HAS_STREAMING_STORES = false;
#else
void encrypt_table(const std::uint8_t* table, const std::uint8_t* in, std::uint8_t* out, std::size_t n, bool) {
  encrypt_table_scalar(table, in, out, n);
}
constexpr const char* TABLE_KERNEL = "scalar";
constexpr bool HAS_STREAMING_STORES = false;
#endif

// The copy ceiling: the widest non-temporal store the build has. Stores start at the first
// aligned address of `out` (they need one); the unaligned head and the tail go through memcpy.
#if defined(__AVX512F__)
using StreamVector = __m512i;
inline void stream_store(std::uint8_t* to, const std::uint8_t* from) {
  _mm512_stream_si512(reinterpret_cast<__m512i*>(to), _mm512_loadu_si512(from));
}
constexpr const char* STREAM_COPY_KERNEL = "avx512";
#elif defined(__AVX2__)
using StreamVector = __m256i;
inline void stream_store(std::uint8_t* to, const std::uint8_t* from) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(to), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from)));
}
constexpr const char* STREAM_COPY_KERNEL = "avx2";
#else
using StreamVector = __m128i;
inline void stream_store(std::uint8_t* to, const std::uint8_t* from) {
  _mm_stream_si128(reinterpret_cast<__m128i*>(to), _mm_loadu_si128(reinterpret_cast<const __m128i*>(from)));
}
constexpr const char* STREAM_COPY_KERNEL = "sse2";
#endif

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
          HAS_STREAMING_STORES && kernel == KernelClass::tuned && cipher == Cipher::table &&
              buffer_bytes >= STREAMING_FROM_BYTES};
}

namespace {

const std::string BITWISE_DETAIL =
    "per-byte permutations and Feistel rounds in plain loops, S-boxes as packed 32-bit constants (g++ vectorises the loop by itself)";
const std::string PORTABLE_TABLE_DETAIL = "256-byte table of the key, one lookup per byte, plain loop";

std::string tuned_table_detail() {
  const std::string kernel = TABLE_KERNEL;
  if (kernel == "avx512vbmi") {
    return "AVX-512 VBMI: the 256-byte table in four zmm, two vpermi2b and a blend per 64 bytes; streaming stores from 32 MiB";
  }
  if (kernel == "avx2") return "AVX2: sixteen pshufb nibble tables per 32 bytes";
  return "scalar table loop (this build has neither AVX-512 VBMI nor AVX2)";
}

}  // namespace

std::string kernel_detail(const CipherState& state) {
  if (state.cipher == Cipher::bitwise) {
    return state.kernel == KernelClass::tuned ? BITWISE_DETAIL + "; no tuned bitwise form, the same code as portable"
                                              : BITWISE_DETAIL;
  }
  if (state.kernel == KernelClass::portable) return PORTABLE_TABLE_DETAIL;
  return tuned_table_detail() + (state.streaming_stores ? " (streaming stores on)" : "");
}

const char* table_kernel_name() { return TABLE_KERNEL; }
const char* stream_copy_kernel_name() { return STREAM_COPY_KERNEL; }

void encrypt_span(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  if (state.cipher == Cipher::bitwise) encrypt_bitwise(state.subkeys, in, out, n);
  else if (state.kernel == KernelClass::portable) encrypt_table_scalar(state.table.data(), in, out, n);
  else encrypt_table(state.table.data(), in, out, n, state.streaming_stores);
}

SpanKernel encrypting(const CipherState& state) {
  return [&state](const std::uint8_t* in, std::uint8_t* out, std::size_t n) { encrypt_span(state, in, out, n); };
}

void stream_copy_span(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  constexpr std::size_t width = sizeof(StreamVector);
  const std::size_t head = std::min<std::size_t>(n, (width - reinterpret_cast<std::uintptr_t>(out) % width) % width);
  std::memcpy(out, in, head);
  std::size_t i = head;
  for (; i + width <= n; i += width) stream_store(out + i, in + i);
  _mm_sfence();
  std::memcpy(out + i, in + i, n - i);
}

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
          "bitwise: " + BITWISE_DETAIL + "; table: " + PORTABLE_TABLE_DETAIL,
          "table: " + tuned_table_detail() + "; bitwise: no tuned form, the portable per-byte rounds"};
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
    extra.push_back({"table_kernel", std::string(cipher.kernel == KernelClass::tuned ? TABLE_KERNEL : "scalar")});
    extra.push_back({"streaming_stores", std::int64_t{cipher.streaming_stores}});
  }
  extra.push_back({"ceiling_kernel", std::string("non-temporal ") + STREAM_COPY_KERNEL});
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
