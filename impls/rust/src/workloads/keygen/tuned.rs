//! keygen's tuned kernel: the AES-128-CTR generator and the Base32 encoders that write into
//! the String's allocation directly, with AVX-512 VBMI (40 bytes into 64 characters a step)
//! where the CPU has it, chosen at run time, and unchecked scalar writes where it has not.

use aes::cipher::{KeyIvInit, StreamCipher};
use rand::rngs::OsRng;
use rand::TryRngCore;

use super::base32::{encoded_len, ALPHABET};

/// The tuned kernel's strong generator: an AES-128-CTR keystream under a key and nonce read
/// from the OS (the keystream generator of NIST's CTR_DRBG; 128-bit security).
pub struct AesCtr(ctr::Ctr64BE<aes::Aes128>);

impl AesCtr {
    pub fn from_os() -> AesCtr {
        let mut seed = [0u8; 32];
        OsRng.try_fill_bytes(&mut seed).expect("the OS's random source answers");
        let (key, nonce) = seed.split_at(16);
        AesCtr(ctr::Ctr64BE::new(key.into(), nonce.into()))
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        // The keystream is what the cipher XORs into its input; over zeros it is the output.
        out.fill(0);
        self.0.apply_keystream(out);
    }
}

/// Writes the Base32 text of `data` to `out`, which has room for `encoded_len(data.len())`;
/// with `stream`, where the kernel can, with non-temporal stores.
type EncodeKernel = unsafe fn(&[u8], *mut u8, bool);

/// An encoder with the fastest kernel this CPU runs; detected once, then copied to workers.
#[derive(Clone, Copy)]
pub struct Encoder {
    kernel: EncodeKernel,
    pub name: &'static str,
}

impl Encoder {
    pub fn detect() -> Encoder {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512vbmi") {
            return Encoder { kernel: encode_avx512vbmi, name: "avx512-vbmi" };
        }
        Encoder::scalar()
    }

    /// The fallback where the CPU lacks VBMI.
    pub fn scalar() -> Encoder {
        Encoder { kernel: encode_unchecked, name: "unchecked scalar writes" }
    }

    /// The text as a new `String`, written straight into its allocation. Where the kernel can,
    /// it writes with non-temporal stores: a kept key goes out to memory, and those stores skip
    /// reading each line of the fresh allocation first (measured: about 10 % less time per key).
    pub fn encode(&self, data: &[u8]) -> String {
        let len = encoded_len(data.len());
        let mut text = Vec::with_capacity(len);
        // SAFETY: the kernel writes exactly `len` bytes, all ASCII, into the reserved capacity,
        // and the CPU has its instructions (`detect`); then they are initialised.
        unsafe {
            (self.kernel)(data, text.as_mut_ptr(), true);
            text.set_len(len);
            String::from_utf8_unchecked(text)
        }
    }

    /// The text written into `out` (exactly `encoded_len(data.len())` bytes): the ceiling's
    /// encoder, which keeps nothing.
    pub fn encode_into(&self, data: &[u8], out: &mut [u8]) {
        assert_eq!(out.len(), encoded_len(data.len()), "the output holds the whole text");
        // SAFETY: `out` has room for the whole text (asserted); the CPU has the instructions.
        unsafe { (self.kernel)(data, out.as_mut_ptr(), false) }
    }
}

/// 5 bytes as the 40-bit big-endian number whose 5-bit fields are the 8 characters.
fn group_bits(group: &[u8]) -> u64 {
    group.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64)
}

/// Eight characters per 5-byte group written straight into `out`, no bounds checks.
///
/// # Safety
/// `out` must have room for `encoded_len(data.len())` bytes.
unsafe fn encode_unchecked(data: &[u8], out: *mut u8, _stream: bool) {
    let mut groups = data.chunks_exact(5);
    let mut at = 0;
    for group in &mut groups {
        let bits = group_bits(group);
        for position in 0..8 {
            // SAFETY: at + position < encoded_len(data.len()).
            unsafe { out.add(at + position).write(ALPHABET[((bits >> (35 - 5 * position)) & 31) as usize]) };
        }
        at += 8;
    }
    let tail = groups.remainder();
    if !tail.is_empty() {
        let mut block = [0u8; 5];
        block[..tail.len()].copy_from_slice(tail);
        let bits = group_bits(&block);
        // Each input byte yields 8/5 characters; the rest of the last group is padding.
        let significant = (tail.len() * 8).div_ceil(5);
        for position in 0..8 {
            let char = if position < significant { ALPHABET[((bits >> (35 - 5 * position)) & 31) as usize] } else { b'=' };
            // SAFETY: the last group's 8 characters end at encoded_len(data.len()).
            unsafe { out.add(at + position).write(char) };
        }
    }
}

