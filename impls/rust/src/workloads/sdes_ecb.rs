//! sdes-ecb: S-DES (Schaefer 1996) in ECB mode over an in-memory file, one byte per block.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::parallel::{run_chunks, time_chunks, Chunking, Ran, Shape, RAYON_BROADCAST_NOTE, RAYON_NOTE, THREADS_NOTE};
use crate::protocol::{bad_args, crash, measure, repeat, timed, Call, KernelClass, Outcome, Sample};
use crate::workloads::{Model, Workload};

#[cfg(target_arch = "x86_64")]
mod simd;

pub const WORKLOAD: Workload = Workload {
    name: "sdes-ecb",
    params: &["input", "key", "cipher", "chunk"],
    models: &[
        Model { name: "seq", family: "seq", workers: false, params: &[], note: "one loop over the whole input" },
        Model { name: "rayon", family: "data-parallel", workers: true, params: &[], note: RAYON_NOTE },
        Model { name: "rayon-broadcast", family: "data-parallel", workers: true, params: &[], note: RAYON_BROADCAST_NOTE },
        Model { name: "threads", family: "threads", workers: true, params: &[], note: THREADS_NOTE },
    ],
    kernels: &[("portable", PORTABLE), ("tuned", TUNED)],
    run,
};

/// What each kernel class runs per chunk (`extra.kernel_detail` names the one that ran).
const PORTABLE: &str = "bitwise: scalar per-byte permutations and Feistel rounds (plain Rust, whatever the compiler makes of it); table: the key's 256-byte table from that per-byte cipher, one lookup per byte";
const TUNED: &str = "bitwise: IP, E/P, P4, SW and IP^-1 as GF(2) bit matrices (GFNI vgf2p8affineqb), S0/S1 by vpshufb, 64 bytes a step with AVX-512; table: the key's table looked up 64 bytes a step with AVX-512 VBMI vpermi2b; both non-temporal stores from 4 MiB of output; chosen at run time, the portable loops where the CPU lacks the instructions";

/// The contract's largest chunk: 1 MiB.
pub const CHUNK_CAP: usize = 1 << 20;
const P10: [u8; 10] = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6];
const P8: [u8; 8] = [6, 3, 7, 4, 8, 5, 10, 9];
const IP: [u8; 8] = [2, 6, 3, 1, 4, 8, 5, 7];
const IP_INV: [u8; 8] = [4, 1, 3, 5, 7, 2, 8, 6];
const EP: [u8; 8] = [4, 1, 2, 3, 2, 3, 4, 1];
const P4: [u8; 4] = [2, 4, 3, 1];
const S0: [[u8; 4]; 4] = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
const S1: [[u8; 4]; 4] = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];

/// Output bit k is input bit table[k], counting from 1 at the most significant of `width` bits.
#[inline(always)]
fn permute(value: u16, width: u8, table: &[u8]) -> u16 {
    table.iter().fold(0, |out, &position| (out << 1) | ((value >> (width - position)) & 1))
}

#[inline(always)]
fn rotate5(half: u16, by: u16) -> u16 {
    ((half << by) | (half >> (5 - by))) & 0b11111
}

/// (K1, K2) of a 10-bit key.
pub fn subkeys(key: u16) -> (u8, u8) {
    let p10 = permute(key, 10, &P10);
    let (left, right) = (rotate5(p10 >> 5, 1), rotate5(p10 & 0b11111, 1));
    let k1 = permute((left << 5) | right, 10, &P8);
    let (left, right) = (rotate5(left, 2), rotate5(right, 2));
    let k2 = permute((left << 5) | right, 10, &P8);
    (k1 as u8, k2 as u8)
}

