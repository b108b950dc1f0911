//! keygen's tuned kernel: the AES-128-CTR generator and the Base32 encoders that write into
//! the String's allocation directly: AVX-512 VBMI (40 bytes into 64 characters a step), else
//! AVX2 (20 bytes into 32), else unchecked scalar writes, the first this CPU runs (chosen at
//! run time), or the one `PARBENCH_KEYGEN_TECHNIQUE` names (`crate::technique`).

use aes::cipher::{KeyIvInit, StreamCipher};
use rand::rngs::OsRng;
use rand::TryRngCore;

use super::base32::{encoded_len, ALPHABET};
use crate::protocol::Outcome;
use crate::technique::{self, everywhere, Technique};

pub const ENVIRONMENT_VARIABLE: &str = "PARBENCH_KEYGEN_TECHNIQUE";

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

const SCALAR: Technique<EncodeKernel> = Technique {
    label: "scalar",
    detail: "unchecked scalar writes, 8 characters per 5-byte group",
    needs: "nothing",
    cpuinfo: &[],
    available: everywhere,
    kernel: encode_unchecked,
};

#[cfg(target_arch = "x86_64")]
fn has_avx512vbmi() -> bool {
    is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512vbmi")
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
}

/// The encoders, fastest first.
#[cfg(target_arch = "x86_64")]
pub static ENCODERS: [Technique<EncodeKernel>; 3] = [
    Technique {
        label: "avx512-vbmi",
        detail: "AVX-512 VBMI (vpermb + vpmultishiftqb, 40 bytes -> 64 characters a step), non-temporal stores",
        needs: "AVX-512 F, BW and VBMI",
        cpuinfo: &["avx512f", "avx512bw", "avx512vbmi"],
        available: has_avx512vbmi,
        kernel: encode_avx512vbmi,
    },
    Technique {
        label: "avx2",
        detail: "AVX2 (vpshufb + vpmulhuw field shifts, 20 bytes -> 32 characters a step), non-temporal stores",
        needs: "AVX2",
        cpuinfo: &["avx2"],
        available: has_avx2,
        kernel: encode_avx2,
    },
    SCALAR,
];

#[cfg(not(target_arch = "x86_64"))]
pub static ENCODERS: [Technique<EncodeKernel>; 1] = [SCALAR];

/// An encoder with its technique; chosen once, then copied to workers.
#[derive(Clone, Copy)]
pub struct Encoder {
    pub technique: &'static Technique<EncodeKernel>,
}

impl Encoder {
    /// The first this CPU runs.
    pub fn fastest() -> Encoder {
        Encoder::labelled(None).expect("the fastest always exists")
    }

    /// The one labelled so (`None`: the fastest); bad arguments where it cannot run here.
    pub fn labelled(label: Option<&str>) -> Outcome<Encoder> {
        Ok(Encoder { technique: technique::choose(&ENCODERS, label, ENVIRONMENT_VARIABLE, "the tuned Base32 encoder")? })
    }

    /// As the environment asks.
    pub fn from_environment() -> Outcome<Encoder> {
        Encoder::labelled(technique::asked(ENVIRONMENT_VARIABLE).as_deref())
    }

    /// The fallback where the CPU lacks the SIMD encoders.
    #[cfg(test)]
    pub fn scalar() -> Encoder {
        Encoder { technique: &ENCODERS[ENCODERS.len() - 1] }
    }

    /// The text as a new `String`, written straight into its allocation. Where the kernel can,
    /// it writes with non-temporal stores: a kept key goes out to memory, and those stores skip
    /// reading each line of the fresh allocation first (measured: about 10 % less time per key).
    pub fn encode(&self, data: &[u8]) -> String {
        let len = encoded_len(data.len());
        let mut text = Vec::with_capacity(len);
        // SAFETY: the kernel writes exactly `len` bytes, all ASCII, into the reserved capacity,
        // and the CPU has its instructions (`technique::choose`); then they are initialised.
        unsafe {
            (self.technique.kernel)(data, text.as_mut_ptr(), true);
            text.set_len(len);
            String::from_utf8_unchecked(text)
        }
    }

