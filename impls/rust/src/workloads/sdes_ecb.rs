//! sdes-ecb: S-DES (Schaefer 1996) in ECB mode over an in-memory file, one byte per block.

use std::sync::Mutex;

use rayon::prelude::*;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::protocol::{bad_args, crash, repeat, timed, Call, Outcome, Sample};
use crate::workloads::keygen::rayon_pool;

pub const MODELS: &[&str] = &["seq", "rayon", "threads"];
pub const DEFAULT_CHUNK: usize = 256 * 1024;

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

pub fn table(key: u16) -> [u8; 256] {
    let (k1, k2) = subkeys(key);
    std::array::from_fn(|plain| encrypt_byte(k1, k2, plain as u8))
}

#[derive(Clone, Copy)]
pub enum Cipher {
    Bitwise { k1: u8, k2: u8 },
    Table([u8; 256]),
}

impl Cipher {
    pub fn new(name: &str, key: u16) -> Outcome<Cipher> {
        match name {
            "bitwise" => {
                let (k1, k2) = subkeys(key);
                Ok(Cipher::Bitwise { k1, k2 })
            }
            "table" => Ok(Cipher::Table(table(key))),
            other => Err(bad_args(format!("unknown --cipher '{other}'; valid: bitwise, table"))),
        }
    }

    /// Encrypts `plain` into `out` (same length); the unit every model hands to a worker.
    pub fn encrypt_into(&self, plain: &[u8], out: &mut [u8]) {
        match self {
            Cipher::Bitwise { k1, k2 } => {
                for (c, &p) in out.iter_mut().zip(plain) {
                    *c = encrypt_byte(*k1, *k2, p);
                }
            }
            Cipher::Table(table) => {
                for (c, &p) in out.iter_mut().zip(plain) {
                    *c = table[p as usize];
                }
            }
        }
    }
}

pub fn encrypt_seq(cipher: &Cipher, plain: &[u8], out: &mut [u8]) {
    cipher.encrypt_into(plain, out);
}

pub fn encrypt_rayon(cipher: &Cipher, plain: &[u8], out: &mut [u8], chunk: usize) {
    out.par_chunks_mut(chunk)
        .zip(plain.par_chunks(chunk))
        .for_each(|(out, plain)| cipher.encrypt_into(plain, out));
}

/// `workers` scoped threads take the next chunk from a shared queue until none is left.
pub fn encrypt_threads(cipher: &Cipher, plain: &[u8], out: &mut [u8], chunk: usize, workers: usize) {
    // The output chunks are handed out through a queue of disjoint &mut slices, so no worker
    // ever touches another's bytes.
    let chunks = Mutex::new(out.chunks_mut(chunk).zip(plain.chunks(chunk)).collect::<Vec<_>>().into_iter());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let Some((out, plain)) = chunks.lock().expect("chunk queue").next() else { break };
                cipher.encrypt_into(plain, out);
            });
        }
    });
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

