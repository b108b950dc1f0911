//! keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32.

mod base32;

use aes::cipher::{KeyIvInit, StreamCipher};
use rand::rngs::OsRng;
use rand::{RngCore, TryRngCore};
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::checksum::{splitmix64_fill, OrderFreeDigest};
use crate::parallel::{run_chunks, time_chunks, Chunking, Ran, Shape, RAYON_BROADCAST_NOTE, RAYON_NOTE, THREADS_NOTE};
use crate::protocol::{bad_args, measure, repeat, timed, Call, KernelClass, Outcome, Sample};
use crate::workloads::{Model, Workload};

pub use base32::encoded_len as base32_len;
use base32::Encoder;

pub const WORKLOAD: Workload = Workload {
    name: "keygen",
    params: &["count", "bytes", "source", "seed", "chunk", "probes"],
    models: &[
        Model { name: "seq", family: "seq", workers: false, params: &[], note: "one loop filling one Vec<String>" },
        Model { name: "rayon", family: "data-parallel", workers: true, params: &[], note: RAYON_NOTE },
        Model { name: "rayon-broadcast", family: "data-parallel", workers: true, params: &[], note: RAYON_BROADCAST_NOTE },
        Model { name: "threads", family: "threads", workers: true, params: &[], note: THREADS_NOTE },
    ],
    kernels: &[("portable", PORTABLE), ("tuned", TUNED)],
    run,
};

/// Every model stores one String per key in one Vec<String> (slot i holds key i); the kernel
/// class decides the generator, the encoder and the allocator.
const PORTABLE: &str = "rand::rng() (ThreadRng: ChaCha12 seeded and reseeded from OsRng, one per thread) fill_bytes per key + plain Base32 (8 characters per 5-byte group pushed to a String); system allocator";
const TUNED: &str = "AES-128-CTR keystream (RustCrypto aes+ctr, AES-NI) keyed from OsRng, one per worker + Base32 with AVX-512 VBMI vpermb/vpmultishiftqb (40 bytes to 64 characters a step, non-temporal stores; unchecked scalar writes where the CPU lacks VBMI) + mimalloc as the allocator";

pub const STRONG_SOURCE: &str = "portable: rand::rng() (ThreadRng, ChaCha12 from OsRng); tuned: AES-128-CTR keyed from OsRng (getrandom)";

/// The contract's largest chunk: 1024 keys.
pub const CHUNK_CAP: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Strong,
    Seeded(u64),
}

/// The tuned kernel's strong generator: an AES-128-CTR keystream under a key and nonce read
/// from the OS (the keystream generator of NIST's CTR_DRBG; 128-bit security).
struct AesCtr(ctr::Ctr64BE<aes::Aes128>);

impl AesCtr {
    fn from_os() -> AesCtr {
        let mut seed = [0u8; 32];
        OsRng.try_fill_bytes(&mut seed).expect("the OS's random source answers");
        let (key, nonce) = seed.split_at(16);
        AesCtr(ctr::Ctr64BE::new(key.into(), nonce.into()))
    }

