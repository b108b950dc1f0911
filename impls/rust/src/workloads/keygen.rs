//! keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32.

use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use rayon::prelude::*;
use serde_json::Map;

use crate::checksum::{splitmix64_fill, OrderFreeDigest};
use crate::parallel::{run_chunks, time_chunks, Chunking, Ran, Shape};
use crate::protocol::{bad_args, repeat, timed, Call, Outcome, Sample};
use crate::workloads::{plain, Model, Workload};

pub const WORKLOAD: Workload = Workload {
    name: "keygen",
    params: &["count", "bytes", "source", "seed", "chunk"],
    models: &[
        plain("seq", "seq"),
        Model {
            name: "rayon",
            family: "data-parallel",
            workers: true,
            params: &[],
            note: "keys.par_chunks_mut(chunk).map_init(one OS-seeded generator per Rayon job) into one Vec<String>, on a pool of --workers threads built and joined inside the timed region (build_scoped)",
        },
        Model {
            name: "threads",
            family: "threads",
            workers: true,
            params: &[],
            note: "--workers std::thread::scope threads, one OS-seeded generator each, chunks of the one Vec<String> dealt round-robin (static split)",
        },
    ],
    run,
};

pub const STRONG_SOURCE: &str = "rand::rngs::StdRng (ChaCha12) seeded from the OS (getrandom), one generator per worker/job";

/// The contract's largest chunk: 1024 keys.
pub const CHUNK_CAP: usize = 1024;
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

#[derive(Clone, Copy)]
enum Source {
    Strong,
    Seeded(u64),
}

/// Characters of the Base32 text of `len` bytes, padding included.
pub fn base32_len(len: usize) -> usize {
    len.div_ceil(5) * 8
}

/// RFC 4648 Base32, lower case, padded with '=' to a multiple of 8 characters.
pub fn base32_lower(data: &[u8]) -> String {
    let mut out = vec![0u8; base32_len(data.len())];
    base32_lower_into(data, &mut out);
    String::from_utf8(out).expect("the Base32 alphabet is ASCII")
}

/// Base32 of `data` written into `out`, which holds exactly `base32_len(data.len())` bytes.
pub fn base32_lower_into(data: &[u8], out: &mut [u8]) {
    let mut groups = data.chunks_exact(5);
    let mut encoded = out.chunks_exact_mut(8);
    // Full 5-byte groups take the branch-free path: this loop is most of keygen's CPU time.
    for (group, chars) in (&mut groups).zip(&mut encoded) {
        let bits = group.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64);
        for (position, char) in chars.iter_mut().enumerate() {
            *char = ALPHABET[((bits >> (35 - 5 * position)) & 31) as usize];
        }
    }
    let tail = groups.remainder();
    if let Some(chars) = encoded.next() {
        let mut block = [0u8; 5];
        block[..tail.len()].copy_from_slice(tail);
        let bits = block.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64);
        // Each input byte yields 8/5 characters; the rest of the last group is padding.
        let significant = (tail.len() * 8).div_ceil(5);
        for (position, char) in chars.iter_mut().enumerate() {
            *char = if position < significant { ALPHABET[((bits >> (35 - 5 * position)) & 31) as usize] } else { b'=' };
        }
    }
}

/// What one worker needs to make keys: its own generator and a scratch buffer for the raw bytes.
struct KeyMaker {
    source: Source,
    rng: Option<StdRng>,
    raw: Vec<u8>,
}

impl KeyMaker {
    fn new(source: Source, key_bytes: usize) -> KeyMaker {
        let rng = match source {
            Source::Strong => Some(StdRng::from_os_rng()),
            Source::Seeded(_) => None,
        };
        KeyMaker { source, rng, raw: vec![0; key_bytes] }
    }

    fn fill_raw(&mut self, index: usize) {
        match (self.source, self.rng.as_mut()) {
            (Source::Seeded(seed), _) => splitmix64_fill(seed, index as u64, &mut self.raw),
            (Source::Strong, Some(rng)) => rng.fill_bytes(&mut self.raw),
            (Source::Strong, None) => unreachable!("a strong KeyMaker always owns a generator"),
        }
    }

    fn key(&mut self, index: usize) -> String {
        self.fill_raw(index);
        base32_lower(&self.raw)
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
    let base32_ns = time_chunks(shape, &mut units, chunking, || vec![0u8; base32_len(key_bytes)], |encoded: &mut Vec<u8>, _, part: &mut [()]| {
        for _ in part.iter() {
            base32_lower_into(&fixed, encoded);
            std::hint::black_box(&encoded);
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
    repeat(call, &Map::new(), || {
        let (made, ns) = timed(|| make_keys(shape, key_bytes, source, &chunking));
        let (keys, ran) = made?;
        let mut sample = Sample::new(ns, count as u64, checksum(&keys, source));
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
    fn base32_rfc4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "my======"),
            ("fo", "mzxq===="),
            ("foo", "mzxw6==="),
            ("foob", "mzxw6yq="),
            ("fooba", "mzxw6ytb"),
            ("foobar", "mzxw6ytboi======"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(base32_lower(plain.as_bytes()), encoded, "base32 of {plain:?}");
        }
    }

    #[test]
    fn thousand_bytes_encode_to_1600_chars_without_padding() {
        let key = base32_lower(&[0xa5; 1000]);
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
