//! keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32.

mod base32;

use aes::cipher::{KeyIvInit, StreamCipher};
use rand::rngs::OsRng;
use rand::TryRngCore;
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::checksum::{splitmix64_fill, OrderFreeDigest};
use crate::parallel::{run_chunks, time_chunks, Chunking, Ran, Shape};
use crate::protocol::{bad_args, repeat, timed, Call, Outcome, Sample};
use crate::usage::measured;
use crate::workloads::{Model, Workload};

pub use base32::encoded_len as base32_len;
use base32::Encoder;

pub const WORKLOAD: Workload = Workload {
    name: "keygen",
    params: &["count", "bytes", "source", "seed", "chunk"],
    models: &[
        Model { name: "seq", family: "seq", workers: false, params: &[], note: KEY_MAKING },
        Model {
            name: "rayon",
            family: "data-parallel",
            workers: true,
            params: &[],
            note: "every thread of a Rayon pool (ThreadPool::broadcast) takes the chunk of its own index, then claims the rest from an atomic counter, one OS-keyed generator per thread, into one Vec<String>; the pool (--workers threads) built and joined inside the timed region (build_scoped); keys made as seq",
        },
        Model {
            name: "threads",
            family: "threads",
            workers: true,
            params: &[],
            note: "--workers std::thread::scope threads, one OS-keyed generator each, chunks of the one Vec<String> dealt round-robin (static split); keys made as seq",
        },
    ],
    run,
};

/// How every model makes a key (`extra.base32` names the encoder that ran).
const KEY_MAKING: &str = "one String per key in one Vec<String>: the generator fills the key's bytes, Base32 (AVX-512 VBMI vpermb + vpmultishiftqb, 40 bytes to 64 characters a step, where the CPU has it, else 8 characters per 5-byte group) writes straight into the String's allocation; global allocator mimalloc";

pub const STRONG_SOURCE: &str = "AES-128 in counter mode (RustCrypto aes 0.8, AES-NI, and ctr 0.9; the keystream generator of OpenSSL's and NIST's CTR_DRBG), key and nonce from the OS (getrandom), one generator per worker/Rayon job";

/// The contract's largest chunk: 1024 keys.
pub const CHUNK_CAP: usize = 1024;

#[derive(Clone, Copy)]
enum Source {
    Strong,
    Seeded(u64),
}

/// The strong source: an AES-128-CTR keystream under a key and nonce read from the OS.
struct StrongGenerator(ctr::Ctr64BE<aes::Aes128>);

impl StrongGenerator {
    fn from_os() -> StrongGenerator {
        let mut seed = [0u8; 32];
        OsRng.try_fill_bytes(&mut seed).expect("the OS's random source answers");
        let (key, nonce) = seed.split_at(16);
        StrongGenerator(ctr::Ctr64BE::new(key.into(), nonce.into()))
    }

    fn fill(&mut self, out: &mut [u8]) {
        // The keystream is what the cipher XORs into its input; over zeros it is the output.
        out.fill(0);
        self.0.apply_keystream(out);
    }
}

/// What one worker needs to make keys: its own generator, the encoder and a scratch buffer
/// for the raw bytes.
struct KeyMaker {
    source: Source,
    generator: Option<StrongGenerator>,
    encoder: Encoder,
    raw: Vec<u8>,
}

impl KeyMaker {
    fn new(source: Source, key_bytes: usize) -> KeyMaker {
        let generator = match source {
            Source::Strong => Some(StrongGenerator::from_os()),
            Source::Seeded(_) => None,
        };
        KeyMaker { source, generator, encoder: Encoder::detect(), raw: vec![0; key_bytes] }
    }

    fn fill_raw(&mut self, index: usize) {
        match (self.source, self.generator.as_mut()) {
            (Source::Seeded(seed), _) => splitmix64_fill(seed, index as u64, &mut self.raw),
            (Source::Strong, Some(generator)) => generator.fill(&mut self.raw),
            (Source::Strong, None) => unreachable!("a strong KeyMaker always owns a generator"),
        }
    }

    fn key(&mut self, index: usize) -> String {
        self.fill_raw(index);
        self.encoder.encode(&self.raw)
    }

    /// Fills `slots` with the keys of indices `first..`.
    fn fill_chunk(&mut self, first: usize, slots: &mut [String]) {
        for (offset, slot) in slots.iter_mut().enumerate() {
            *slot = self.key(first + offset);
        }
    }
}

