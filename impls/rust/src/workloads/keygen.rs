//! keygen: `count` random keys of `bytes` bytes, each encoded as lower-case RFC 4648 Base32.

use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::checksum::{splitmix64_fill, OrderFreeDigest};
use crate::protocol::{bad_args, repeat, timed, Call, Outcome, Sample};

pub const MODELS: &[&str] = &["seq", "rayon", "threads"];
pub const STRONG_SOURCE: &str = "rand::rngs::StdRng (ChaCha12) seeded from the OS (getrandom), one generator per worker/job";

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

#[derive(Clone, Copy)]
enum Source {
    Strong,
    Seeded(u64),
}

/// RFC 4648 Base32, lower case, padded with '=' to a multiple of 8 characters.
pub fn base32_lower(data: &[u8]) -> String {
    let mut out = vec![0u8; data.len().div_ceil(5) * 8];
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
    String::from_utf8(out).expect("the Base32 alphabet is ASCII")
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

    fn key(&mut self, index: u64) -> String {
        match (self.source, self.rng.as_mut()) {
            (Source::Seeded(seed), _) => splitmix64_fill(seed, index, &mut self.raw),
            (Source::Strong, Some(rng)) => rng.fill_bytes(&mut self.raw),
            (Source::Strong, None) => unreachable!("a strong KeyMaker always owns a generator"),
        }
        base32_lower(&self.raw)
    }
}

fn keys_seq(count: u64, key_bytes: usize, source: Source) -> Vec<String> {
    let mut maker = KeyMaker::new(source, key_bytes);
    (0..count).map(|i| maker.key(i)).collect()
}

fn keys_rayon(count: u64, key_bytes: usize, source: Source) -> Vec<String> {
    (0..count)
        .into_par_iter()
        .map_init(|| KeyMaker::new(source, key_bytes), |maker, i| maker.key(i))
        .collect()
}

/// One std::thread per worker, each making a contiguous slice of the indices.
fn keys_threads(count: u64, key_bytes: usize, source: Source, workers: usize) -> Vec<Vec<String>> {
    let per_worker = count.div_ceil(workers as u64);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers as u64)
            .map(|w| {
                let range = (w * per_worker).min(count)..((w + 1) * per_worker).min(count);
                scope.spawn(move || {
                    let mut maker = KeyMaker::new(source, key_bytes);
                    range.map(|i| maker.key(i)).collect::<Vec<String>>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a keygen worker panicked")).collect()
    })
}

fn checksum<'a>(keys: impl ParallelIterator<Item = &'a String>, count: u64, source: Source) -> String {
    match source {
        Source::Strong => {
            let total_chars: u64 = keys.map(|k| k.len() as u64).sum();
            format!("{count}:{total_chars}")
        }
        Source::Seeded(_) => keys
            .map(|k| {
                let mut d = OrderFreeDigest::default();
                d.add_item(k.as_bytes());
                d
            })
            .reduce(OrderFreeDigest::default, OrderFreeDigest::add)
            .hex(),
    }
}

pub fn run(call: &Call) -> Outcome<()> {
    call.only_params(&["count", "bytes", "source", "seed", "workers"])?;
    let count = call.number("count", None)?;
    let key_bytes = call.number("bytes", Some(1000))? as usize;
    let source = match call.text("source", Some("strong"))?.as_str() {
        "strong" => Source::Strong,
        "seeded" => Source::Seeded(call.number("seed", Some(0))?),
        other => return Err(bad_args(format!("unknown --source '{other}'; valid: strong, seeded"))),
    };
    let mut common = Map::new();
    if call.model != "seq" {
        common.insert("workers".into(), Value::from(call.workers()?));
    }
    match call.model.as_str() {
        "seq" => repeat(call, &common, || {
            let (keys, ns) = timed(|| keys_seq(count, key_bytes, source));
            Ok(Sample::new(ns, count, checksum(keys.par_iter(), count, source)))
        }),
        "rayon" => {
            let pool = rayon_pool(call.workers()?)?;
            repeat(call, &common, || {
                let (keys, ns) = timed(|| pool.install(|| keys_rayon(count, key_bytes, source)));
                Ok(Sample::new(ns, count, checksum(keys.par_iter(), count, source)))
            })
        }
        "threads" => {
            let workers = call.workers()?;
            repeat(call, &common, || {
                let (keys, ns) = timed(|| keys_threads(count, key_bytes, source, workers));
                Ok(Sample::new(ns, count, checksum(keys.par_iter().flatten(), count, source)))
            })
        }
        _ => Err(call.unknown_model(MODELS)),
    }
}

/// A Rayon pool of exactly `workers` threads, so `--workers` means what it says.
pub fn rayon_pool(workers: usize) -> Outcome<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| crate::protocol::Failure::Limit(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeded_digest(keys: &[String]) -> String {
        checksum(keys.par_iter(), keys.len() as u64, Source::Seeded(0))
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
        assert_eq!(seeded_digest(&keys_seq(3, 10, Source::Seeded(1))), "d3605c1b2c10e632");
    }

    #[test]
    fn every_model_agrees_on_arbitrary_parameters() {
        for (count, key_bytes, seed) in [(257, 1000, 7), (1000, 13, 99), (5, 1, 0)] {
            let source = Source::Seeded(seed);
            let expected = seeded_digest(&keys_seq(count, key_bytes, source));
            assert_eq!(seeded_digest(&keys_rayon(count, key_bytes, source)), expected);
            for workers in [1, 2, 3, 8] {
                let keys: Vec<String> = keys_threads(count, key_bytes, source, workers).concat();
                assert_eq!(seeded_digest(&keys), expected);
            }
        }
    }

    #[test]
    fn strong_keys_have_the_encoded_length() {
        let keys = keys_rayon(10, 1000, Source::Strong);
        assert_eq!(checksum(keys.par_iter(), 10, Source::Strong), "10:16000");
        assert_ne!(keys[0], keys[1]);
    }
}
