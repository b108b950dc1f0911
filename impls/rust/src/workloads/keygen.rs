//! keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32.

mod base32;
mod tuned;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rand::RngCore;
use serde_json::{Map, Value};

use crate::digest::{splitmix64_fill, OrderFreeDigest};
use crate::parallel::{run_chunks, time_chunks, Chunking, Ran, Shape, Workers};
use crate::protocol::{bad_args, measure, repeat, timed, Call, Conversation, KernelClass, Outcome, Sample};
use crate::workloads::{chunked_models, Workload};

pub use base32::encoded_len as base32_len;
use tuned::{AesCtr, Encoder};

pub const WORKLOAD: Workload = Workload {
    name: "keygen",
    params: &["count", "bytes", "source", "seed", "chunk", "probes"],
    models: &chunked_models("one loop filling one Vec<String>"),
    kernels: &[("portable", PORTABLE), ("tuned", TUNED)],
    run,
};

/// Every model stores one String per key in one Vec<String> (slot i holds key i); the kernel
/// class decides the generator, the encoder and the allocator.
const PORTABLE: &str = "reference, transliterated: rand::rng() (ThreadRng: ChaCha12 from OsRng) fill_bytes per key, plain Base32 pushed to a String, system allocator";
const TUNED: &str = "AES-128-CTR keystream (RustCrypto aes+ctr, AES-NI) keyed from OsRng, one per worker + Base32 by the first encoder this CPU runs (extra.kernel_detail starts with its label): avx512-vbmi (vpermb/vpmultishiftqb, 40 bytes to 64 characters a step), avx2 (vpshufb/vpmulhuw, 20 bytes to 32), scalar (unchecked writes), the SIMD ones with non-temporal stores; PARBENCH_KEYGEN_TECHNIQUE=<label> forces one, exit 2 where it cannot run + mimalloc as the allocator";

pub const STRONG_SOURCE: &str = "portable: rand::rng() (ThreadRng, ChaCha12 from OsRng); tuned: AES-128-CTR keyed from OsRng (getrandom)";

/// The contract's largest chunk: 1024 keys.
pub const CHUNK_CAP: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Strong,
    Seeded(u64),
}

/// Where a worker's key bytes come from. Strong and seeded share everything else: the key
/// maker, the store and the encoder.
enum Generator {
    /// The portable kernel's: rand's thread-local CSPRNG, as a Rust user calls it.
    Thread(rand::rngs::ThreadRng),
    /// The tuned kernel's.
    Aes(AesCtr),
    /// Verification: SplitMix64 bytes(seed, index, n).
    Seeded(u64),
}

impl Generator {
    fn new(class: KernelClass, source: Source) -> Generator {
        match (source, class) {
            (Source::Seeded(seed), _) => Generator::Seeded(seed),
            (Source::Strong, KernelClass::Portable) => Generator::Thread(rand::rng()),
            (Source::Strong, KernelClass::Tuned) => Generator::Aes(AesCtr::from_os()),
        }
    }

    /// Key `index`'s bytes into `out`.
    fn fill(&mut self, index: usize, out: &mut [u8]) {
        match self {
            Generator::Thread(rng) => rng.fill_bytes(out),
            Generator::Aes(aes) => aes.fill(out),
            Generator::Seeded(seed) => splitmix64_fill(*seed, index as u64, out),
        }
    }
}

/// The Base32 encoder of a kernel class.
#[derive(Clone, Copy)]
enum Base32 {
    Plain,
    Tuned(Encoder),
}

impl Base32 {
    fn of(kernel: Kernel) -> Base32 {
        match kernel.class {
            KernelClass::Portable => Base32::Plain,
            KernelClass::Tuned => Base32::Tuned(kernel.encoder),
        }
    }

    fn encode(&self, data: &[u8]) -> String {
        match self {
            Base32::Plain => base32::base32(data),
            Base32::Tuned(encoder) => encoder.encode(data),
        }
    }

    /// The text into a buffer the caller reuses (the ceiling's encoder keeps nothing).
    fn encode_reusing(&self, data: &[u8], scratch: &mut Scratch) {
        match self {
            Base32::Plain => {
                scratch.text.clear();
                base32::push_base32(data, &mut scratch.text);
            }
            Base32::Tuned(encoder) => encoder.encode_into(data, &mut scratch.bytes),
        }
    }
}