/// 40 bytes → 64 characters per step: `vpermb` puts each 5-byte group, byte-reversed, in its
/// own 64-bit lane (the 40-bit big-endian number), `vpmultishiftqb` pulls the 8 five-bit fields
/// out of each lane (shifts 35, 30, …, 0), and `vpermb` looks them up in the alphabet. The
/// last partial step goes through the unchecked scalar encoder. With `stream` and a 16-byte-aligned
/// `out` (what the allocator gives), each 64 characters go out as four non-temporal stores,
/// fenced before returning so the text is visible like any other store.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VBMI; `out` must have room for the whole text.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn encode_avx512vbmi(data: &[u8], out: *mut u8, stream: bool) {
    use std::arch::x86_64::*;
    let mut group_bytes = [0u8; 64];
    let mut field_shifts = [0u8; 64];
    let mut alphabet = [0u8; 64];
    for lane in 0..8 {
        for j in 0..8 {
            group_bytes[8 * lane + j] = if j < 5 { (5 * lane + 4 - j) as u8 } else { 0 };
            field_shifts[8 * lane + j] = (35 - 5 * j) as u8;
        }
    }
    for (i, entry) in alphabet.iter_mut().enumerate() {
        *entry = ALPHABET[i % 32];
    }
    // SAFETY: 64-byte loads of the three 64-byte arrays above.
    let load = |bytes: &[u8; 64]| unsafe { _mm512_loadu_si512(bytes.as_ptr() as *const _) };
    let (group_bytes, field_shifts, alphabet) = (load(&group_bytes), load(&field_shifts), load(&alphabet));
    let five_bits = _mm512_set1_epi8(31);
    let stream = stream && (out as usize).is_multiple_of(16);
    let steps = data.len() / 40;
    for step in 0..steps {
        // SAFETY: the mask reads bytes 40·step .. 40·step + 40 ≤ data.len(); the stores write
        // characters 64·step .. 64·step + 64 ≤ encoded_len(data.len()); with `stream`, `out`
        // is 16-byte aligned and so is every 16-byte piece.
        unsafe {
            let bytes = _mm512_maskz_loadu_epi8((1u64 << 40) - 1, data.as_ptr().add(40 * step) as *const i8);
            let lanes = _mm512_permutexvar_epi8(group_bytes, bytes);
            let fields = _mm512_and_si512(_mm512_multishift_epi64_epi8(field_shifts, lanes), five_bits);
            let text = _mm512_permutexvar_epi8(fields, alphabet);
            if stream {
                let at = out.add(64 * step) as *mut __m128i;
                _mm_stream_si128(at, _mm512_extracti32x4_epi32::<0>(text));
                _mm_stream_si128(at.add(1), _mm512_extracti32x4_epi32::<1>(text));
                _mm_stream_si128(at.add(2), _mm512_extracti32x4_epi32::<2>(text));
                _mm_stream_si128(at.add(3), _mm512_extracti32x4_epi32::<3>(text));
            } else {
                _mm512_storeu_si512(out.add(64 * step) as *mut _, text);
            }
        }
    }
    if stream {
        _mm_sfence();
    }
    // SAFETY: the rest of the text starts at character 64·steps, as the rest of the data does
    // at byte 40·steps, and has room for its encoded length.
    unsafe { encode_unchecked(&data[40 * steps..], out.add(64 * steps), false) };
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::base32::base32;
    use super::super::base32::tests::RFC4648_VECTORS;

    #[test]
    fn base32_rfc4648_vectors_with_every_tuned_encoder() {
        for encoder in [Encoder::scalar(), Encoder::detect()] {
            for (plain, encoded) in RFC4648_VECTORS {
                assert_eq!(encoder.encode(plain.as_bytes()), encoded, "{} base32 of {plain:?}", encoder.name);
            }
        }
    }

    #[test]
    fn the_generator_is_aes128_ctr_under_its_key_and_nonce() {
        // FIPS-197 C.1's key and plaintext block: with the counter block as the nonce, the
        // first keystream block is the AES-128 encryption of that block.
        let key: Vec<u8> = (0..16).collect();
        let block: Vec<u8> = (0..16).map(|i| i * 0x11).collect();
        let mut generator = AesCtr(ctr::Ctr64BE::new(key.as_slice().into(), block.as_slice().into()));
        let mut out = [0xffu8; 16];
        generator.fill(&mut out);
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "69c4e0d86a7b0430d8cdb78070b4c55a");
    }

    #[test]
    fn the_portable_encoder_agrees_with_the_tuned_ones_at_every_length() {
        let data: Vec<u8> = (0..1200u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect();
        for len in (0..90).chain([999, 1000, 1001]) {
            let plain = base32(&data[..len]);
            assert_eq!(plain.len(), encoded_len(len));
            assert_eq!(Encoder::detect().encode(&data[..len]), plain, "len {len}");
            assert_eq!(Encoder::scalar().encode(&data[..len]), plain, "len {len}");
        }
    }

    #[test]
    fn the_detected_encoder_agrees_with_the_scalar_one_at_every_length_and_alignment() {
        let data: Vec<u8> = (0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        let (fast, scalar) = (Encoder::detect(), Encoder::scalar());
        for start in 0..3 {
            for len in (0..130).chain([999, 1000, 1001]) {
                let part = &data[start..start + len];
                assert_eq!(fast.encode(part), scalar.encode(part), "{} len {len}", fast.name);
                let mut scratch = vec![0; encoded_len(len)];
                fast.encode_into(part, &mut scratch);
                assert_eq!(scratch, scalar.encode(part).as_bytes());
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn this_cpu_runs_the_encoder_it_has() {
        let vbmi = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512vbmi");
        assert_eq!(Encoder::detect().name, if vbmi { "avx512-vbmi" } else { "unchecked scalar writes" });
    }
}
