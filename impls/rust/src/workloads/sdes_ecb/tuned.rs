//! The tuned S-DES kernels with x86-64 AVX-512: 64 bytes per step. Each is chosen at run time
//! with `is_x86_feature_detected!` (`techniques.rs`); the AVX2 and SSE4.1 ones (`nibble.rs`)
//! stand in where the CPU lacks these instructions, the portable kernel (`portable.rs`) below
//! them, and it is what all are tested against. The ceiling's streaming copy lives here too.
//!
//! - table: the key's 256-byte table is four 64-byte registers; `vpermi2b` looks 64 bytes up
//!   in the lower 128 entries and 64 in the upper, and the top bit of each input byte picks
//!   which (AVX-512 VBMI).
//! - bitwise: every permutation (IP, E/P, P4, SW, IP⁻¹) is an 8×8 bit matrix applied to each
//!   byte by `vgf2p8affineqb` (GFNI), the subkeys are XORed in, and the S-boxes S0 and S1 are
//!   the spec's 16-entry tables looked up by `vpshufb` per 4-bit half: the cipher is computed
//!   step by step for every byte, no table of the whole cipher is used.

use std::arch::x86_64::*;

use super::portable::{EP, IP, IP_INV, P4, S0, S1};
use super::CopyKernel;

pub fn has_avx512bw() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw")
}

pub fn has_gfni_avx512() -> bool {
    has_avx512bw() && is_x86_feature_detected!("gfni")
}

pub fn has_avx512vbmi() -> bool {
    has_avx512bw() && is_x86_feature_detected!("avx512vbmi")
}

/// `vgf2p8affineqb`'s matrix for a bit permutation: output bit i of a byte is the parity of
/// (matrix byte 7 − i) AND the input byte, so that row holds the one input bit output bit i
/// takes. `table[k]` is the input position (1-based, 1 = most significant of `in_width` bits)
/// of output position k + 1; output position 1 is bit `out_top − 1`.
const fn permutation_matrix(table: &[u8], in_width: u8, out_top: u8) -> u64 {
    let mut matrix = 0u64;
    let mut k = 0;
    while k < table.len() {
        let out_bit = out_top - 1 - k as u8; // bit index, 0 = least significant
        let in_bit = in_width - table[k];
        matrix |= (1u64 << in_bit) << (8 * (7 - out_bit as u64));
        k += 1;
    }
    matrix
}

/// IP and IP⁻¹ over the whole byte.
const IP_MATRIX: u64 = permutation_matrix(&IP, 8, 8);
const IP_INV_MATRIX: u64 = permutation_matrix(&IP_INV, 8, 8);
/// E/P reads the right half (the low 4 bits) and fills the byte.
const EP_MATRIX: u64 = permutation_matrix(&EP, 4, 8);
/// P4 reads the S-boxes' 4 bits (S0's in bits 3–2, S1's in 1–0) and writes the left half,
/// where f_K XORs it into L.
const P4_TO_LEFT_MATRIX: u64 = permutation_matrix(&P4, 4, 8);
/// SW: the halves swap, a rotation by 4 (output position k takes input position k + 4 mod 8).
const SWAP_MATRIX: u64 = permutation_matrix(&[5, 6, 7, 8, 1, 2, 3, 4], 8, 8);

/// S-box `sbox` as 16 entries indexed by its 4-bit input (row = bits 1 and 4, column = bits
/// 2 and 3), its 2-bit output shifted left by `shift`.
const fn sbox_by_input(sbox: &[[u8; 4]; 4], shift: u8) -> [u8; 16] {
    let mut entries = [0u8; 16];
    let mut input = 0;
    while input < 16 {
        let row = ((input >> 3) & 1) << 1 | (input & 1);
        let column = (input >> 1) & 0b11;
        entries[input] = sbox[row][column] << shift;
        input += 1;
    }
    entries
}

const S0_BY_INPUT: [u8; 16] = sbox_by_input(&S0, 2);
const S1_BY_INPUT: [u8; 16] = sbox_by_input(&S1, 0);

/// 16 bytes repeated in each 128-bit lane, as `vpshufb` reads its table.
#[target_feature(enable = "avx512f")]
fn lanes_of(entries: [u8; 16]) -> __m512i {
    _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(entries.as_ptr() as *const __m128i) })
}

