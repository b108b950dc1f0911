// sdes-ecb: S-DES (Schaefer 1996) in ECB mode over a large text, bitwise and by table (seed 001).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "chunking.hpp"
#include "protocol.hpp"
#include "workloads/sdes_ecb/portable.hpp"
#include "workloads/sdes_ecb/tuned.hpp"

namespace parbench::sdes_ecb {

using reference::Subkeys;

// The reference procedure's key schedule and rounds (sdes_ecb/portable.hpp), for one key or one byte.
Subkeys derive_subkeys(unsigned key10);
std::uint8_t encrypt_byte(std::uint8_t plain, Subkeys keys);
std::uint8_t decrypt_byte(std::uint8_t cipher, Subkeys keys);
std::array<std::uint8_t, 256> derive_table(unsigned key10);

enum class Cipher { bitwise, table };

// What a kernel needs to turn one span of plaintext into ciphertext: the key schedule, and for the
// tuned class the technique that computes it. portable = the reference procedure's rounds per
// byte, or its table looked up per byte, in plain loops built for the compiler's default target;
// tuned = the best technique this CPU runs (sdes_ecb/tuned.hpp), or the one --bitwise-kernel /
// --table-kernel names.
struct CipherState {
  Cipher cipher;
  KernelClass kernel;
  Subkeys subkeys;
  std::array<std::uint8_t, 256> table;  // `table` only: the reference derives it for that cipher alone
  const tuned::BitwiseTechnique* bitwise = nullptr;  // tuned bitwise only
  const tuned::TableTechnique* table_technique = nullptr;  // tuned table only
  bool streaming_stores = false;  // the tuned technique writes around the caches (buffers of STREAMING_FROM_BYTES and up)
};

// As Rust's kernels do: from here the output no longer stays in a core's 1 MiB of L2 until the next
// repetition, and streaming stores skip reading each output line before writing it. On the
// 2-core development machine at 16 MiB (seq, 40 repetitions each, alternating): table 0.91 ms
// streaming against 1.22 ms with the former 32 MiB threshold; GFNI bitwise 1.33 and 1.28 ms, the
// same within its noise.
constexpr std::size_t STREAMING_FROM_BYTES = std::size_t{4} << 20;

// The technique `asked` names among `techniques` (--<flag>), or the best this CPU runs where it is
// empty; exit 2 (UsageError) for a name that is not one, or one this CPU cannot run: never a
// silent fallback to another.
template <class Technique>
const Technique& choose_technique(const std::vector<Technique>& techniques, std::string_view asked, const std::string& flag);

// The key schedule: subkeys, and for `table` the 256-byte table of the key; for tuned, the
// technique (see choose_technique).
CipherState make_cipher(Cipher cipher, unsigned key10, KernelClass kernel = KernelClass::portable,
                        std::size_t buffer_bytes = 0, std::string_view technique = {});
// extra.kernel_detail: what ran for this cipher and class.
std::string kernel_detail(const CipherState& state);

// The widest non-temporal store the copy ceiling uses here: avx512, avx2 or sse2.
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