/// The keys of one repetition, made by `shape` into one collection the caller holds: workers
/// started, generators seeded, every key made, workers joined. `None` for `seq`.
fn make_keys(shape: Shape, key_bytes: usize, source: Source, chunking: &Chunking) -> Outcome<(Vec<String>, Option<Ran>)> {
    let mut keys = vec![String::new(); chunking.total];
    let ran = run_chunks(shape, &mut keys, chunking, || KeyMaker::new(source, key_bytes), |maker: &mut KeyMaker, first, slots: &mut [String]| {
        maker.fill_chunk(first, slots)
    })?;
    Ok((keys, ran))
}

/// The ceiling: the generator alone filling every key's bytes, then the encoder alone encoding
/// `count` keys of fixed bytes; same shape, workers and chunks (of nothing: `()` slots), the
/// workers already started, nothing kept.
fn with_ceiling(sample: Sample, shape: Shape, key_bytes: usize, source: Source, chunking: &Chunking) -> Outcome<Sample> {
    let mut units = vec![(); chunking.total];
    let csprng_ns = time_chunks(shape, &mut units, chunking, || KeyMaker::new(source, key_bytes), |maker: &mut KeyMaker, first, part: &mut [()]| {
        for index in first..first + part.len() {
            maker.fill_raw(index);
            std::hint::black_box(&maker.raw);
        }
    })?;
    let fixed = vec![0xa5u8; key_bytes];
    let encoder = || (Encoder::detect(), vec![0u8; base32_len(key_bytes)]);
    let base32_ns = time_chunks(shape, &mut units, chunking, encoder, |(encoder, text): &mut (Encoder, Vec<u8>), _, part: &mut [()]| {
        for _ in part.iter() {
            encoder.encode_into(&fixed, text);
            std::hint::black_box(&text);
        }
    })?;
    Ok(sample
        .with("ceiling", "csprng+base32")
        .with("ceiling_ns", (csprng_ns + base32_ns) as u64)
        .with("csprng_ns", csprng_ns as u64)
        .with("base32_ns", base32_ns as u64))
}

fn checksum(keys: &[String], source: Source) -> String {
    match source {
        Source::Strong => {
            let total_chars: u64 = keys.par_iter().map(|k| k.len() as u64).sum();
            format!("{}:{total_chars}", keys.len())
        }
        Source::Seeded(_) => keys
            .par_iter()
            .map(|k| {
                let mut d = OrderFreeDigest::default();
                d.add_item(k.as_bytes());
                d
            })
            .reduce(OrderFreeDigest::default, OrderFreeDigest::add)
            .hex(),
    }
}

