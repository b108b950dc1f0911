//! The tuned S-DES kernels for x86-64 without AVX-512: the same code at two widths, AVX2 (32
//! bytes a step) and SSE4.1 (16), both built on `pshufb` (a 16-entry byte table looked up by
//! the low 4 bits of each index byte; an index with its top bit set gives 0).
//!
//! - bitwise: a bit permutation is linear over GF(2), so P(x) = P(low nibble) | P(high nibble
//!   << 4): every permutation of a whole byte (IP; IP⁻¹ with SW folded in) is two 16-entry
//!   tables looked up and OR'd. Each round reads R's nibble once: E/P with the subkey XORed in
//!   is one table of R, and S0 and S1, each through P4 into the nibble of L, one table each of
//!   their 4-bit input. The second round reads R from the high nibble and writes L into the low
//!   one, so SW is never applied on its own: 10 lookups per step, the cipher computed step by
//!   step for every byte (no table of the whole cipher, nor of a whole round).
//! - table: the key's 256-byte table is 16 rows of 16; each row is looked up by the low nibble,
//!   and a tree of 14 `pblendvb` on bits 4, 5 and 6 and an OR for bit 7 (`pshufb`'s zeroing)
//!   keeps the row the high nibble names.

use super::portable::{permute, sbox, EP, IP, IP_INV, P4, S0, S1};

/// The bitwise technique's per-key tables, each indexed by a nibble (see the module's docs).
struct NibbleTables {
    ip_low: [u8; 16],
    ip_high: [u8; 16],
    ep_k1: [u8; 16],
    s0_to_left: [u8; 16],
    s1_to_left: [u8; 16],
    ep_k2: [u8; 16],
    s0_to_right: [u8; 16],
    s1_to_right: [u8; 16],
    out_low: [u8; 16],
    out_high: [u8; 16],
}

fn of_nibble(entry: impl Fn(u16) -> u16) -> [u8; 16] {
    std::array::from_fn(|nibble| entry(nibble as u16) as u8)
}

/// The halves of a byte swapped (SW).
fn swapped(byte: u16) -> u16 {
    ((byte << 4) | (byte >> 4)) & 0xff
}

impl NibbleTables {
    fn of(k1: u8, k2: u8) -> NibbleTables {
        // P4 of an S-box's 2 bits at their place in P4's input (S0's bits 3–2, S1's 1–0).
        let s0_p4 = |input| permute(sbox(&S0, input) << 2, 4, &P4);
        let s1_p4 = |input| permute(sbox(&S1, input), 4, &P4);
        NibbleTables {
            ip_low: of_nibble(|n| permute(n, 8, &IP)),
            ip_high: of_nibble(|n| permute(n << 4, 8, &IP)),
            ep_k1: of_nibble(|r| permute(r, 4, &EP) ^ k1 as u16),
            s0_to_left: of_nibble(|a| s0_p4(a) << 4),
            s1_to_left: of_nibble(|b| s1_p4(b) << 4),
            ep_k2: of_nibble(|r| permute(r, 4, &EP) ^ k2 as u16),
            s0_to_right: of_nibble(s0_p4),
            s1_to_right: of_nibble(s1_p4),
            out_low: of_nibble(|n| permute(swapped(n), 8, &IP_INV)),
            out_high: of_nibble(|n| permute(swapped(n << 4), 8, &IP_INV)),
        }
    }
}