#[inline(always)]
fn f_k(block: u16, subkey: u8) -> u16 {
    let (left, right) = (block >> 4, block & 0xf);
    let mixed = permute(right, 4, &EP) ^ subkey as u16;
    let (l4, r4) = (mixed >> 4, mixed & 0xf);
    let s0 = S0[((((l4 >> 3) & 1) << 1) | (l4 & 1)) as usize][((l4 >> 1) & 0b11) as usize] as u16;
    let s1 = S1[((((r4 >> 3) & 1) << 1) | (r4 & 1)) as usize][((r4 >> 1) & 0b11) as usize] as u16;
    ((left ^ permute((s0 << 2) | s1, 4, &P4)) << 4) | right
}

/// The cipher of one byte, every permutation and both Feistel rounds run for it.
#[inline(always)]
pub fn encrypt_byte(k1: u8, k2: u8, plain: u8) -> u8 {
    let block = f_k(permute(plain as u16, 8, &IP), k1);
    let swapped = ((block & 0xf) << 4) | (block >> 4);
    permute(f_k(swapped, k2), 8, &IP_INV) as u8
}

/// The key's table byte by byte with the scalar cipher: the portable kernel's table (the tuned
/// one derives it with its own bitwise kernel).
pub fn table(key: u16) -> [u8; 256] {
    let (k1, k2) = subkeys(key);
    std::array::from_fn(|plain| encrypt_byte(k1, k2, plain as u8))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipherForm {
    Bitwise,
    Table,
}

impl CipherForm {
    pub fn parse(name: &str) -> Outcome<CipherForm> {
        match name {
            "bitwise" => Ok(CipherForm::Bitwise),
            "table" => Ok(CipherForm::Table),
            other => Err(bad_args(format!("unknown --cipher '{other}'; valid: bitwise, table"))),
        }
    }
}

/// A table kernel: the key's table, the input, the output (as long as the input), whether to
/// write with non-temporal stores.
pub type TableKernel = unsafe fn(&[u8; 256], &[u8], &mut [u8], bool);
/// A bitwise kernel: K1, K2, the input, the output (as long as the input), streaming or not.
pub type BitwiseKernel = unsafe fn(u8, u8, &[u8], &mut [u8], bool);

/// A copy with the kernels' loop: the input, the output, streaming or not.
pub type CopyKernel = unsafe fn(&[u8], &mut [u8], bool);

/// From this output size on, the SIMD kernels write with non-temporal stores: the output no
/// longer stays in a core's cache (2 MiB of L2 here) until the next repetition, and streaming
/// stores skip reading each line before writing it. Measured on this machine: at 1 MiB
/// ordinary stores were about twice as fast, at 8 MiB and 64 MiB streaming was 1.4–2.8× faster.
pub const STREAM_FROM_BYTES: usize = 4 << 20;

/// A key's schedule in the form the cipher uses, derived inside the timed region, with the
/// kernel that runs it: SIMD where the CPU has the instructions (`simd.rs`), else the portable
/// scalar loop.
// One cipher per repetition, shared by reference with every worker: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy)]
pub enum Cipher {
    Bitwise { k1: u8, k2: u8, simd: Option<(BitwiseKernel, &'static str)>, stream: bool },
    Table { table: [u8; 256], simd: Option<(TableKernel, &'static str)>, stream: bool },
}

impl Cipher {
    /// The key schedule and kernel of a class: `portable` is the scalar form, `tuned` the
    /// fastest this CPU runs for an output of `output_len` bytes.
    pub fn of_class(class: KernelClass, form: CipherForm, key: u16, output_len: usize) -> Cipher {
        match class {
            KernelClass::Portable => Cipher::scalar(form, key),
            KernelClass::Tuned => Cipher::new(form, key, output_len),
        }
    }

    /// The fastest form this CPU runs, for an output of `output_len` bytes in all.
    pub fn new(form: CipherForm, key: u16, output_len: usize) -> Cipher {
        let stream = output_len >= STREAM_FROM_BYTES;
        let (k1, k2) = subkeys(key);
        let bitwise = Cipher::Bitwise { k1, k2, simd: detected_bitwise_kernel(), stream: false };
        match form {
            CipherForm::Bitwise => Cipher::Bitwise { k1, k2, simd: detected_bitwise_kernel(), stream },
            CipherForm::Table => {
                // The key's table is the bitwise cipher of every byte: with the SIMD kernel,
                // four steps instead of 256 scalar ones.
                let mut table = [0u8; 256];
                bitwise.encrypt_into(&std::array::from_fn::<u8, 256, _>(|plain| plain as u8), &mut table);
                Cipher::Table { table, simd: detected_table_kernel(), stream }
            }
        }
    }

    /// The portable form: per-byte permutations and rounds, or the key's table from them.
    pub fn scalar(form: CipherForm, key: u16) -> Cipher {
        let (k1, k2) = subkeys(key);
        match form {
            CipherForm::Bitwise => Cipher::Bitwise { k1, k2, simd: None, stream: false },
            CipherForm::Table => Cipher::Table { table: table(key), simd: None, stream: false },
        }
    }

    /// The kernel that runs, for `extra.kernel_detail`.
    pub fn kernel_name(&self) -> String {
        let (name, stream) = match *self {
            Cipher::Bitwise { simd: Some((_, name)), stream, .. } | Cipher::Table { simd: Some((_, name)), stream, .. } => (name, stream),
            _ => return "scalar".into(),
        };
        if stream { format!("{name}, streaming stores") } else { name.into() }
    }

    /// `extra.kernel_detail`: what ran, in a few words.
    pub fn kernel_detail(&self) -> String {
        match (self, self.kernel_name().as_str()) {
            (Cipher::Bitwise { .. }, "scalar") => "scalar per-byte permutations and Feistel rounds".into(),
            (Cipher::Table { .. }, "scalar") => "256-byte table of the key, one lookup per byte".into(),
            (Cipher::Bitwise { .. }, name) => format!("GFNI + AVX-512 bit matrices and vpshufb S-boxes ({name})"),
            (Cipher::Table { .. }, name) => format!("AVX-512 VBMI vpermi2b table lookup ({name})"),
        }
    }

    /// Encrypts `plain` into `out` (same length); the unit every model hands to a worker.
    pub fn encrypt_into(&self, plain: &[u8], out: &mut [u8]) {
        assert_eq!(plain.len(), out.len(), "a chunk's input and output have one length");
        match *self {
            // SAFETY: `simd` is only Some when the CPU has the kernel's instructions (detected
            // at run time), and the lengths are equal (asserted above).
            Cipher::Bitwise { k1, k2, simd: Some((kernel, _)), stream } => unsafe { kernel(k1, k2, plain, out, stream) },
            Cipher::Table { ref table, simd: Some((kernel, _)), stream } => unsafe { kernel(table, plain, out, stream) },
            Cipher::Bitwise { k1, k2, simd: None, .. } => {
                for (c, &p) in out.iter_mut().zip(plain) {
                    *c = encrypt_byte(k1, k2, p);
                }
            }
            Cipher::Table { ref table, simd: None, .. } => {
                for (c, &p) in out.iter_mut().zip(plain) {
                    *c = table[p as usize];
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn detected_bitwise_kernel() -> Option<(BitwiseKernel, &'static str)> {
    simd::bitwise_kernel()
}

#[cfg(target_arch = "x86_64")]
fn detected_table_kernel() -> Option<(TableKernel, &'static str)> {
    simd::table_kernel()
}

#[cfg(not(target_arch = "x86_64"))]
fn detected_bitwise_kernel() -> Option<(BitwiseKernel, &'static str)> {
    None
}

#[cfg(not(target_arch = "x86_64"))]
fn detected_table_kernel() -> Option<(TableKernel, &'static str)> {
    None
}

/// A kernel turns one input chunk into the output chunk of the same length.
pub trait Kernel: Fn(&[u8], &mut [u8]) + Sync + Send {}
impl<F: Fn(&[u8], &mut [u8]) + Sync + Send> Kernel for F {}

/// `kernel` as the fill of the output chunk that starts at input offset `first`.
fn over_input<'a>(plain: &'a [u8], kernel: &'a impl Kernel) -> impl Fn(&mut (), usize, &mut [u8]) + Sync + Send + 'a {
    move |_, first, out| kernel(&plain[first..first + out.len()], out)
}

/// What a repetition runs: the model's shape, the kernel class and the cipher form.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub shape: Shape,
    pub class: KernelClass,
    pub form: CipherForm,
}

/// Runs the model over the whole input: the key schedule, starting the workers, every chunk,
/// joining the workers; `origin` is the clock's start. `None` for `seq` (no workers).
pub fn encrypt(case: Case, key: u16, plain: &[u8], out: &mut [u8], chunking: &Chunking, origin: std::time::Instant) -> Outcome<Option<Ran>> {
    let cipher = Cipher::of_class(case.class, case.form, key, out.len());
    let kernel = |plain: &[u8], out: &mut [u8]| cipher.encrypt_into(plain, out);
    run_chunks(case.shape, out, chunking, origin, || (), over_input(plain, &kernel))
}

/// The fastest plain copy Rust offers here, among three timed and reported: `memcpy`
/// (`copy_from_slice`), non-temporal (streaming) stores, and the SIMD kernels' own loop with
/// the identity as the block function (ordinary stores); `ceiling_ns` is the fastest. All run
/// in the model's shape and chunks, its workers already started, so the clock holds only the
/// copying.
fn with_copy_ceiling(sample: Sample, shape: Shape, plain: &[u8], out: &mut [u8], chunking: &Chunking) -> Outcome<Sample> {
    let memcpy = |plain: &[u8], out: &mut [u8]| out.copy_from_slice(plain);
    let memcpy_ns = time_chunks(shape, out, chunking, || (), over_input(plain, &memcpy))?;
    let stream_ns = time_chunks(shape, out, chunking, || (), over_input(plain, &copy_streaming))?;
    let mut sample = sample.with("baseline_memcpy_ns", memcpy_ns as u64).with("baseline_stream_ns", stream_ns as u64);
    let mut fastest = memcpy_ns.min(stream_ns);
    if let Some(vector_copy) = vector_copy_kernel() {
        // SAFETY: the kernel exists only where the CPU has its instructions; `over_input` passes
        // an input and an output of one length.
        let copy = |plain: &[u8], out: &mut [u8]| unsafe { vector_copy(plain, out, false) };
        let vector_ns = time_chunks(shape, out, chunking, || (), over_input(plain, &copy))?;
        sample = sample.with("baseline_vector_ns", vector_ns as u64);
        fastest = fastest.min(vector_ns);
    }
    Ok(sample.with("ceiling", "copy").with("ceiling_ns", fastest as u64))
}

#[cfg(target_arch = "x86_64")]
fn vector_copy_kernel() -> Option<CopyKernel> {
    simd::copy_kernel()
}

#[cfg(not(target_arch = "x86_64"))]
fn vector_copy_kernel() -> Option<CopyKernel> {
    None
}

/// Copies with non-temporal stores, which skip reading the destination's lines into the cache
/// first: 64 bytes a store with AVX-512, else 16 with SSE2 (part of x86-64); bytes before the
/// first aligned block and after the last go through ordinary stores.
pub fn copy_streaming(plain: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        if let Some(vector_copy) = vector_copy_kernel() {
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
    #[cfg(not(target_arch = "x86_64"))]
    out.copy_from_slice(plain);
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// The output buffer, allocated and every page written once before the first repetition, so
/// its page faults are not on the clock (every repetition overwrites it).
fn prefaulted_output(len: usize) -> Vec<u8> {
    vec![0xff; len]
}

fn run(call: &Call) -> Outcome<()> {
    let shape = Shape::of(call);
    let class = call.kernel(true)?;
    let base_key = call.number("key", Some(642))?;
    if let Some(key) = call.all_variants(base_key).into_iter().find(|&key| key > 0b11_1111_1111) {
        return Err(bad_args(format!("a key (--key or --variants) must be a 10-bit value (0..1023), got {key}")));
    }
    let form = CipherForm::parse(&call.text("cipher", Some("table"))?)?;
    let case = Case { shape, class, form };
    let path = call.text("input", None)?;
    let (plain, load_ns) = timed(|| std::fs::read(&path));
    let plain = plain.map_err(|e| crash(&format!("reading --input {path}"), e))?;
    let chunking = shape.chunking(call, plain.len(), CHUNK_CAP)?;
    let mut out = prefaulted_output(plain.len());
    let mut common = Map::new();
    common.insert("load_ns".into(), Value::from(load_ns as u64));
    common.insert("kernel".into(), Value::from(class.name()));
    common.insert("kernel_detail".into(), Value::from(Cipher::of_class(class, form, base_key as u16, plain.len()).kernel_detail()));
    repeat(call, &common, |rep| {
        let key = rep.variant(call, base_key) as u16;
        let (ran, measured) = measure(|origin| encrypt(case, key, &plain, &mut out, &chunking, origin));
        let ran = ran?;
        let (checksum, checksum_ns) = timed(|| sha256_hex(&out));
        let mut sample = Sample::new(measured, plain.len() as u64, checksum).with("checksum_ns", checksum_ns as u64);
        if let Some(ran) = ran {
            sample = sample.with_ran(&chunking, &ran);
        }
        with_copy_ceiling(sample, shape, &plain, &mut out, &chunking)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encrypted(encrypt: impl FnOnce(&mut [u8]), len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        encrypt(&mut out);
        out
    }

    fn bits(text: &str) -> u16 {
        u16::from_str_radix(text, 2).unwrap()
    }

    fn encrypt_bits(key: &str, plain: &str) -> String {
        let (k1, k2) = subkeys(bits(key));
        format!("{:08b}", encrypt_byte(k1, k2, bits(plain) as u8))
    }

    #[test]
    fn key_1010000010_gives_k1_10100100_k2_01000011() {
        assert_eq!(subkeys(bits("1010000010")), (0b1010_0100, 0b0100_0011));
    }

    #[test]
    fn key_0000000000_plain_10101010() {
        assert_eq!(encrypt_bits("0000000000", "10101010"), "00010001");
    }

    #[test]
    fn key_1110001110_plain_10101010() {
        assert_eq!(encrypt_bits("1110001110", "10101010"), "11001010");
    }

    #[test]
    fn key_1110001110_plain_01010101() {
        assert_eq!(encrypt_bits("1110001110", "01010101"), "01110000");
    }

    #[test]
    fn key_1111111111_plain_10101010() {
        assert_eq!(encrypt_bits("1111111111", "10101010"), "00000100");
    }

    #[test]
    fn key_1010000010_plain_10010111() {
        assert_eq!(encrypt_bits("1010000010", "10010111"), "00111000");
    }

    #[test]
    fn key_1010000010_plain_00000011() {
        assert_eq!(encrypt_bits("1010000010", "00000011"), "11010000");
    }

    #[test]
    fn table_of_key_642() {
        let hex: String = table(642).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b55156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1efcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c896d8ad1412ccf940434a41a6f71e1bf2a");
    }

    fn seq_cipher(form: CipherForm, key: u16, plain: &[u8]) -> Vec<u8> {
        encrypted(|out| Cipher::new(form, key, plain.len()).encrypt_into(plain, out), plain.len())
    }

    #[test]
    fn quick_brown_fox_under_642_sha256() {
        let plain = b"The quick brown fox jumps over the lazy dog\n";
        for form in [CipherForm::Bitwise, CipherForm::Table] {
            assert_eq!(
                sha256_hex(&seq_cipher(form, 642, plain)),
                "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"
            );
        }
    }

    fn arbitrary_text(len: usize) -> Vec<u8> {
        (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()
    }

    const SHAPES: [Shape; 4] = [Shape::Seq, Shape::Rayon, Shape::RayonBroadcast, Shape::Threads];
    const CLASSES: [KernelClass; 2] = [KernelClass::Portable, KernelClass::Tuned];

    fn run_class(shape: Shape, class: KernelClass, form: CipherForm, key: u16, plain: &[u8], chunking: &Chunking) -> (Vec<u8>, Option<Ran>) {
        let mut out = vec![0; plain.len()];
        let ran = encrypt(Case { shape, class, form }, key, plain, &mut out, chunking, std::time::Instant::now()).unwrap();
        (out, ran)
    }

    fn run_model(shape: Shape, form: CipherForm, key: u16, plain: &[u8], chunking: &Chunking) -> (Vec<u8>, Option<Ran>) {
        run_class(shape, KernelClass::Tuned, form, key, plain, chunking)
    }

    fn workers_of(ran: Option<Ran>) -> Option<(usize, usize)> {
        ran.map(|r| (r.chunks, r.workers_used()))
    }

    #[test]
    fn every_model_and_cipher_agree_on_arbitrary_parameters() {
        let plain = arbitrary_text(100_003);
        for key in [0, 642, 1023, 517] {
            let expected = seq_cipher(CipherForm::Bitwise, key, &plain);
            for form in [CipherForm::Bitwise, CipherForm::Table] {
                for (workers, chunk) in [(1, None), (2, None), (3, Some(1)), (2, Some(7)), (3, Some(4096))] {
                    let chunking = Chunking::new(plain.len(), workers, CHUNK_CAP, chunk);
                    for shape in SHAPES {
                        for class in CLASSES {
                            let got = run_class(shape, class, form, key, &plain, &chunking).0;
                            assert_eq!(got, expected, "{shape:?} {class:?} {form:?} {chunking:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn parallel_models_report_the_chunks_of_the_rule() {
        // 4 MiB over 2 workers: chunks of 1 MiB (the cap), 4 of them. That Rayon gives each
        // worker a chunk is tested without timing in parallel.rs; threads deal them statically.
        let plain = arbitrary_text(4 << 20);
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        let (_, ran) = run_model(Shape::Rayon, CipherForm::Bitwise, 642, &plain, &chunking);
        assert_eq!(ran.map(|r| r.chunks), Some(4));
        let (_, ran) = run_model(Shape::RayonBroadcast, CipherForm::Bitwise, 642, &plain, &chunking);
        assert_eq!(workers_of(ran), Some((4, 2)));
        let (_, ran) = run_model(Shape::Threads, CipherForm::Bitwise, 642, &plain, &chunking);
        assert_eq!(workers_of(ran), Some((4, 2)));
        assert!(run_model(Shape::Seq, CipherForm::Table, 642, &plain, &chunking).1.is_none());
    }

    #[test]
    fn threads_use_every_worker_that_has_a_chunk_whatever_the_timing() {
        let plain = arbitrary_text(3);
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        let (_, ran) = run_model(Shape::Threads, CipherForm::Table, 642, &plain, &chunking);
        assert_eq!(workers_of(ran), Some((2, 2)));
    }

    #[test]
    fn streaming_copy_copies_every_byte_at_any_alignment() {
        let plain = arbitrary_text(1000);
        for (start, end) in [(0, 1000), (1, 999), (3, 20), (5, 5), (7, 8), (1, 200), (63, 1000)] {
            let mut out = vec![0; end - start];
            copy_streaming(&plain[start..end], &mut out);
            assert_eq!(out, &plain[start..end]);
        }
    }

    #[test]
    fn the_copy_ceiling_is_reported_for_every_model() {
        let plain = arbitrary_text(10_000);
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        for shape in SHAPES {
            let mut out = vec![0; plain.len()];
            let sample = with_copy_ceiling(Sample::new(crate::protocol::measure(|_| ()).1, 0, String::new()), shape, &plain, &mut out, &chunking).unwrap();
            assert_eq!(sample.extra["ceiling"], "copy");
            let ceiling_ns = sample.extra["ceiling_ns"].as_u64().unwrap();
            let baselines = ["baseline_memcpy_ns", "baseline_stream_ns", "baseline_vector_ns"];
            let fastest = baselines.iter().filter_map(|name| sample.extra.get(*name)?.as_u64()).min().unwrap();
            assert!(ceiling_ns > 0 && ceiling_ns == fastest);
            assert_eq!(out, plain, "the ceiling really copied ({shape:?})");
        }
    }

    #[test]
    fn portable_and_tuned_kernels_give_the_same_ciphertext_for_every_key() {
        let plain = arbitrary_text(70_001);
        for key in [0, 1, 642, 1023, 300] {
            for form in [CipherForm::Bitwise, CipherForm::Table] {
                let portable = encrypted(|out| Cipher::of_class(KernelClass::Portable, form, key, plain.len()).encrypt_into(&plain, out), plain.len());
                let tuned = encrypted(|out| Cipher::of_class(KernelClass::Tuned, form, key, plain.len()).encrypt_into(&plain, out), plain.len());
                assert_eq!(portable, tuned, "key {key} {form:?}");
            }
        }
    }

    #[test]
    fn the_portable_kernel_is_the_scalar_per_byte_cipher() {
        for form in [CipherForm::Bitwise, CipherForm::Table] {
            let cipher = Cipher::of_class(KernelClass::Portable, form, 642, 64 << 20);
            assert_eq!(cipher.kernel_name(), "scalar");
        }
        assert_eq!(Cipher::scalar(CipherForm::Bitwise, 1).kernel_detail(), "scalar per-byte permutations and Feistel rounds");
    }

    #[test]
    fn each_variant_key_gives_its_own_ciphertext() {
        // The variants of protocol 2 are keys: the fox under 642 is the spec's vector, and
        // other keys give other ciphertexts.
        let plain = b"The quick brown fox jumps over the lazy dog\n";
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        let hashes: Vec<String> = [642u16, 1023, 5]
            .iter()
            .map(|&key| sha256_hex(&run_class(Shape::Rayon, KernelClass::Portable, CipherForm::Bitwise, key, plain, &chunking).0))
            .collect();
        assert_eq!(hashes[0], "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf");
        assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2]);
    }

    #[test]
    fn the_simd_kernels_agree_with_the_scalar_path_for_every_key_and_byte() {
        let every_byte: Vec<u8> = (0..=255).collect();
        for key in 0..1024 {
            for form in [CipherForm::Bitwise, CipherForm::Table] {
                let simd = encrypted(|out| Cipher::new(form, key, 256).encrypt_into(&every_byte, out), 256);
                assert_eq!(simd, table(key), "key {key} {form:?}");
            }
        }
    }

    #[test]
    fn the_simd_kernels_handle_every_length_and_alignment() {
        let plain = arbitrary_text(5000);
        for form in [CipherForm::Bitwise, CipherForm::Table] {
            let scalar = Cipher::scalar(form, 517);
            for simd in [Cipher::new(form, 517, 0), Cipher::new(form, 517, STREAM_FROM_BYTES)] {
                for start in 0..3 {
                    for len in (0..300).chain([4093, 4096, 4099]) {
                        let part = &plain[start..start + len];
                        let expected = encrypted(|out| scalar.encrypt_into(part, out), len);
                        let name = simd.kernel_name();
                        assert_eq!(encrypted(|out| simd.encrypt_into(part, out), len), expected, "{name} start {start} len {len}");
                    }
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn this_cpu_runs_the_simd_kernels_it_has() {
        // Without this the agreement tests above could pass by comparing the scalar path with itself.
        let avx512bw = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw");
        let expect = |has: bool, name: &'static str| if has { name } else { "scalar" };
        assert_eq!(Cipher::new(CipherForm::Table, 1, 0).kernel_name(), expect(avx512bw && is_x86_feature_detected!("avx512vbmi"), "avx512-vbmi"));
        assert_eq!(Cipher::new(CipherForm::Bitwise, 1, 0).kernel_name(), expect(avx512bw && is_x86_feature_detected!("gfni"), "gfni-avx512"));
        assert_eq!(Cipher::scalar(CipherForm::Table, 1).kernel_name(), "scalar");
    }
}