fn run(call: &Call) -> Outcome<()> {
    let shape = Shape::of(call);
    let count = call.number("count", None)? as usize;
    let key_bytes = call.number("bytes", Some(1000))? as usize;
    let source = match call.text("source", Some("strong"))?.as_str() {
        "strong" => Source::Strong,
        "seeded" => Source::Seeded(call.number("seed", Some(0))?),
        other => return Err(bad_args(format!("unknown --source '{other}'; valid: strong, seeded"))),
    };
    let chunking = shape.chunking(call, count, CHUNK_CAP)?;
    let mut common = Map::new();
    common.insert("base32".into(), Value::from(Encoder::detect().name));
    repeat(call, &common, || {
        let ((made, ns), usage) = measured(|| timed(|| make_keys(shape, key_bytes, source, &chunking)));
        let (keys, ran) = made?;
        let mut sample = Sample::new(ns, count as u64, checksum(&keys, source)).with_usage(usage);
        if let Some(ran) = ran {
            sample = sample.with_ran(&chunking, ran);
        }
        let sample = with_ceiling(sample, shape, key_bytes, source, &chunking);
        drop(keys);
        sample
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: [Shape; 3] = [Shape::Seq, Shape::Rayon, Shape::Threads];

    fn keys(shape: Shape, count: usize, key_bytes: usize, source: Source, workers: usize, chunk: Option<usize>) -> (Vec<String>, Option<Ran>) {
        make_keys(shape, key_bytes, source, &Chunking::new(count, workers, CHUNK_CAP, chunk)).unwrap()
    }

    #[test]
    fn thousand_bytes_encode_to_1600_chars_without_padding() {
        let key = Encoder::detect().encode(&[0xa5; 1000]);
        assert_eq!(key.len(), 1600);
        assert!(!key.contains('='));
    }

    #[test]
    fn seeded_count3_bytes10_seed1() {
        let (made, _) = keys(Shape::Seq, 3, 10, Source::Seeded(1), 1, None);
        assert_eq!(checksum(&made, Source::Seeded(1)), "d3605c1b2c10e632");
    }

    #[test]
    fn every_model_agrees_on_arbitrary_parameters() {
        for (count, key_bytes, seed) in [(257, 1000, 7), (1000, 13, 99), (5, 1, 0), (0, 10, 1)] {
            let source = Source::Seeded(seed);
            let expected = checksum(&keys(Shape::Seq, count, key_bytes, source, 1, None).0, source);
            for shape in SHAPES {
                for (workers, chunk) in [(1, None), (2, None), (3, Some(1)), (8, None), (2, Some(100))] {
                    let (made, _) = keys(shape, count, key_bytes, source, workers, chunk);
                    assert_eq!(made.len(), count);
                    assert_eq!(checksum(&made, source), expected, "{shape:?} workers {workers} chunk {chunk:?}");
                }
            }
        }
    }

    #[test]
    fn parallel_models_report_the_chunks_of_the_rule() {
        // 4096 keys over 2 workers: chunks of 1024 (the cap), 4 of them. That Rayon gives each
        // worker a chunk is tested without timing in parallel.rs; threads deal them statically.
        let (_, ran) = keys(Shape::Rayon, 4096, 1000, Source::Strong, 2, None);
        assert_eq!(ran.map(|r| r.chunks), Some(4));
        let (_, ran) = keys(Shape::Threads, 4096, 1000, Source::Strong, 2, None);
        assert_eq!(ran, Some(Ran { chunks: 4, workers_used: 2 }));
        assert_eq!(keys(Shape::Seq, 10, 10, Source::Strong, 1, None).1, None);
    }

    #[test]
    fn the_chunk_override_is_what_runs() {
        let (_, ran) = keys(Shape::Threads, 1000, 10, Source::Strong, 2, Some(300));
        assert_eq!(ran, Some(Ran { chunks: 4, workers_used: 2 }));
    }

    #[test]
    fn the_strong_generator_is_aes128_ctr_under_its_key_and_nonce() {
        // FIPS-197 C.1's key and plaintext block: with the counter block as the nonce, the
        // first keystream block is the AES-128 encryption of that block.
        let key: Vec<u8> = (0..16).collect();
        let block: Vec<u8> = (0..16).map(|i| i * 0x11).collect();
        let mut generator = StrongGenerator(ctr::Ctr64BE::new(key.as_slice().into(), block.as_slice().into()));
        let mut out = [0xffu8; 16];
        generator.fill(&mut out);
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "69c4e0d86a7b0430d8cdb78070b4c55a");
    }

    #[test]
    fn strong_generators_differ_from_each_other() {
        let (mut a, mut b) = (StrongGenerator::from_os(), StrongGenerator::from_os());
        let (mut x, mut y) = ([0u8; 32], [0u8; 32]);
        a.fill(&mut x);
        b.fill(&mut y);
        assert_ne!(x, y);
    }

    #[test]
    fn strong_keys_have_the_encoded_length() {
        let (made, _) = keys(Shape::Rayon, 10, 1000, Source::Strong, 2, None);
        assert_eq!(checksum(&made, Source::Strong), "10:16000");
        assert_ne!(made[0], made[1]);
    }

    #[test]
    fn the_ceiling_and_its_parts_are_reported_for_every_model() {
        for shape in SHAPES {
            let chunking = Chunking::new(300, 2, CHUNK_CAP, None);
            let sample = with_ceiling(Sample::new(1, 0, String::new()), shape, 100, Source::Strong, &chunking).unwrap();
            let part = |name: &str| sample.extra[name].as_u64().unwrap();
            assert_eq!(sample.extra["ceiling"], "csprng+base32");
            assert!(part("csprng_ns") > 0 && part("base32_ns") > 0);
            assert_eq!(part("ceiling_ns"), part("csprng_ns") + part("base32_ns"));
        }
    }
}