/// The kernels of one vector width: `$features` to compile them for, `$vector` and `$step`
/// (its bytes), and that width's intrinsics, which share their names up to the prefix.
macro_rules! nibble_kernels {
    ($module:ident, $features:literal, $vector:ty, $step:literal, lanes: $lanes:ident, load: $load:ident,
     store: $store:ident, stream: $stream:ident, and: $and:ident, or: $or:ident, xor: $xor:ident,
     srli: $srli:ident, slli: $slli:ident, shuffle: $shuffle:ident, blend: $blend:ident, splat: $splat:ident) => {
        pub mod $module {
            use std::arch::x86_64::*;

            use super::NibbleTables;

            /// 16 bytes in every 128-bit lane, as `pshufb` reads its table.
            #[inline]
            #[target_feature(enable = $features)]
            fn table(entries: &[u8; 16]) -> $vector {
                super::$lanes(entries)
            }

            /// `encrypt` over a part shorter than a step, through a buffer on the stack.
            #[inline]
            #[target_feature(enable = $features)]
            fn through_buffer(plain: &[u8], out: &mut [u8], encrypt: &impl Fn($vector) -> $vector) {
                if plain.is_empty() {
                    return;
                }
                let mut buffer = [0u8; $step];
                buffer[..plain.len()].copy_from_slice(plain);
                // SAFETY: one unaligned load and store of the step-sized buffer.
                unsafe { $store(buffer.as_mut_ptr() as *mut _, encrypt($load(buffer.as_ptr() as *const _))) };
                out.copy_from_slice(&buffer[..out.len()]);
            }

            /// Applies `encrypt` to every step of `plain` into `out`, the parts shorter than a
            /// step at the ends through a buffer, so no byte beyond either slice is touched. With
            /// `stream`, full steps are written with non-temporal stores to aligned addresses
            /// (the head up to that boundary goes through the buffer).
            #[inline]
            #[target_feature(enable = $features)]
            fn map_blocks(plain: &[u8], out: &mut [u8], stream: bool, encrypt: impl Fn($vector) -> $vector) {
                assert_eq!(plain.len(), out.len());
                let len = plain.len();
                let head = if stream { out.as_ptr().align_offset($step).min(len) } else { 0 };
                through_buffer(&plain[..head], &mut out[..head], &encrypt);
                let blocks = (len - head) / $step;
                let (source, target) = (plain.as_ptr(), out.as_mut_ptr());
                // SAFETY (both loops): step i covers head + $step·i .. head + $step·(i + 1) ≤ len;
                // with `stream`, target + head is aligned to $step, as the streaming store needs.
                if stream {
                    for i in 0..blocks {
                        let at = head + $step * i;
                        unsafe { $stream(target.add(at) as *mut _, encrypt($load(source.add(at) as *const _))) };
                    }
                    _mm_sfence();
                } else {
                    for i in 0..blocks {
                        let at = head + $step * i;
                        unsafe { $store(target.add(at) as *mut _, encrypt($load(source.add(at) as *const _))) };
                    }
                }
                let done = head + $step * blocks;
                through_buffer(&plain[done..], &mut out[done..], &encrypt);
            }

            /// `x`'s low and high nibbles, each in the low 4 bits of its byte.
            #[inline]
            #[target_feature(enable = $features)]
            fn nibbles(x: $vector, low_nibble: $vector) -> ($vector, $vector) {
                ($and(x, low_nibble), $and($srli::<4>(x), low_nibble))
            }

            /// A byte's permutation as the OR of its two nibbles' table entries.
            #[inline]
            #[target_feature(enable = $features)]
            fn permuted(x: $vector, low: $vector, high: $vector, low_nibble: $vector) -> $vector {
                let (low_in, high_in) = nibbles(x, low_nibble);
                $or($shuffle(low, low_in), $shuffle(high, high_in))
            }

            /// The S-boxes of `mixed` (E/P(R) ^ K) through P4, into the nibble `s0` and `s1` write.
            #[inline]
            #[target_feature(enable = $features)]
            fn sboxes(mixed: $vector, s0: $vector, s1: $vector, low_nibble: $vector) -> $vector {
                let (s1_in, s0_in) = nibbles(mixed, low_nibble);
                $xor($shuffle(s0, s0_in), $shuffle(s1, s1_in))
            }

            /// # Safety
            /// The CPU must have the module's features; `out` must be as long as `plain`.
            #[target_feature(enable = $features)]
            pub unsafe fn bitwise(k1: u8, k2: u8, plain: &[u8], out: &mut [u8], stream: bool) {
                let t = NibbleTables::of(k1, k2);
                let (ip_low, ip_high, out_low, out_high) = (table(&t.ip_low), table(&t.ip_high), table(&t.out_low), table(&t.out_high));
                let (ep_k1, s0_left, s1_left) = (table(&t.ep_k1), table(&t.s0_to_left), table(&t.s1_to_left));
                let (ep_k2, s0_right, s1_right) = (table(&t.ep_k2), table(&t.s0_to_right), table(&t.s1_to_right));
                let low_nibble = $splat(0x0f);
                map_blocks(plain, out, stream, |p| {
                    let block = permuted(p, ip_low, ip_high, low_nibble);
                    // f_K1: R is the low nibble; L (high) takes the S-boxes.
                    let mixed = $shuffle(ep_k1, $and(block, low_nibble));
                    let first = $xor(block, sboxes(mixed, s0_left, s1_left, low_nibble));
                    // f_K2 after SW: R is now the high nibble, L the low one.
                    let mixed = $shuffle(ep_k2, $and($srli::<4>(first), low_nibble));
                    let second = $xor(first, sboxes(mixed, s0_right, s1_right, low_nibble));
                    // IP⁻¹ of SW of the block.
                    permuted(second, out_low, out_high, low_nibble)
                });
            }

            /// # Safety
            /// The CPU must have the module's features; `out` must be as long as `plain`.
            #[target_feature(enable = $features)]
            pub unsafe fn table_lookup(key_table: &[u8; 256], plain: &[u8], out: &mut [u8], stream: bool) {
                let rows: [$vector; 16] = std::array::from_fn(|row| table(key_table[16 * row..16 * row + 16].try_into().expect("16 entries")));
                let top_bit = $splat(0x80u8 as i8);
                map_blocks(plain, out, stream, |p| {
                    // pshufb gives 0 where the index's top bit is set: rows 0–7 looked up by the
                    // byte itself are 0 from 128 on, rows 8–15 by the byte with its top bit
                    // flipped are 0 below 128, so the last level of the tree is an OR.
                    let flipped = $xor(p, top_bit);
                    let mut picked: [$vector; 16] = std::array::from_fn(|row| $shuffle(rows[row], if row < 8 { p } else { flipped }));
                    // Bit 4 + level of each byte moved to its top bit, which pblendvb reads.
                    let mut count = 16;
                    for selector in [$slli::<3>(p), $slli::<2>(p), $slli::<1>(p)] {
                        count /= 2;
                        for pair in 0..count {
                            picked[pair] = $blend(picked[2 * pair], picked[2 * pair + 1], selector);
                        }
                    }
                    $or(picked[0], picked[1])
                });
            }

            /// # Safety
            /// The CPU must have the module's features; `out` must be as long as `plain`.
            #[target_feature(enable = $features)]
            pub unsafe fn copy(plain: &[u8], out: &mut [u8], stream: bool) {
                map_blocks(plain, out, stream, |block| block);
            }
        }
    };
}