struct Scratch {
    text: String,
    bytes: Vec<u8>,
}

/// What a repetition runs: the kernel class, the source of the key bytes, and the encoder the
/// tuned class runs (chosen once, before the first repetition).
#[derive(Clone, Copy)]
struct Kernel {
    class: KernelClass,
    source: Source,
    encoder: Encoder,
}

impl Kernel {
    /// `extra.kernel_detail`: the generator (or SplitMix64 in its place) and the encoder; for
    /// the tuned class, the encoder's label first.
    fn detail(&self) -> String {
        match (self.source, self.class) {
            (Source::Strong, KernelClass::Portable) => PORTABLE.into(),
            (Source::Seeded(_), KernelClass::Portable) => {
                "reference, transliterated: SplitMix64 bytes (seeded) in rand::rng()'s place, plain Base32 pushed to a String, system allocator".into()
            }
            (source, KernelClass::Tuned) => {
                let generator = match source {
                    Source::Seeded(_) => "SplitMix64 bytes (seeded) in the generator's place",
                    Source::Strong => "AES-128-CTR (AES-NI) keyed from OsRng",
                };
                let encoder = self.encoder.technique;
                format!("{}: {generator} + Base32 {} + mimalloc", encoder.label, encoder.detail)
            }
        }
    }
}

/// What one worker needs to make keys: its own generator, the encoder and a scratch buffer
/// for the raw bytes.
struct KeyMaker {
    generator: Generator,
    encoder: Base32,
    raw: Vec<u8>,
}

impl KeyMaker {
    fn new(kernel: Kernel, key_bytes: usize) -> KeyMaker {
        KeyMaker { generator: Generator::new(kernel.class, kernel.source), encoder: Base32::of(kernel), raw: vec![0; key_bytes] }
    }

    fn key(&mut self, index: usize) -> String {
        self.generator.fill(index, &mut self.raw);
        self.encoder.encode(&self.raw)
    }

    /// Fills `slots` with the keys of indices `first..`.
    fn fill_chunk(&mut self, first: usize, slots: &mut [String]) {
        for (offset, slot) in slots.iter_mut().enumerate() {
            *slot = self.key(first + offset);
        }
    }
}

/// The keys of one repetition, made on `workers` into one collection the caller holds (slot i
/// holds key i): workers started (cold), generators seeded, every key made, workers joined
/// (cold). `None` for `seq`.
fn make_keys(workers: &Workers, kernel: Kernel, key_bytes: usize, chunking: &Chunking, origin: Instant) -> Outcome<(Vec<String>, Option<Ran>)> {
    let mut keys = vec![String::new(); chunking.total];
    let ran = run_chunks(workers, &mut keys, chunking, origin, || KeyMaker::new(kernel, key_bytes), |maker: &mut KeyMaker, first, slots: &mut [String]| {
        maker.fill_chunk(first, slots)
    })?;
    Ok((keys, ran))
}

/// The ceiling: the generator alone filling every key's bytes, then the encoder alone encoding
/// `count` keys of fixed bytes; same kernel, workers and chunks (of nothing: `()` slots), the
/// workers already started, nothing kept.
fn with_ceiling(sample: Sample, workers: &Workers, kernel: Kernel, key_bytes: usize, chunking: &Chunking) -> Outcome<Sample> {
    let mut units = vec![(); chunking.total];
    let csprng_ns = time_chunks(workers, &mut units, chunking, || KeyMaker::new(kernel, key_bytes), |maker: &mut KeyMaker, first, part: &mut [()]| {
        for index in first..first + part.len() {
            maker.generator.fill(index, &mut maker.raw);
            std::hint::black_box(&maker.raw);
        }
    })?;
    let fixed = vec![0xa5u8; key_bytes];
    let encoder = Base32::of(kernel);
    let scratch = || Scratch { text: String::with_capacity(base32_len(key_bytes)), bytes: vec![0u8; base32_len(key_bytes)] };
    let base32_ns = time_chunks(workers, &mut units, chunking, scratch, |scratch: &mut Scratch, _, part: &mut [()]| {
        for _ in part.iter() {
            encoder.encode_reusing(&fixed, scratch);
            std::hint::black_box(&scratch);
        }
    })?;
    Ok(sample
        .with("ceiling", "csprng+base32")
        .with("ceiling_ns", (csprng_ns + base32_ns) as u64)
        .with("csprng_ns", csprng_ns as u64)
        .with("base32_ns", base32_ns as u64))
}