    fn fill(&mut self, out: &mut [u8]) {
        // The keystream is what the cipher XORs into its input; over zeros it is the output.
        out.fill(0);
        self.0.apply_keystream(out);
    }
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
    fn of(class: KernelClass) -> Base32 {
        match class {
            KernelClass::Portable => Base32::Plain,
            KernelClass::Tuned => Base32::Tuned(Encoder::detect()),
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

/// What a repetition runs: the kernel class and the source of the key bytes.
#[derive(Clone, Copy, Debug)]
struct Kernel {
    class: KernelClass,
    source: Source,
}

impl Kernel {
    /// `extra.kernel_detail`: the generator (or SplitMix64 in its place) and the encoder.
    fn detail(&self) -> String {
        let generator = match (self.source, self.class) {
            (Source::Seeded(_), _) => "SplitMix64 bytes (seeded) in the generator's place",
            (Source::Strong, KernelClass::Portable) => "rand::rng() ThreadRng fill_bytes",
            (Source::Strong, KernelClass::Tuned) => "AES-128-CTR (AES-NI) keyed from OsRng",
        };
        match Base32::of(self.class) {
            Base32::Plain => format!("{generator} + plain Base32"),
            Base32::Tuned(encoder) => format!("{generator} + Base32 {} + mimalloc", encoder.name),
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
        KeyMaker { generator: Generator::new(kernel.class, kernel.source), encoder: Base32::of(kernel.class), raw: vec![0; key_bytes] }
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

/// The keys of one repetition, made by `shape` into one collection the caller holds (slot i
/// holds key i): workers started, generators seeded, every key made, workers joined. `None`
/// for `seq`.
fn make_keys(shape: Shape, kernel: Kernel, key_bytes: usize, chunking: &Chunking, origin: std::time::Instant) -> Outcome<(Vec<String>, Option<Ran>)> {
    let mut keys = vec![String::new(); chunking.total];
    let ran = run_chunks(shape, &mut keys, chunking, origin, || KeyMaker::new(kernel, key_bytes), |maker: &mut KeyMaker, first, slots: &mut [String]| {
        maker.fill_chunk(first, slots)
    })?;
    Ok((keys, ran))
}

/// The ceiling: the generator alone filling every key's bytes, then the encoder alone encoding
/// `count` keys of fixed bytes; same kernel, shape, workers and chunks (of nothing: `()`
/// slots), the workers already started, nothing kept.
fn with_ceiling(sample: Sample, shape: Shape, kernel: Kernel, key_bytes: usize, chunking: &Chunking) -> Outcome<Sample> {
    let mut units = vec![(); chunking.total];
    let csprng_ns = time_chunks(shape, &mut units, chunking, || KeyMaker::new(kernel, key_bytes), |maker: &mut KeyMaker, first, part: &mut [()]| {
        for index in first..first + part.len() {
            maker.generator.fill(index, &mut maker.raw);
            std::hint::black_box(&maker.raw);
        }
    })?;
    let fixed = vec![0xa5u8; key_bytes];
    let encoder = Base32::of(kernel.class);
    let scratch = || Scratch { text: String::with_capacity(base32_len(key_bytes)), bytes: vec![0u8; base32_len(key_bytes)] };
    let base32_ns = time_chunks(shape, &mut units, chunking, scratch, |scratch: &mut Scratch, _, part: &mut [()]| {
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

/// The order-free digest of the encoded keys (both sources).
fn checksum(keys: &[String]) -> String {
    keys.par_iter()
        .map(|k| {
            let mut d = OrderFreeDigest::default();
            d.add_item(k.as_bytes());
            d
        })
        .reduce(OrderFreeDigest::default, OrderFreeDigest::add)
        .hex()
}

fn run(call: &Call) -> Outcome<()> {
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
    let mut common = Map::new();
    common.insert("kernel".into(), Value::from(class.name()));
    common.insert("kernel_detail".into(), Value::from(Kernel { class, source: source_of(base_seed) }.detail()));
    repeat(call, &common, |rep| {
        // The variant is the seed; the strong source ignores it.
        let kernel = Kernel { class, source: source_of(rep.variant(call, base_seed)) };
        let (made, measured) = measure(|origin| make_keys(shape, kernel, key_bytes, &chunking, origin));
        let (keys, ran) = made?;
        let ((checksum, probed), checksum_ns) = timed(|| {
            let probed: Vec<Value> = probes.iter().map(|&p| Value::from(keys[p as usize].as_str())).collect();
            (checksum(&keys), probed)
        });
        let mut sample = Sample::new(measured, count as u64, checksum).with("checksum_ns", checksum_ns as u64);
        if !probes.is_empty() {
            sample = sample.with("probes", probed);
        }
        if let Some(ran) = ran {
            sample = sample.with_ran(&chunking, &ran);
        }
        let sample = with_ceiling(sample, shape, kernel, key_bytes, &chunking)?;
        let ((), cleanup_ns) = timed(|| drop(keys));
        Ok(sample.with("cleanup_ns", cleanup_ns as u64))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: [Shape; 4] = [Shape::Seq, Shape::Rayon, Shape::RayonBroadcast, Shape::Threads];
    const CLASSES: [KernelClass; 2] = [KernelClass::Portable, KernelClass::Tuned];

    fn keys_of(shape: Shape, class: KernelClass, count: usize, key_bytes: usize, source: Source, workers: usize, chunk: Option<usize>) -> (Vec<String>, Option<Ran>) {
        let chunking = Chunking::new(count, workers, CHUNK_CAP, chunk);
        make_keys(shape, Kernel { class, source }, key_bytes, &chunking, std::time::Instant::now()).unwrap()
    }

    fn keys(shape: Shape, count: usize, key_bytes: usize, source: Source, workers: usize, chunk: Option<usize>) -> (Vec<String>, Option<Ran>) {
        keys_of(shape, KernelClass::Portable, count, key_bytes, source, workers, chunk)
    }

    fn workers_of(ran: Option<Ran>) -> Option<(usize, usize)> {
        ran.map(|r| (r.chunks, r.workers_used()))
    }

    #[test]
    fn thousand_bytes_encode_to_1600_chars_without_padding() {
        for class in CLASSES {
            let key = Base32::of(class).encode(&[0xa5; 1000]);
            assert_eq!(key.len(), 1600);
            assert!(!key.contains('='));
        }
    }

    #[test]
    fn seeded_count3_bytes10_seed1_keys_and_digest() {
        for class in CLASSES {
            let (made, _) = keys_of(Shape::Seq, class, 3, 10, Source::Seeded(1), 1, None);
            assert_eq!(made, ["yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"], "{class:?}");
            assert_eq!(checksum(&made), "d3605c1b2c10e632");
        }
    }

    #[test]
    fn key_i_is_the_i_th_of_the_generation_order_in_every_model() {
        // Probes read slot i: whatever order the chunks ran in, slot i holds key i.
        let (reference, _) = keys(Shape::Seq, 300, 10, Source::Seeded(11), 1, None);
        for shape in SHAPES {
            let (made, _) = keys(shape, 300, 10, Source::Seeded(11), 2, Some(7));
            assert_eq!([&made[0], &made[100], &made[256]], [&reference[0], &reference[100], &reference[256]], "{shape:?}");
        }
        let mut raw = [0u8; 10];
        splitmix64_fill(11, 256, &mut raw);
        assert_eq!(reference[256], base32::base32(&raw));
    }

    #[test]
    fn each_seed_variant_gives_its_own_keys() {
        let digests: Vec<String> = [11, 12, 13].iter().map(|&seed| checksum(&keys(Shape::Rayon, 257, 100, Source::Seeded(seed), 2, None).0)).collect();
        assert!(digests[0] != digests[1] && digests[1] != digests[2]);
    }

    #[test]
    fn portable_and_tuned_kernels_give_the_same_keys() {
        for (count, key_bytes, seed) in [(257, 1000, 7), (100, 13, 99), (5, 1, 0)] {
            let source = Source::Seeded(seed);
            let portable = keys_of(Shape::Seq, KernelClass::Portable, count, key_bytes, source, 1, None).0;
            let tuned = keys_of(Shape::Seq, KernelClass::Tuned, count, key_bytes, source, 1, None).0;
            assert_eq!(portable, tuned);
        }
    }

    #[test]
    fn every_model_and_kernel_agrees_on_arbitrary_parameters() {
        for (count, key_bytes, seed) in [(257, 1000, 7), (1000, 13, 99), (5, 1, 0), (0, 10, 1)] {
            let source = Source::Seeded(seed);
            let expected = checksum(&keys(Shape::Seq, count, key_bytes, source, 1, None).0);
            for shape in SHAPES {
                for class in CLASSES {
                    for (workers, chunk) in [(1, None), (2, None), (3, Some(1)), (8, None), (2, Some(100))] {
                        let (made, _) = keys_of(shape, class, count, key_bytes, source, workers, chunk);
                        assert_eq!(made.len(), count);
                        assert_eq!(checksum(&made), expected, "{shape:?} {class:?} workers {workers} chunk {chunk:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn parallel_models_report_the_chunks_of_the_rule() {
        // 4096 keys over 2 workers: chunks of 1024 (the cap), 4 of them. That the broadcast
        // gives each worker a chunk is tested without timing in parallel.rs.
        let (_, ran) = keys(Shape::Rayon, 4096, 1000, Source::Strong, 2, None);
        assert_eq!(ran.map(|r| r.chunks), Some(4));
        let (_, ran) = keys(Shape::Threads, 4096, 1000, Source::Strong, 2, None);
        assert_eq!(workers_of(ran), Some((4, 2)));
        assert!(keys(Shape::Seq, 10, 10, Source::Strong, 1, None).1.is_none());
    }

    #[test]
    fn the_chunk_override_is_what_runs() {
        let (_, ran) = keys(Shape::Threads, 1000, 10, Source::Strong, 2, Some(300));
        assert_eq!(workers_of(ran), Some((4, 2)));
    }

    #[test]
    fn the_tuned_generator_is_aes128_ctr_under_its_key_and_nonce() {
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
    fn strong_keys_differ_and_have_the_encoded_length_in_both_kernels() {
        for class in CLASSES {
            let (made, _) = keys_of(Shape::Rayon, class, 10, 1000, Source::Strong, 2, None);
            assert!(made.iter().all(|k| k.len() == 1600));
            assert_ne!(made[0], made[1]);
            let (again, _) = keys_of(Shape::Rayon, class, 10, 1000, Source::Strong, 2, None);
            assert_ne!(checksum(&made), checksum(&again), "{class:?}");
        }
    }

    #[test]
    fn the_ceiling_and_its_parts_are_reported_for_every_model() {
        for shape in SHAPES {
            for class in CLASSES {
                let chunking = Chunking::new(300, 2, CHUNK_CAP, None);
                let empty = Sample::new(crate::protocol::measure(|_| ()).1, 0, String::new());
                let sample = with_ceiling(empty, shape, Kernel { class, source: Source::Strong }, 100, &chunking).unwrap();
                let part = |name: &str| sample.extra[name].as_u64().unwrap();
                assert_eq!(sample.extra["ceiling"], "csprng+base32");
                assert!(part("csprng_ns") > 0 && part("base32_ns") > 0);
                assert_eq!(part("ceiling_ns"), part("csprng_ns") + part("base32_ns"));
            }
        }
    }
}