pub fn run(call: &Call) -> Outcome<()> {
    call.only_params(&["input", "key", "cipher", "chunk", "output", "workers"])?;
    let path = call.text("input", None)?;
    let key = call.number("key", Some(642))?;
    if key > 0b11_1111_1111 {
        return Err(bad_args(format!("--key must be a 10-bit value (0..1023), got {key}")));
    }
    let cipher = Cipher::new(&call.text("cipher", Some("table"))?, key as u16)?;
    let chunk = call.number("chunk", Some(DEFAULT_CHUNK as u64))? as usize;
    if chunk == 0 {
        return Err(bad_args("--chunk must be at least 1 byte"));
    }
    let (plain, load_ns) = timed(|| std::fs::read(&path));
    let plain = plain.map_err(|e| crash(&format!("reading --input {path}"), e))?;
    let items = plain.len() as u64;

    let mut common = Map::new();
    common.insert("load_ns".into(), Value::from(load_ns as u64));
    if call.model != "seq" {
        common.insert("workers".into(), Value::from(call.workers()?));
        common.insert("chunk".into(), Value::from(chunk));
    }
    // `fresh` (default) allocates the ciphertext inside the timed region, page faults and all,
    // as a program that produces a new buffer would; `reused` allocates and touches it once
    // before timing, leaving only the cipher's own memory traffic: the ceiling form.
    let reuse_output = match call.text("output", Some("fresh"))?.as_str() {
        "fresh" => false,
        "reused" => true,
        other => return Err(bad_args(format!("unknown --output '{other}'; valid: fresh, reused"))),
    };
    common.insert("output".into(), Value::from(if reuse_output { "reused" } else { "fresh" }));
    let mut reused = if reuse_output { vec![0xff; plain.len()] } else { Vec::new() };
    let workers = call.workers()?;
    let pool = if call.model == "rayon" { Some(rayon_pool(workers)?) } else { None };
    let encrypt: Box<dyn Fn(&mut [u8])> = match (call.model.as_str(), pool) {
        ("seq", _) => Box::new(|out| encrypt_seq(&cipher, &plain, out)),
        ("rayon", Some(pool)) => Box::new(move |out| pool.install(|| encrypt_rayon(&cipher, &plain, out, chunk))),
        ("threads", _) => Box::new(|out| encrypt_threads(&cipher, &plain, out, chunk, workers)),
        _ => return Err(call.unknown_model(MODELS)),
    };
    repeat(call, &common, || {
        let (checksum, ns) = if reuse_output {
            let ((), ns) = timed(|| encrypt(&mut reused));
            (sha256_hex(&reused), ns)
        } else {
            let (ciphertext, ns) = timed(|| {
                let mut out = vec![0; items as usize];
                encrypt(&mut out);
                out
            });
            (sha256_hex(&ciphertext), ns)
        };
        Ok(Sample::new(ns, items, checksum))
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

    fn encrypt(key: &str, plain: &str) -> String {
        let (k1, k2) = subkeys(bits(key));
        format!("{:08b}", encrypt_byte(k1, k2, bits(plain) as u8))
    }

    #[test]
    fn key_1010000010_gives_k1_10100100_k2_01000011() {
        assert_eq!(subkeys(bits("1010000010")), (0b1010_0100, 0b0100_0011));
    }

    #[test]
    fn key_0000000000_plain_10101010() {
        assert_eq!(encrypt("0000000000", "10101010"), "00010001");
    }

    #[test]
    fn key_1110001110_plain_10101010() {
        assert_eq!(encrypt("1110001110", "10101010"), "11001010");
    }

    #[test]
    fn key_1110001110_plain_01010101() {
        assert_eq!(encrypt("1110001110", "01010101"), "01110000");
    }

    #[test]
    fn key_1111111111_plain_10101010() {
        assert_eq!(encrypt("1111111111", "10101010"), "00000100");
    }

    #[test]
    fn key_1010000010_plain_10010111() {
        assert_eq!(encrypt("1010000010", "10010111"), "00111000");
    }

    #[test]
    fn key_1010000010_plain_00000011() {
        assert_eq!(encrypt("1010000010", "00000011"), "11010000");
    }

    #[test]
    fn table_of_key_642() {
        let hex: String = table(642).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b55156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1efcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c896d8ad1412ccf940434a41a6f71e1bf2a");
    }

    #[test]
    fn quick_brown_fox_under_642_sha256() {
        let plain = b"The quick brown fox jumps over the lazy dog\n";
        for name in ["bitwise", "table"] {
            let cipher = Cipher::new(name, 642).unwrap();
            assert_eq!(
                sha256_hex(&encrypted(|out| encrypt_seq(&cipher, plain, out), plain.len())),
                "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"
            );
        }
    }

    #[test]
    fn every_model_and_cipher_agree_on_arbitrary_parameters() {
        let plain: Vec<u8> = (0..100_003u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for key in [0, 642, 1023, 517] {
            let bitwise = Cipher::new("bitwise", key).unwrap();
            let expected = encrypted(|out| encrypt_seq(&bitwise, &plain, out), plain.len());
            for name in ["bitwise", "table"] {
                let cipher = Cipher::new(name, key).unwrap();
                assert_eq!(encrypted(|out| encrypt_seq(&cipher, &plain, out), plain.len()), expected);
                for chunk in [1, 7, 4096, 1 << 20] {
                    assert_eq!(encrypted(|out| encrypt_rayon(&cipher, &plain, out, chunk), plain.len()), expected);
                    assert_eq!(encrypted(|out| encrypt_threads(&cipher, &plain, out, chunk, 3), plain.len()), expected);
                }
            }
        }
    }
}
