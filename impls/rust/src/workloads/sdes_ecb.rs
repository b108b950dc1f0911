//! sdes-ecb: S-DES (Schaefer 1996) in ECB mode over an in-memory file, one byte per block.

#[cfg(target_arch = "x86_64")]
mod nibble;
mod portable;
mod techniques;
#[cfg(target_arch = "x86_64")]
mod tuned;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::parallel::{run_chunks, time_chunks, Chunking, Ran, Shape, Workers};
use crate::protocol::{bad_args, crash, measure, repeat, timed, Call, Conversation, KernelClass, Outcome, Sample};
use crate::technique::Technique;
use crate::workloads::{chunked_models, Workload};
use techniques::{Chosen, REFERENCE};

pub const WORKLOAD: Workload = Workload {
    name: "sdes-ecb",
    params: &["input", "key", "cipher", "chunk"],
    models: &chunked_models("one loop over the whole input"),
    kernels: &[("portable", PORTABLE), ("tuned", TUNED)],
    run,
};

/// What each kernel class runs per chunk (`extra.kernel_detail` names the one that ran).
const PORTABLE: &str = "reference, transliterated";
const TUNED: &str = "the first technique this CPU runs, per cipher (extra.kernel_detail starts with its label): bitwise: gfni-avx512 (GF(2) bit matrices by GFNI vgf2p8affineqb, S0/S1 by vpshufb, 64 bytes a step with AVX-512), avx2 (every permutation two vpshufb nibble tables, 32 bytes a step), sse4.1 (the same, 16 bytes), reference; table: avx512-vbmi (vpermi2b, 64 bytes a step), avx2 (16 vpshufb rows and a vpblendvb tree, 32 bytes a step), sse4.1 (the same, 16 bytes), reference; the SIMD ones with non-temporal stores from 4 MiB of output; PARBENCH_SDES_TECHNIQUE=<label> forces one, exit 2 where it cannot run";