/// 16 bytes broadcast to both 128-bit lanes.
#[target_feature(enable = "avx2")]
fn lanes_256(entries: &[u8; 16]) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // SAFETY: a 16-byte load of the 16-byte array.
    _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(entries.as_ptr() as *const __m128i) })
}

#[target_feature(enable = "sse4.1")]
fn lanes_128(entries: &[u8; 16]) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    // SAFETY: a 16-byte load of the 16-byte array.
    unsafe { _mm_loadu_si128(entries.as_ptr() as *const __m128i) }
}

nibble_kernels!(avx2, "avx2", __m256i, 32, lanes: lanes_256, load: _mm256_loadu_si256, store: _mm256_storeu_si256,
    stream: _mm256_stream_si256, and: _mm256_and_si256, or: _mm256_or_si256, xor: _mm256_xor_si256,
    srli: _mm256_srli_epi16, slli: _mm256_slli_epi16, shuffle: _mm256_shuffle_epi8, blend: _mm256_blendv_epi8,
    splat: _mm256_set1_epi8);

nibble_kernels!(sse41, "ssse3,sse4.1", __m128i, 16, lanes: lanes_128, load: _mm_loadu_si128, store: _mm_storeu_si128,
    stream: _mm_stream_si128, and: _mm_and_si128, or: _mm_or_si128, xor: _mm_xor_si128,
    srli: _mm_srli_epi16, slli: _mm_slli_epi16, shuffle: _mm_shuffle_epi8, blend: _mm_blendv_epi8,
    splat: _mm_set1_epi8);

#[cfg(test)]
mod tests {
    use super::super::portable::{encrypt_byte, subkeys};
    use super::*;

    /// The tables alone, applied as the kernels apply them, on one byte.
    fn by_tables(t: &NibbleTables, byte: u8) -> u8 {
        let look = |table: &[u8; 16], nibble: u8| table[(nibble & 15) as usize];
        let block = look(&t.ip_low, byte) | look(&t.ip_high, byte >> 4);
        let mixed = look(&t.ep_k1, block);
        let first = block ^ look(&t.s0_to_left, mixed >> 4) ^ look(&t.s1_to_left, mixed);
        let mixed = look(&t.ep_k2, first >> 4);
        let second = first ^ look(&t.s0_to_right, mixed >> 4) ^ look(&t.s1_to_right, mixed);
        look(&t.out_low, second) | look(&t.out_high, second >> 4)
    }

    #[test]
    fn the_nibble_tables_compute_the_reference_cipher_for_every_key_and_byte() {
        for key in 0..1024 {
            let (k1, k2) = subkeys(key);
            let tables = NibbleTables::of(k1 as u8, k2 as u8);
            for byte in 0..=255u8 {
                assert_eq!(by_tables(&tables, byte), encrypt_byte(k1, k2, byte as u16) as u8, "key {key} byte {byte}");
            }
        }
    }
}