/// f_K over 64 blocks: L ^= P4(S0(l4) ‖ S1(r4)) with (l4 ‖ r4) = E/P(R) ^ subkey; R kept.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn round_avx512(block: __m512i, subkey: __m512i, s0: __m512i, s1: __m512i) -> __m512i {
    let low_nibble = _mm512_set1_epi8(0x0f);
    let mixed = _mm512_xor_si512(_mm512_gf2p8affine_epi64_epi8::<0>(block, _mm512_set1_epi64(EP_MATRIX as i64)), subkey);
    let left_in = _mm512_and_si512(_mm512_srli_epi16::<4>(mixed), low_nibble);
    let right_in = _mm512_and_si512(mixed, low_nibble);
    let sboxes = _mm512_or_si512(_mm512_shuffle_epi8(s0, left_in), _mm512_shuffle_epi8(s1, right_in));
    let p4 = _mm512_gf2p8affine_epi64_epi8::<0>(sboxes, _mm512_set1_epi64(P4_TO_LEFT_MATRIX as i64));
    _mm512_xor_si512(block, p4)
}

#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn encrypt_64_gfni(plain: __m512i, k1: __m512i, k2: __m512i, s0: __m512i, s1: __m512i) -> __m512i {
    let permuted = _mm512_gf2p8affine_epi64_epi8::<0>(plain, _mm512_set1_epi64(IP_MATRIX as i64));
    let first = round_avx512(permuted, k1, s0, s1);
    let swapped = _mm512_gf2p8affine_epi64_epi8::<0>(first, _mm512_set1_epi64(SWAP_MATRIX as i64));
    let second = round_avx512(swapped, k2, s0, s1);
    _mm512_gf2p8affine_epi64_epi8::<0>(second, _mm512_set1_epi64(IP_INV_MATRIX as i64))
}

/// Applies `encrypt` to every 64-byte block of `plain` into `out`; the partial blocks at the
/// ends go through masked loads and stores, so no byte beyond either slice is touched. With
/// `stream`, full blocks are written with non-temporal stores (to a 64-byte-aligned address,
/// so the head up to that boundary is one masked block): for outputs larger than the caches,
/// they skip reading each destination line before writing it.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn map_blocks(plain: &[u8], out: &mut [u8], stream: bool, encrypt: impl Fn(__m512i) -> __m512i) {
    assert_eq!(plain.len(), out.len());
    let (len, source, target) = (plain.len(), plain.as_ptr(), out.as_mut_ptr());
    let partial = |at: usize, count: usize| {
        let mask: __mmask64 = if count >= 64 { !0 } else { (1u64 << count) - 1 };
        // SAFETY: the mask covers bytes at..at + count, all within both slices.
        unsafe {
            let block = _mm512_maskz_loadu_epi8(mask, source.add(at) as *const i8);
            _mm512_mask_storeu_epi8(target.add(at) as *mut i8, mask, encrypt(block));
        }
    };
    let head = if stream { target.align_offset(64).min(len) } else { 0 };
    if head > 0 {
        partial(0, head);
    }
    let blocks = (len - head) / 64;
    // SAFETY (both loops): block i covers head + 64·i .. head + 64·(i + 1) ≤ len; with
    // `stream`, target + head is 64-byte aligned, as `_mm512_stream_si512` needs.
    if stream {
        for i in 0..blocks {
            let at = head + 64 * i;
            unsafe { _mm512_stream_si512(target.add(at) as *mut _, encrypt(_mm512_loadu_si512(source.add(at) as *const _))) };
        }
        _mm_sfence();
    } else {
        for i in 0..blocks {
            let at = head + 64 * i;
            unsafe { _mm512_storeu_si512(target.add(at) as *mut _, encrypt(_mm512_loadu_si512(source.add(at) as *const _))) };
        }
    }
    let done = head + 64 * blocks;
    if done < len {
        partial(done, len - done);
    }
}

/// A copy through the widest kernels' loop this CPU runs (the ceiling's vector copy): AVX-512
/// BW's, else AVX2's or SSE4.1's (`nibble.rs`).
pub fn copy_kernel() -> Option<CopyKernel> {
    if has_avx512bw() {
        Some(copy_avx512 as CopyKernel)
    } else if is_x86_feature_detected!("avx2") {
        Some(super::nibble::avx2::copy as CopyKernel)
    } else {
        is_x86_feature_detected!("sse4.1").then_some(super::nibble::sse41::copy as CopyKernel)
    }
}