/// The order-free digest of the encoded keys (both sources), summed over the same chunks on
/// the model's own workers (not Rayon's global pool, whose threads an earlier repetition
/// would have made).
fn checksum(workers: &Workers, keys: &mut [String], chunking: &Chunking) -> Outcome<String> {
    let sum = AtomicU64::new(0);
    run_chunks(workers, keys, chunking, Instant::now(), || (), |_: &mut (), _, part: &mut [String]| {
        let mut digest = OrderFreeDigest::default();
        for key in part.iter() {
            digest.add_item(key.as_bytes());
        }
        // fetch_add wraps around, as the digest's sum mod 2^64 does.
        sum.fetch_add(digest.0, Ordering::Relaxed);
    })?;
    Ok(OrderFreeDigest(sum.into_inner()).hex())
}

fn run(call: &Call, talk: &mut Conversation) -> Outcome<()> {
    let shape = Shape::of(call);
    let class = call.kernel(true)?;
    let count = call.number("count", None)? as usize;
    let key_bytes = call.number("bytes", Some(1000))? as usize;
    let base_seed = call.number("seed", Some(0))?;
    let strong = match call.text("source", Some("strong"))?.as_str() {
        "strong" => true,
        "seeded" => false,
        other => return Err(bad_args(format!("unknown --source '{other}'; valid: strong, seeded"))),
    };
    let probes = call.numbers("probes")?;
    if let Some(p) = probes.iter().find(|&&p| p as usize >= count) {
        return Err(bad_args(format!("--probes index {p} is not a key index (0..{count})")));
    }
    let chunking = shape.chunking(call, count, CHUNK_CAP)?;
    let source_of = |seed| if strong { Source::Strong } else { Source::Seeded(seed) };
    let encoder = match class {
        KernelClass::Tuned => Encoder::from_environment()?,
        KernelClass::Portable => Encoder::fastest(),
    };
    let (workers, ready) = Workers::start(shape, chunking.workers, call.start)?;
    let mut common = Map::new();
    common.insert("kernel".into(), Value::from(class.name()));
    common.insert("kernel_detail".into(), Value::from(Kernel { class, source: source_of(base_seed), encoder }.detail()));
    repeat(talk, ready, &common, |rep| {
        // The variant is the seed; the strong source ignores it.
        let kernel = Kernel { class, source: source_of(rep.variant), encoder };
        let (made, measured) = measure(|origin| make_keys(&workers, kernel, key_bytes, &chunking, origin));
        let (mut keys, ran) = made?;
        let ((checksum, probed), checksum_ns) = timed(|| {
            let probed: Vec<Value> = probes.iter().map(|&p| Value::from(keys[p as usize].as_str())).collect();
            (checksum(&workers, &mut keys, &chunking), probed)
        });
        let mut sample = Sample::new(measured, count as u64, checksum?).with("checksum_ns", checksum_ns as u64);
        if !probes.is_empty() {
            sample = sample.with("probes", probed);
        }
        if let Some(ran) = ran {
            sample = sample.with_ran(&chunking, &ran);
        }
        let sample = with_ceiling(sample, &workers, kernel, key_bytes, &chunking)?;
        let ((), cleanup_ns) = timed(|| drop(keys));
        Ok(sample.with("cleanup_ns", cleanup_ns as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::every_shape_and_start;
    use crate::protocol::Start;

    const CLASSES: [KernelClass; 2] = [KernelClass::Portable, KernelClass::Tuned];

    fn seq() -> Workers {
        Workers::start(Shape::Seq, 1, None).unwrap().0
    }

    fn cold(shape: Shape, count: usize) -> Workers {
        Workers::start(shape, count, Some(Start::Cold)).unwrap().0
    }

    fn keys_of(workers: &Workers, class: KernelClass, count: usize, key_bytes: usize, source: Source, chunk: Option<usize>) -> (Vec<String>, Option<Ran>) {
        let chunking = Chunking::new(count, workers.count, CHUNK_CAP, chunk);
        make_keys(workers, Kernel { class, source, encoder: Encoder::fastest() }, key_bytes, &chunking, Instant::now()).unwrap()
    }

    fn keys(workers: &Workers, count: usize, key_bytes: usize, source: Source, chunk: Option<usize>) -> (Vec<String>, Option<Ran>) {
        keys_of(workers, KernelClass::Portable, count, key_bytes, source, chunk)
    }

    /// The digest as the run computes it, here on one thread.
    fn digest(keys: &[String]) -> String {
        let mut keys = keys.to_vec();
        let chunking = Chunking::new(keys.len(), 1, usize::MAX, None);
        checksum(&seq(), &mut keys, &chunking).unwrap()
    }

    fn workers_of(ran: Option<Ran>) -> Option<(usize, usize)> {
        ran.map(|r| (r.chunks, r.workers_used()))
    }

    #[test]
    fn thousand_bytes_encode_to_1600_chars_without_padding() {
        for class in CLASSES {
            let key = Base32::of(Kernel { class, source: Source::Strong, encoder: Encoder::fastest() }).encode(&[0xa5; 1000]);
            assert_eq!(key.len(), 1600);
            assert!(!key.contains('='));
        }
    }

    #[test]
    fn seeded_count3_bytes10_seed1_keys_and_digest() {
        for class in CLASSES {
            let (made, _) = keys_of(&seq(), class, 3, 10, Source::Seeded(1), None);
            assert_eq!(made, ["yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"], "{class:?}");
            assert_eq!(digest(&made), "d3605c1b2c10e632");
        }
    }

    #[test]
    fn the_digest_on_the_models_workers_is_the_digest_of_every_key() {
        let (made, _) = keys(&seq(), 3000, 10, Source::Seeded(5), None);
        let mut one_by_one = OrderFreeDigest::default();
        made.iter().for_each(|key| one_by_one.add_item(key.as_bytes()));
        for workers in every_shape_and_start(2) {
            let chunking = Chunking::new(made.len(), workers.count, CHUNK_CAP, None);
            assert_eq!(checksum(&workers, &mut made.clone(), &chunking).unwrap(), one_by_one.hex(), "{:?}", workers.shape);
        }
    }

    #[test]
    fn key_i_is_the_i_th_of_the_generation_order_in_every_shape_and_start() {
        // Probes read slot i: whatever order the chunks ran in, slot i holds key i.
        let (reference, _) = keys(&seq(), 300, 10, Source::Seeded(11), None);
        for workers in every_shape_and_start(2) {
            let (made, _) = keys(&workers, 300, 10, Source::Seeded(11), Some(7));
            assert_eq!([&made[0], &made[100], &made[256]], [&reference[0], &reference[100], &reference[256]], "{:?}", workers.shape);
        }
        let mut raw = [0u8; 10];
        splitmix64_fill(11, 256, &mut raw);
        assert_eq!(reference[256], base32::base32(&raw));
    }

    #[test]
    fn each_seed_variant_gives_its_own_keys() {
        let rayon = cold(Shape::Rayon, 2);
        let digests: Vec<String> = [11, 12, 13].iter().map(|&seed| digest(&keys(&rayon, 257, 100, Source::Seeded(seed), None).0)).collect();
        assert!(digests[0] != digests[1] && digests[1] != digests[2]);
    }

    #[test]
    fn portable_and_tuned_kernels_give_the_same_keys() {
        for (count, key_bytes, seed) in [(257, 1000, 7), (100, 13, 99), (5, 1, 0)] {
            let source = Source::Seeded(seed);
            let portable = keys_of(&seq(), KernelClass::Portable, count, key_bytes, source, None).0;
            let tuned = keys_of(&seq(), KernelClass::Tuned, count, key_bytes, source, None).0;
            assert_eq!(portable, tuned);
        }
    }

    #[test]
    fn every_model_and_kernel_agrees_on_arbitrary_parameters() {
        for (count, key_bytes, seed) in [(257, 1000, 7), (1000, 13, 99), (5, 1, 0), (0, 10, 1)] {
            let source = Source::Seeded(seed);
            let expected = digest(&keys(&seq(), count, key_bytes, source, None).0);
            for (worker_count, chunk) in [(1, None), (2, None), (3, Some(1)), (8, None), (2, Some(100))] {
                for workers in every_shape_and_start(worker_count) {
                    for class in CLASSES {
                        let (made, _) = keys_of(&workers, class, count, key_bytes, source, chunk);
                        assert_eq!(made.len(), count);
                        assert_eq!(digest(&made), expected, "{:?} {class:?} workers {worker_count} chunk {chunk:?}", workers.shape);
                    }
                }
            }
        }
    }

    #[test]
    fn parallel_models_report_the_chunks_of_the_rule_in_both_modes() {
        // 4096 keys over 2 workers: chunks of 1024 (the cap), 4 of them. That the broadcast
        // gives each worker a chunk is tested without timing in parallel.rs.
        for workers in every_shape_and_start(2) {
            let (_, ran) = keys(&workers, 4096, 1000, Source::Strong, None);
            match workers.shape {
                Shape::Seq => assert!(ran.is_none()),
                Shape::Threads => assert_eq!(workers_of(ran), Some((4, 2))),
                _ => assert_eq!(ran.map(|r| r.chunks), Some(4)),
            }
        }
    }

    #[test]
    fn the_chunk_override_is_what_runs() {
        let (_, ran) = keys(&cold(Shape::Threads, 2), 1000, 10, Source::Strong, Some(300));
        assert_eq!(workers_of(ran), Some((4, 2)));
    }

    #[test]
    fn strong_keys_differ_and_have_the_encoded_length_in_both_kernels() {
        for workers in [cold(Shape::Rayon, 2), Workers::start(Shape::Rayon, 2, Some(Start::Warm)).unwrap().0] {
            for class in CLASSES {
                let (made, _) = keys_of(&workers, class, 10, 1000, Source::Strong, None);
                assert!(made.iter().all(|k| k.len() == 1600));
                assert_ne!(made[0], made[1]);
                let (again, _) = keys_of(&workers, class, 10, 1000, Source::Strong, None);
                assert_ne!(digest(&made), digest(&again), "{class:?}");
            }
        }
    }

    #[test]
    fn the_tuned_detail_starts_with_the_encoder_that_ran_and_the_listing_names_each_in_order() {
        let listed = WORKLOAD.kernels.iter().find(|(class, _)| *class == "tuned").unwrap().1;
        let mut at = 0;
        for technique in tuned::ENCODERS.iter() {
            at += listed[at..].find(technique.label).unwrap_or_else(|| panic!("{} in order in {listed}", technique.label));
            let encoder = Encoder::labelled(Some(technique.label));
            if let Ok(encoder) = encoder {
                let detail = Kernel { class: KernelClass::Tuned, source: Source::Strong, encoder }.detail();
                assert!(detail.starts_with(&format!("{}: AES-128-CTR", technique.label)), "{detail}");
            }
        }
    }

    #[test]
    fn the_portable_kernel_is_listed_as_the_reference() {
        let listed = WORKLOAD.kernels.iter().find(|(class, _)| *class == "portable").unwrap().1;
        assert!(listed.starts_with("reference, transliterated: "), "{listed}");
        for source in [Source::Strong, Source::Seeded(1)] {
            assert!(Kernel { class: KernelClass::Portable, source, encoder: Encoder::fastest() }.detail().starts_with("reference, transliterated"));
        }
    }

    #[test]
    fn the_ceiling_and_its_parts_are_reported_for_every_shape_and_start() {
        for workers in every_shape_and_start(2) {
            for class in CLASSES {
                let chunking = Chunking::new(300, workers.count, CHUNK_CAP, None);
                let empty = Sample::new(crate::protocol::measure(|_| ()).1, 0, String::new());
                let sample = with_ceiling(empty, &workers, Kernel { class, source: Source::Strong, encoder: Encoder::fastest() }, 100, &chunking).unwrap();
                let part = |name: &str| sample.extra[name].as_u64().unwrap();
                assert_eq!(sample.extra["ceiling"], "csprng+base32");
                assert!(part("csprng_ns") > 0 && part("base32_ns") > 0);
                assert_eq!(part("ceiling_ns"), part("csprng_ns") + part("base32_ns"));
            }
        }
    }
}
