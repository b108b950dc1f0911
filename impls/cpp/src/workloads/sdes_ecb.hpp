// sdes-ecb: S-DES (Schaefer 1996) in ECB mode over a large text, bitwise and by table (seed 001).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "chunking.hpp"
#include "protocol.hpp"
#include "workloads/sdes_ecb/portable.hpp"

namespace parbench::sdes_ecb {

using reference::Subkeys;

// The reference procedure's key schedule and rounds (sdes_ecb/portable.hpp), for one key or one byte.
Subkeys derive_subkeys(unsigned key10);
std::uint8_t encrypt_byte(std::uint8_t plain, Subkeys keys);
std::uint8_t decrypt_byte(std::uint8_t cipher, Subkeys keys);
std::array<std::uint8_t, 256> derive_table(unsigned key10);

enum class Cipher { bitwise, table };

// What a kernel needs to turn one span of plaintext into ciphertext: the key schedule.
// The kernel class decides how the span is computed: portable = the reference procedure's rounds
// per byte, or its table looked up per byte, in plain loops built for the compiler's default
// target; tuned = mask-and-shift rounds with packed S-boxes built for this machine (g++ vectorises
// them), or the table looked up with SIMD (sdes_ecb/tuned.hpp).
struct CipherState {
  Cipher cipher;
  KernelClass kernel;
  Subkeys subkeys;
  std::array<std::uint8_t, 256> table;  // `table` only: the reference derives it for that cipher alone
  bool streaming_stores;  // tuned table kernel writes around the caches (buffers of STREAMING_FROM_BYTES and up)
};

// Past the 32 MiB L3 of the development machine: in and out no longer fit, so caching the
// output only costs its read-for-ownership.
constexpr std::size_t STREAMING_FROM_BYTES = std::size_t{32} << 20;

// The key schedule: subkeys, and for `table` the 256-byte table of the key.
CipherState make_cipher(Cipher cipher, unsigned key10, KernelClass kernel = KernelClass::portable,
                        std::size_t buffer_bytes = 0);
// extra.kernel_detail: what ran for this cipher and class.
std::string kernel_detail(const CipherState& state);

// The SIMD form the tuned table kernel was built with (this machine's): avx512vbmi, avx2 or scalar.
const char* table_kernel_name();
// The widest non-temporal store the copy ceiling was compiled with: avx512, avx2 or sse2.
const char* stream_copy_kernel_name();

// What a model runs over each chunk: in[0..n) -> out[0..n).
using SpanKernel = std::function<void(const std::uint8_t* in, std::uint8_t* out, std::size_t n)>;

void encrypt_span(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n);
SpanKernel encrypting(const CipherState& state);
// The ceiling: a copy with non-temporal stores and an sfence (no read-for-ownership of `out`).
void stream_copy_span(const std::uint8_t* in, std::uint8_t* out, std::size_t n);
SpanKernel streaming_copy();
// The baseline beside it: glibc's memcpy (ordinary stores below its non-temporal threshold).
SpanKernel glibc_memcpy();

// Chunk size cap of the chunking rule: chunk = min(1 MiB, ceil(size / workers)).
constexpr std::int64_t CHUNK_CAP_BYTES = std::int64_t{1} << 20;

// seq (the calling thread): one call over the whole buffer. threads / openmp: `chunk`-byte chunks
// over the model's workers, made in the call (cold) or before (warm) (see chunking.hpp).
ChunkRun run_model(const ChunkWorkers& workers, const SpanKernel& kernel, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                   std::size_t chunk, BusyLog* busy = nullptr);

std::string sha256_hex(const std::uint8_t* bytes, std::size_t n);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::sdes_ecb