/// # Safety
/// The CPU must have AVX-512 F and BW; `out` must be as long as `plain`.
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn copy_avx512(plain: &[u8], out: &mut [u8], stream: bool) {
    map_blocks(plain, out, stream, |block| block);
}

/// # Safety
/// The CPU must have AVX-512 F and BW and GFNI; `out` must be as long as `plain`.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
pub unsafe fn bitwise_gfni_avx512(k1: u8, k2: u8, plain: &[u8], out: &mut [u8], stream: bool) {
    let (k1, k2) = (_mm512_set1_epi8(k1 as i8), _mm512_set1_epi8(k2 as i8));
    let (s0, s1) = (lanes_of(S0_BY_INPUT), lanes_of(S1_BY_INPUT));
    map_blocks(plain, out, stream, |p| encrypt_64_gfni(p, k1, k2, s0, s1));
}

/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI; `out` must be as long as `plain`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub unsafe fn table_avx512vbmi(table: &[u8; 256], plain: &[u8], out: &mut [u8], stream: bool) {
    // SAFETY: four 64-byte loads within the 256-byte table.
    let quarter = |q: usize| unsafe { _mm512_loadu_si512(table.as_ptr().add(64 * q) as *const _) };
    let (t0, t1, t2, t3) = (quarter(0), quarter(1), quarter(2), quarter(3));
    map_blocks(plain, out, stream, |p| {
        // Bits 0–6 index 128 entries (bit 6 picks the register); bit 7 picks the half.
        let low_half = _mm512_permutex2var_epi8(t0, p, t1);
        let high_half = _mm512_permutex2var_epi8(t2, p, t3);
        _mm512_mask_blend_epi8(_mm512_movepi8_mask(p), low_half, high_half)
    });
}

/// Copies with non-temporal stores, which skip reading the destination's lines into the cache
/// first: 64 bytes a store with AVX-512, else 16 with SSE2 (part of x86-64); bytes before the
/// first aligned block and after the last go through ordinary stores.
pub fn copy_streaming(plain: &[u8], out: &mut [u8]) {
    if let Some(vector_copy) = copy_kernel() {
        // SAFETY: the CPU has the kernel's instructions; the lengths are equal (callers).
        return unsafe { vector_copy(plain, out, true) };
    }
    // SAFETY: SSE2 is part of x86-64; `align_to_mut` gives 16-byte-aligned destination
    // blocks, and every source load is unaligned and within `plain` (same length as `out`).
    unsafe {
        let (head, blocks, tail) = out.align_to_mut::<__m128i>();
        head.copy_from_slice(&plain[..head.len()]);
        let source = plain[head.len()..].as_ptr() as *const __m128i;
        for (i, block) in blocks.iter_mut().enumerate() {
            _mm_stream_si128(block, _mm_loadu_si128(source.add(i)));
        }
        let tail_start = plain.len() - tail.len();
        tail.copy_from_slice(&plain[tail_start..]);
        _mm_sfence();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input bits that output bit `out_bit` (0 = least significant) takes.
    fn row(matrix: u64, out_bit: u64) -> u64 {
        (matrix >> (8 * (7 - out_bit))) & 0xff
    }

    #[test]
    fn the_matrices_move_bits_as_the_permutations_do() {
        // IP: output position 1 (bit 7) takes input position 2 (bit 6).
        assert_eq!(row(IP_MATRIX, 7), 1 << 6);
        // SW: the high half takes the low half and back.
        assert_eq!((row(SWAP_MATRIX, 7), row(SWAP_MATRIX, 0)), (1 << 3, 1 << 4));
        // E/P: output position 1 takes position 4 of the right half (bit 0).
        assert_eq!(row(EP_MATRIX, 7), 1);
        // P4 writes only the left half.
        assert!((0..4).all(|bit| row(P4_TO_LEFT_MATRIX, bit) == 0));
    }

    #[test]
    fn sboxes_by_input_follow_row_and_column() {
        // Input 0b1001: row 0b11, column 0b00 → S0[3][0] = 3, S1[3][0] = 2.
        assert_eq!(S0_BY_INPUT[0b1001], 3 << 2);
        assert_eq!(S1_BY_INPUT[0b1001], 2);
    }
}
