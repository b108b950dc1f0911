// sdes-ecb: S-DES (Schaefer 1996) in ECB mode over a large text, bitwise and by table (seed 001).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "protocol.hpp"

namespace parbench::sdes_ecb {

struct Subkeys {
  std::uint8_t k1;
  std::uint8_t k2;
};

Subkeys derive_subkeys(unsigned key10);
std::uint8_t encrypt_byte(std::uint8_t plain, Subkeys keys);
std::uint8_t decrypt_byte(std::uint8_t cipher, Subkeys keys);
std::array<std::uint8_t, 256> derive_table(unsigned key10);

enum class Cipher { bitwise, table, copy };

// What a kernel needs to turn one span of plaintext into ciphertext.
struct CipherState {
  Cipher cipher;
  Subkeys subkeys;
  std::array<std::uint8_t, 256> table;
  bool streaming_stores;  // table kernel writes around the caches (buffers of STREAMING_FROM_BYTES and up)
};

// Past the 32 MiB L3 of the development machine: in and out no longer fit, so caching the
// output only costs its read-for-ownership.
constexpr std::size_t STREAMING_FROM_BYTES = std::size_t{32} << 20;

CipherState make_cipher(Cipher cipher, unsigned key10, std::size_t buffer_bytes = 0);

// The SIMD form the table kernel was compiled with (-march decides): avx512vbmi, avx2 or scalar.
const char* table_kernel_name();

void encrypt_span(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n);

// Models: the whole buffer by one thread, or by chunks of `chunk` bytes over `workers` threads.
void encrypt_seq(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n);
void encrypt_threads(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                     std::size_t chunk, int workers);
void encrypt_openmp(const CipherState& state, const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                    std::size_t chunk, int workers);

std::string sha256_hex(const std::uint8_t* bytes, std::size_t n);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::sdes_ecb