    /// The text written into `out` (exactly `encoded_len(data.len())` bytes): the ceiling's
    /// encoder, which keeps nothing.
    pub fn encode_into(&self, data: &[u8], out: &mut [u8]) {
        assert_eq!(out.len(), encoded_len(data.len()), "the output holds the whole text");
        // SAFETY: `out` has room for the whole text (asserted); the CPU has the instructions.
        unsafe { (self.technique.kernel)(data, out.as_mut_ptr(), false) }
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

/// 20 bytes → 32 characters per step, 10 bytes (two 5-byte groups) per 128-bit lane. For each
/// character, `vpshufb` puts the two bytes its 5-bit field lies in into a 16-bit word (the
/// even characters' words in one register, the odd ones' in another), `vpmulhuw` by 2^(16 − s)
/// shifts each word right by its own s, and the fields, masked to 5 bits, are merged into bytes
/// and mapped to the alphabet by arithmetic ('a' + v, or '2' + v − 26 from 26 on). Each step
/// loads 16 bytes at each lane's start, 6 beyond its 20, so the last full step reads a copy of
/// its bytes padded on the stack; the rest (under 20 bytes) goes through the unchecked scalar
/// encoder. With `stream` and a 16-byte-aligned `out`, the characters go out as non-temporal
/// stores, fenced before returning: a 1000-byte key is 50 steps and no scalar tail, so no
/// ordinary store lands on a line the streaming stores are filling.
///
/// # Safety
/// The CPU must have AVX2; `out` must have room for the whole text.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn encode_avx2(data: &[u8], out: *mut u8, stream: bool) {
    use std::arch::x86_64::*;
    // Character c (0..8) of a group: its field's top bit is bit 5c of the 40-bit number, in
    // byte 5c / 8; the word of that byte (high) and the next (low) holds it, shifted by s.
    let mut even = [0u8; 16];
    let mut odd = [0u8; 16];
    let mut even_multipliers = [0u16; 8];
    let mut odd_multipliers = [0u16; 8];
    for word in 0..8 {
        for (control, multipliers, char) in [(&mut even, &mut even_multipliers, 2 * word), (&mut odd, &mut odd_multipliers, 2 * word + 1)] {
            let (group, c) = (char / 8, char % 8);
            let high = 5 * group + 5 * c / 8;
            control[2 * word] = (high + 1) as u8;
            control[2 * word + 1] = high as u8;
            multipliers[word] = 1 << (16 - (11 - (5 * c % 8)));
        }
    }
    // SAFETY: 16-byte loads of the 16-byte arrays above.
    let twice = |bytes: &[u8; 16]| _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(bytes.as_ptr() as *const _) });
    let words = |values: &[u16; 8]| _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(values.as_ptr() as *const _) });
    let (even, odd, even_multipliers, odd_multipliers) = (twice(&even), twice(&odd), words(&even_multipliers), words(&odd_multipliers));
    let five_bits = _mm256_set1_epi16(31);
    let (last_letter, letters, to_digits) = (_mm256_set1_epi8(25), _mm256_set1_epi8(b'a' as i8), _mm256_set1_epi8((b'a' - b'2' + 26) as i8));
    let stream = stream && (out as usize).is_multiple_of(16);
    let steps = data.len() / 20;
    let direct_steps = if data.len() >= 26 { (data.len() - 6) / 20 } else { 0 };
    let mut padded = [0u8; 32];
    for step in 0..steps {
        let at = if step < direct_steps {
            // SAFETY: 20·step + 26 ≤ data.len().
            unsafe { data.as_ptr().add(20 * step) }
        } else {
            padded[..20].copy_from_slice(&data[20 * step..20 * step + 20]);
            padded.as_ptr()
        };
        // SAFETY: the loads read 26 bytes from `at`, within `data` or `padded`; the stores write
        // characters 32·step .. 32·step + 32 ≤ encoded_len(data.len()); with `stream`, `out`
        // is 16-byte aligned and so is every 16-byte piece.
        unsafe {
            let bytes = _mm256_loadu2_m128i(at.add(10) as *const _, at as *const _);
            let even_fields = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(bytes, even), even_multipliers), five_bits);
            let odd_fields = _mm256_and_si256(_mm256_mulhi_epu16(_mm256_shuffle_epi8(bytes, odd), odd_multipliers), five_bits);
            let fields = _mm256_or_si256(even_fields, _mm256_slli_epi16::<8>(odd_fields));
            let digits = _mm256_and_si256(_mm256_cmpgt_epi8(fields, last_letter), to_digits);
            let text = _mm256_sub_epi8(_mm256_add_epi8(fields, letters), digits);
            let target = out.add(32 * step) as *mut __m128i;
            if stream {
                _mm_stream_si128(target, _mm256_castsi256_si128(text));
                _mm_stream_si128(target.add(1), _mm256_extracti128_si256::<1>(text));
            } else {
                _mm256_storeu_si256(target as *mut __m256i, text);
            }
        }
    }
    if stream {
        _mm_sfence();
    }
    // SAFETY: the rest of the text starts at character 32·steps, as the rest of the data does
    // at byte 20·steps, and has room for its encoded length.
    unsafe { encode_unchecked(&data[20 * steps..], out.add(32 * steps), false) };
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::base32::base32;
    use super::super::base32::tests::RFC4648_VECTORS;

    /// Every encoder this CPU runs (the others skipped with the reason, `technique`).
    fn every_encoder() -> Vec<Encoder> {
        ENCODERS.iter().filter(|t| technique::runs_here_or_skips(t, "keygen encoder")).map(|t| Encoder::labelled(Some(t.label)).unwrap()).collect()
    }

    #[test]
    fn base32_rfc4648_vectors_with_every_tuned_encoder() {
        for encoder in every_encoder() {
            for (plain, encoded) in RFC4648_VECTORS {
                assert_eq!(encoder.encode(plain.as_bytes()), encoded, "{} base32 of {plain:?}", encoder.technique.label);
            }
        }
    }

    #[test]
    fn every_encoder_agrees_with_the_portable_one_on_random_keys() {
        for encoder in every_encoder() {
            for seed in 0..1024u64 {
                let mut data = vec![0u8; 900 + seed as usize % 128];
                crate::digest::splitmix64_fill(seed, 0, &mut data);
                assert_eq!(encoder.encode(&data), base32(&data), "{} seed {seed}", encoder.technique.label);
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
            for encoder in every_encoder() {
                assert_eq!(encoder.encode(&data[..len]), plain, "{} len {len}", encoder.technique.label);
            }
        }
    }

    #[test]
    fn the_detected_encoder_agrees_with_the_scalar_one_at_every_length_and_alignment() {
        let data: Vec<u8> = (0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        let scalar = Encoder::scalar();
        for fast in every_encoder() {
            for start in 0..3 {
                for len in (0..130).chain([999, 1000, 1001]) {
                    let part = &data[start..start + len];
                    assert_eq!(fast.encode(part), scalar.encode(part), "{} len {len}", fast.technique.label);
                    let mut scratch = vec![0; encoded_len(len)];
                    fast.encode_into(part, &mut scratch);
                    assert_eq!(scratch, scalar.encode(part).as_bytes());
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn this_cpu_runs_the_fastest_encoder_it_has() {
        let expected = if has_avx512vbmi() { "avx512-vbmi" } else if has_avx2() { "avx2" } else { "scalar" };
        assert_eq!(Encoder::fastest().technique.label, expected);
    }
}