/// The contract's largest chunk: 1 MiB.
pub const CHUNK_CAP: usize = 1 << 20;

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
/// kernel that runs it: the portable kernel (`portable.rs`) for the portable class (`None`),
/// the chosen technique (`techniques.rs`) for the tuned one.
// One cipher per repetition, shared by reference with every worker: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy)]
pub enum Cipher {
    Bitwise { k1: u16, k2: u16, technique: Option<&'static Technique<BitwiseKernel>>, stream: bool },
    Table { table: [u8; 256], technique: Option<&'static Technique<TableKernel>>, stream: bool },
}

impl Cipher {
    /// The key schedule and kernel of a case for an output of `output_len` bytes.
    pub fn of_case(case: Case, key: u16, output_len: usize) -> Cipher {
        match case.class {
            KernelClass::Portable => Cipher::portable(case.form, key),
            KernelClass::Tuned => Cipher::tuned(case.form, case.techniques, key, output_len),
        }
    }

    /// The reference procedure: `subkeys`, and for `table` the key's table from `encrypt_byte`.
    pub fn portable(form: CipherForm, key: u16) -> Cipher {
        let (k1, k2) = portable::subkeys(key);
        match form {
            CipherForm::Bitwise => Cipher::Bitwise { k1, k2, technique: None, stream: false },
            CipherForm::Table => Cipher::Table { table: portable::table_of(k1, k2), technique: None, stream: false },
        }
    }

    /// The chosen techniques for an output of `output_len` bytes in all.
    pub fn tuned(form: CipherForm, chosen: Chosen, key: u16, output_len: usize) -> Cipher {
        let stream = output_len >= STREAM_FROM_BYTES;
        let (k1, k2) = portable::subkeys(key);
        let streams = |label: &str| stream && label != REFERENCE;
        match form {
            CipherForm::Bitwise => Cipher::Bitwise { k1, k2, technique: Some(chosen.bitwise), stream: streams(chosen.bitwise.label) },
            CipherForm::Table => {
                // The key's table is the bitwise cipher of every byte: with a SIMD kernel, a
                // few steps instead of 256 scalar ones.
                let mut table = [0u8; 256];
                let bitwise = Cipher::Bitwise { k1, k2, technique: Some(chosen.bitwise), stream: false };
                bitwise.encrypt_into(&std::array::from_fn::<u8, 256, _>(|plain| plain as u8), &mut table);
                Cipher::Table { table, technique: Some(chosen.table), stream: streams(chosen.table.label) }
            }
        }
    }

    /// The technique that runs (`None`: the portable class) and whether it streams.
    pub fn technique(&self) -> Option<(&'static str, String, bool)> {
        match *self {
            Cipher::Bitwise { technique: Some(t), stream, .. } => Some((t.label, t.describe(), stream)),
            Cipher::Table { technique: Some(t), stream, .. } => Some((t.label, t.describe(), stream)),
            _ => None,
        }
    }

    /// `extra.kernel_detail`: what ran, the technique's label first.
    pub fn kernel_detail(&self) -> String {
        match self.technique() {
            None => PORTABLE.into(),
            Some((_, described, true)) => format!("{described} (streaming stores on)"),
            Some((_, described, false)) => described,
        }
    }

    /// Encrypts `plain` into `out` (same length); the unit every model hands to a worker.
    pub fn encrypt_into(&self, plain: &[u8], out: &mut [u8]) {
        assert_eq!(plain.len(), out.len(), "a chunk's input and output have one length");
        match *self {
            // SAFETY: a technique is chosen only where the CPU has its instructions (detected
            // at run time), and the lengths are equal (asserted above).
            Cipher::Bitwise { k1, k2, technique: Some(t), stream } => unsafe { (t.kernel)(k1 as u8, k2 as u8, plain, out, stream) },
            Cipher::Table { ref table, technique: Some(t), stream } => unsafe { (t.kernel)(table, plain, out, stream) },
            Cipher::Bitwise { k1, k2, technique: None, .. } => portable::encrypt_bitwise(k1, k2, plain, out),
            Cipher::Table { ref table, technique: None, .. } => portable::encrypt_table(table, plain, out),
        }
    }
}

/// A kernel turns one input chunk into the output chunk of the same length.
pub trait Kernel: Fn(&[u8], &mut [u8]) + Sync + Send {}
impl<F: Fn(&[u8], &mut [u8]) + Sync + Send> Kernel for F {}

/// `kernel` as the fill of the output chunk that starts at input offset `first`.
fn over_input<'a>(plain: &'a [u8], kernel: &'a impl Kernel) -> impl Fn(&mut (), usize, &mut [u8]) + Sync + Send + 'a {
    move |_, first, out| kernel(&plain[first..first + out.len()], out)
}

/// What a repetition runs: the kernel class, the cipher form, and the techniques the tuned
/// class runs (chosen once, before the first repetition).
#[derive(Clone, Copy)]
pub struct Case {
    pub class: KernelClass,
    pub form: CipherForm,
    pub techniques: Chosen,
}

/// Runs the model over the whole input: the key schedule, starting the workers (cold), every
/// chunk, joining the workers (cold); `origin` is the clock's start. `None` for `seq`.
pub fn encrypt(case: Case, key: u16, workers: &Workers, plain: &[u8], out: &mut [u8], chunking: &Chunking, origin: std::time::Instant) -> Outcome<Option<Ran>> {
    let cipher = Cipher::of_case(case, key, out.len());
    let kernel = |plain: &[u8], out: &mut [u8]| cipher.encrypt_into(plain, out);
    run_chunks(workers, out, chunking, origin, || (), over_input(plain, &kernel))
}

/// The fastest plain copy Rust offers here, among three timed: `memcpy` (`copy_from_slice`),
/// non-temporal (streaming) stores, and the SIMD kernels' own loop with the identity as the block
/// function (ordinary stores). The fastest is `ceiling_ns` (its name in `ceiling`), the others
/// `baseline_*_ns`: each timed copy is reported once, so that the phases a line reports add up to
/// the time it took (protocol 3's clock check). All run on the model's workers with its chunks,
/// the workers already started, so the clock holds only the copying.
fn with_copy_ceiling(sample: Sample, workers: &Workers, plain: &[u8], out: &mut [u8], chunking: &Chunking) -> Outcome<Sample> {
    let memcpy = |plain: &[u8], out: &mut [u8]| out.copy_from_slice(plain);
    let mut copies = vec![("memcpy", time_chunks(workers, out, chunking, || (), over_input(plain, &memcpy))?),
                          ("stream", time_chunks(workers, out, chunking, || (), over_input(plain, &copy_streaming))?)];
    if let Some(vector_copy) = vector_copy_kernel() {
        // SAFETY: the kernel exists only where the CPU has its instructions; `over_input` passes
        // an input and an output of one length.
        let copy = |plain: &[u8], out: &mut [u8]| unsafe { vector_copy(plain, out, false) };
        copies.push(("vector", time_chunks(workers, out, chunking, || (), over_input(plain, &copy))?));
    }
    let (fastest, fastest_ns) = *copies.iter().min_by_key(|(_, ns)| *ns).expect("two copies at least");
    let mut sample = sample.with("ceiling", format!("copy ({fastest})")).with("ceiling_ns", fastest_ns as u64);
    for (name, ns) in copies.into_iter().filter(|(name, _)| *name != fastest) {
        sample = sample.with(&format!("baseline_{name}_ns"), ns as u64);
    }
    Ok(sample)
}

#[cfg(target_arch = "x86_64")]
fn vector_copy_kernel() -> Option<CopyKernel> {
    tuned::copy_kernel()
}

#[cfg(not(target_arch = "x86_64"))]
fn vector_copy_kernel() -> Option<CopyKernel> {
    None
}

/// A copy with non-temporal stores where the target has them (`tuned.rs`), else `memcpy`.
pub fn copy_streaming(plain: &[u8], out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    tuned::copy_streaming(plain, out);
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

/// A repetition's key: its variant, which must be a 10-bit value.
fn key_of(variant: u64, index: usize) -> Outcome<u16> {
    u16::try_from(variant)
        .ok()
        .filter(|&key| key <= 0b11_1111_1111)
        .ok_or_else(|| bad_args(format!("the variant of repetition {index} is a key: a 10-bit value (0..1023), got {variant}")))
}

fn run(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let shape = Shape::of(call);
    let class = call.kernel(true)?;
    let base_key = key_of(call.number("key", Some(642))?, 0).map_err(|_| bad_args("--key must be a 10-bit value (0..1023)"))?;
    let form = CipherForm::parse(&call.text("cipher", Some("table"))?)?;
    let techniques = match class {
        KernelClass::Tuned => Chosen::from_environment(form)?,
        KernelClass::Portable => Chosen::fastest(),
    };
    let case = Case { class, form, techniques };
    let path = call.text("input", None)?;
    let (plain, load_ns) = timed(|| std::fs::read(&path));
    let plain = plain.map_err(|e| crash(&format!("reading --input {path}"), e))?;
    let chunking = shape.chunking(call, plain.len(), CHUNK_CAP)?;
    let mut out = prefaulted_output(plain.len());
    let (workers, ready) = Workers::start(shape, chunking.workers, call.start)?;
    let mut common = Map::new();
    common.insert("load_ns".into(), Value::from(load_ns as u64));
    common.insert("kernel".into(), Value::from(class.name()));
    common.insert("kernel_detail".into(), Value::from(Cipher::of_case(case, base_key, plain.len()).kernel_detail()));
    repeat(talk, ready, &common, |rep| {
        let key = key_of(rep.variant, rep.index)?;
        let (ran, measured) = measure(|origin| encrypt(case, key, &workers, &plain, &mut out, &chunking, origin));
        let ran = ran?;
        let (checksum, checksum_ns) = timed(|| sha256_hex(&out));
        let mut sample = Sample::new(measured, plain.len() as u64, checksum).with("checksum_ns", checksum_ns as u64);
        if let Some(ran) = ran {
            sample = sample.with_ran(&chunking, &ran);
        }
        with_copy_ceiling(sample, &workers, &plain, &mut out, &chunking)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::every_shape_and_start;
    use crate::protocol::Start;

    fn encrypted(encrypt: impl FnOnce(&mut [u8]), len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        encrypt(&mut out);
        out
    }

    fn bits(text: &str) -> u16 {
        u16::from_str_radix(text, 2).unwrap()
    }

    /// The reference procedure on one byte, as the spec's vectors give it.
    fn encrypt_bits(key: &str, plain: &str) -> String {
        let (k1, k2) = portable::subkeys(bits(key));
        format!("{:08b}", portable::encrypt_byte(k1, k2, bits(plain)))
    }

    /// The key's table from the portable kernel.
    fn portable_table(key: u16) -> [u8; 256] {
        let (k1, k2) = portable::subkeys(key);
        portable::table_of(k1, k2)
    }

    #[test]
    fn key_1010000010_gives_k1_10100100_k2_01000011() {
        assert_eq!(portable::subkeys(bits("1010000010")), (0b1010_0100, 0b0100_0011));
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

    const TABLE_OF_KEY_642: &str = "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b55156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1efcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c896d8ad1412ccf940434a41a6f71e1bf2a";

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn table_of_key_642() {
        assert_eq!(hex(&portable_table(642)), TABLE_OF_KEY_642);
    }

    #[test]
    fn the_portable_bitwise_and_table_ciphers_give_the_table_of_key_642_for_bytes_0_to_255() {
        let every_byte: Vec<u8> = (0..=255).collect();
        for form in [CipherForm::Bitwise, CipherForm::Table] {
            let cipher = Cipher::portable(form, 642);
            assert_eq!(hex(&encrypted(|out| cipher.encrypt_into(&every_byte, out), 256)), TABLE_OF_KEY_642, "{form:?}");
        }
    }

    fn case(class: KernelClass, form: CipherForm) -> Case {
        Case { class, form, techniques: Chosen::fastest() }
    }

    fn cipher_of(class: KernelClass, form: CipherForm, key: u16, plain: &[u8]) -> Vec<u8> {
        encrypted(|out| Cipher::of_case(case(class, form), key, plain.len()).encrypt_into(plain, out), plain.len())
    }

    const CLASSES: [KernelClass; 2] = [KernelClass::Portable, KernelClass::Tuned];

    #[test]
    fn quick_brown_fox_under_642_sha256() {
        let plain = b"The quick brown fox jumps over the lazy dog\n";
        for class in CLASSES {
            for form in [CipherForm::Bitwise, CipherForm::Table] {
                assert_eq!(
                    sha256_hex(&cipher_of(class, form, 642, plain)),
                    "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf",
                    "{class:?} {form:?}"
                );
            }
        }
    }

    fn arbitrary_text(len: usize) -> Vec<u8> {
        (0..len as u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect()
    }


    fn run_class(workers: &Workers, class: KernelClass, form: CipherForm, key: u16, plain: &[u8], chunking: &Chunking) -> (Vec<u8>, Option<Ran>) {
        let mut out = vec![0; plain.len()];
        let ran = encrypt(case(class, form), key, workers, plain, &mut out, chunking, std::time::Instant::now()).unwrap();
        (out, ran)
    }

    fn workers_of(ran: Option<Ran>) -> Option<(usize, usize)> {
        ran.map(|r| (r.chunks, r.workers_used()))
    }

    #[test]
    fn every_model_and_cipher_agree_on_arbitrary_parameters() {
        let plain = arbitrary_text(100_003);
        for (count, chunk) in [(1, None), (2, None), (3, Some(1)), (2, Some(7)), (3, Some(4096))] {
            for workers in every_shape_and_start(count) {
                let chunking = Chunking::new(plain.len(), workers.count, CHUNK_CAP, chunk);
                for key in [0, 642, 1023, 517] {
                    let expected = cipher_of(KernelClass::Portable, CipherForm::Bitwise, key, &plain);
                    for form in [CipherForm::Bitwise, CipherForm::Table] {
                        for class in CLASSES {
                            let got = run_class(&workers, class, form, key, &plain, &chunking).0;
                            assert_eq!(got, expected, "{:?} {class:?} {form:?} {chunking:?}", workers.shape);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn parallel_models_report_the_chunks_of_the_rule_in_both_modes() {
        // 4 MiB over 2 workers: chunks of 1 MiB (the cap), 4 of them. That Rayon gives each
        // worker a chunk is tested without timing in parallel.rs; threads deal them statically.
        let plain = arbitrary_text(4 << 20);
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        for workers in every_shape_and_start(2) {
            let (_, ran) = run_class(&workers, KernelClass::Tuned, CipherForm::Bitwise, 642, &plain, &chunking);
            match workers.shape {
                Shape::Seq => assert!(ran.is_none()),
                Shape::Rayon => assert_eq!(ran.map(|r| r.chunks), Some(4)),
                _ => assert_eq!(workers_of(ran), Some((4, 2)), "{:?}", workers.shape),
            }
        }
    }

    #[test]
    fn threads_use_every_worker_that_has_a_chunk_whatever_the_timing() {
        let plain = arbitrary_text(3);
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        for start in [Start::Cold, Start::Warm] {
            let workers = Workers::start(Shape::Threads, 2, Some(start)).unwrap().0;
            let (_, ran) = run_class(&workers, KernelClass::Portable, CipherForm::Table, 642, &plain, &chunking);
            assert_eq!(workers_of(ran), Some((2, 2)), "{start:?}");
        }
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
    fn the_copy_ceiling_is_reported_for_every_shape_and_start() {
        let plain = arbitrary_text(10_000);
        for workers in every_shape_and_start(2) {
            let chunking = Chunking::new(plain.len(), workers.count, CHUNK_CAP, None);
            let mut out = vec![0; plain.len()];
            let sample = with_copy_ceiling(Sample::new(crate::protocol::measure(|_| ()).1, 0, String::new()), &workers, &plain, &mut out, &chunking).unwrap();
            let ceiling = sample.extra["ceiling"].as_str().unwrap().to_string();
            let ceiling_ns = sample.extra["ceiling_ns"].as_u64().unwrap();
            let names = ["memcpy", "stream", "vector"];
            let others: Vec<u64> = names.iter().filter_map(|name| sample.extra.get(&format!("baseline_{name}_ns"))?.as_u64()).collect();
            // The fastest copy is the ceiling, reported once; the others are baselines above it.
            assert!(ceiling.starts_with("copy (") && ceiling_ns > 0 && others.iter().all(|&ns| ns >= ceiling_ns), "{ceiling}");
            let winner = ceiling.trim_start_matches("copy (").trim_end_matches(')');
            assert!(!sample.extra.contains_key(&format!("baseline_{winner}_ns")));
            assert_eq!(out, plain, "the ceiling really copied ({:?})", workers.shape);
        }
    }

    #[test]
    fn portable_and_tuned_kernels_give_the_same_ciphertext_for_every_key() {
        let plain = arbitrary_text(70_001);
        for key in [0, 1, 642, 1023, 300] {
            for form in [CipherForm::Bitwise, CipherForm::Table] {
                let portable = cipher_of(KernelClass::Portable, form, key, &plain);
                assert_eq!(portable, cipher_of(KernelClass::Tuned, form, key, &plain), "key {key} {form:?}");
            }
        }
    }

    #[test]
    fn the_portable_kernel_runs_no_simd_and_says_it_is_the_reference() {
        for form in [CipherForm::Bitwise, CipherForm::Table] {
            let cipher = Cipher::of_case(case(KernelClass::Portable, form), 642, 64 << 20);
            assert!(cipher.technique().is_none());
            assert_eq!(cipher.kernel_detail(), "reference, transliterated");
        }
        assert_eq!(listed_portable(), "reference, transliterated");
    }

    fn listed_portable() -> &'static str {
        WORKLOAD.kernels.iter().find(|(class, _)| *class == "portable").unwrap().1
    }

    #[test]
    fn a_variant_key_beyond_10_bits_is_bad_arguments() {
        assert_eq!(key_of(1023, 0).unwrap(), 1023);
        assert!(matches!(key_of(1024, 3), Err(crate::protocol::Failure::BadArguments(_))));
    }

    #[test]
    fn each_variant_key_gives_its_own_ciphertext() {
        // The variants are keys: the fox under 642 is the spec's vector, and other keys give
        // other ciphertexts.
        let plain = b"The quick brown fox jumps over the lazy dog\n";
        let chunking = Chunking::new(plain.len(), 2, CHUNK_CAP, None);
        let workers = Workers::start(Shape::Rayon, 2, Some(Start::Warm)).unwrap().0;
        let hashes: Vec<String> = [642u16, 1023, 5]
            .iter()
            .map(|&key| sha256_hex(&run_class(&workers, KernelClass::Portable, CipherForm::Bitwise, key, plain, &chunking).0))
            .collect();
        assert_eq!(hashes[0], "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf");
        assert!(hashes[0] != hashes[1] && hashes[1] != hashes[2]);
    }

    /// Each technique of both forms (the other form's technique the fastest), with its
    /// label, or the reason it is skipped on this CPU.
    fn every_technique() -> Vec<(CipherForm, Chosen, &'static str)> {
        let bitwise = techniques::BITWISE.iter().filter(|t| crate::technique::runs_here_or_skips(t, "sdes-ecb bitwise"));
        let table = techniques::TABLE.iter().filter(|t| crate::technique::runs_here_or_skips(t, "sdes-ecb table"));
        let of = |form: CipherForm| move |label: &'static str| (form, Chosen::of(form, Some(label)).unwrap(), label);
        bitwise.map(|t| t.label).map(of(CipherForm::Bitwise)).chain(table.map(|t| t.label).map(of(CipherForm::Table))).collect()
    }

    /// Random bytes (SplitMix64 of `seed`), `len` of them.
    fn random_text(seed: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        crate::digest::splitmix64_fill(seed, 0, &mut out);
        out
    }

    #[test]
    fn every_technique_agrees_with_the_portable_kernel_on_random_inputs_for_every_key() {
        let every_byte: Vec<u8> = (0..=255).collect();
        for (form, chosen, label) in every_technique() {
            for key in 0..1024 {
                let plain = random_text(key as u64, 777 + key as usize % 64);
                let expected = cipher_of(KernelClass::Portable, form, key, &plain);
                for output_len in [plain.len(), STREAM_FROM_BYTES] {
                    let cipher = Cipher::tuned(form, chosen, key, output_len);
                    assert_eq!(encrypted(|out| cipher.encrypt_into(&plain, out), plain.len()), expected, "{label} key {key}");
                }
                let all = encrypted(|out| Cipher::tuned(form, chosen, key, 256).encrypt_into(&every_byte, out), 256);
                assert_eq!(all, portable_table(key), "{label} key {key}, every byte");
            }
        }
    }

    #[test]
    fn every_technique_handles_every_length_and_alignment() {
        let plain = arbitrary_text(5000);
        for (form, chosen, label) in every_technique() {
            let reference = Cipher::portable(form, 517);
            for simd in [Cipher::tuned(form, chosen, 517, 0), Cipher::tuned(form, chosen, 517, STREAM_FROM_BYTES)] {
                for start in 0..3 {
                    for len in (0..300).chain([4093, 4096, 4099]) {
                        let part = &plain[start..start + len];
                        let expected = encrypted(|out| reference.encrypt_into(part, out), len);
                        assert_eq!(encrypted(|out| simd.encrypt_into(part, out), len), expected, "{label} start {start} len {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_kernel_detail_starts_with_the_technique_that_ran() {
        for (form, chosen, label) in every_technique() {
            for (output_len, streaming) in [(1, false), (STREAM_FROM_BYTES, label != REFERENCE)] {
                let detail = Cipher::of_case(Case { class: KernelClass::Tuned, form, techniques: chosen }, 642, output_len).kernel_detail();
                assert!(detail.starts_with(&format!("{label}: ")), "{detail}");
                assert_eq!(detail.ends_with("(streaming stores on)"), streaming, "{detail}");
            }
        }
    }

    #[test]
    fn the_tuned_listing_names_every_technique_in_order() {
        let tuned = WORKLOAD.kernels.iter().find(|(class, _)| *class == "tuned").unwrap().1;
        for (form, labels) in [("bitwise", crate::technique::labels(&techniques::BITWISE)), ("table", crate::technique::labels(&techniques::TABLE))] {
            let listed = &tuned[tuned.find(&format!("{form}: ")).expect("the form is listed")..];
            let mut at = 0;
            for label in labels.split(", ") {
                at += listed[at..].find(label).unwrap_or_else(|| panic!("{form} {label} in order in {tuned}"));
            }
        }
    }
}
