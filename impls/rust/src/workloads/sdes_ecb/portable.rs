//! The portable kernel: docs/workloads/sdes-ecb.md's "Reference procedure", transliterated
//! (the spec's tables as arrays looped over as written, the S-boxes as 4×4 arrays, the same
//! names and order of operations). Plain Rust for the default target; what LLVM makes of it
//! is its own.

pub const P10: [u8; 10] = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6];
pub const P8: [u8; 8] = [6, 3, 7, 4, 8, 5, 10, 9];
pub const IP: [u8; 8] = [2, 6, 3, 1, 4, 8, 5, 7];
pub const IP_INV: [u8; 8] = [4, 1, 3, 5, 7, 2, 8, 6];
pub const EP: [u8; 8] = [4, 1, 2, 3, 2, 3, 4, 1];
pub const P4: [u8; 4] = [2, 4, 3, 1];
pub const S0: [[u8; 4]; 4] = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
pub const S1: [[u8; 4]; 4] = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];

/// The table's positions count from 1 = the most significant of `width` bits.
pub fn permute(value: u16, width: u16, table: &[u8]) -> u16 {
    let mut out = 0;
    for &position in table {
        out = (out << 1) | ((value >> (width - position as u16)) & 1);
    }
    out
}

/// A left rotation of a 5-bit half.
pub fn rotate5(half: u16, by: u16) -> u16 {
    ((half << by) | (half >> (5 - by))) & 0b11111
}

/// (K1, K2) of a 10-bit key.
pub fn subkeys(key: u16) -> (u16, u16) {
    let p10 = permute(key, 10, &P10);
    let (left, right) = (rotate5(p10 >> 5, 1), rotate5(p10 & 0b11111, 1));
    let k1 = permute((left << 5) | right, 10, &P8);
    let (left, right) = (rotate5(left, 2), rotate5(right, 2));
    let k2 = permute((left << 5) | right, 10, &P8);
    (k1, k2)
}

/// Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input. (`box` is a reserved word
/// in Rust, hence the raw identifier.)
pub fn sbox(r#box: &[[u8; 4]; 4], bits4: u16) -> u16 {
    let row = (((bits4 >> 3) & 1) << 1) | (bits4 & 1);
    let column = (bits4 >> 1) & 0b11;
    r#box[row as usize][column as usize] as u16
}

/// One Feistel round on an 8-bit block: left = the high 4 bits, right = the low 4.
pub fn f_k(block: u16, subkey: u16) -> u16 {
    let (left, right) = (block >> 4, block & 0xf);
    let mixed = permute(right, 4, &EP) ^ subkey;
    let s = (sbox(&S0, mixed >> 4) << 2) | sbox(&S1, mixed & 0xf);
    ((left ^ permute(s, 4, &P4)) << 4) | right
}

pub fn encrypt_byte(k1: u16, k2: u16, plain: u16) -> u16 {
    let block = f_k(permute(plain, 8, &IP), k1);
    let swapped = ((block & 0xf) << 4) | (block >> 4);
    permute(f_k(swapped, k2), 8, &IP_INV)
}

/// The bitwise cipher over one chunk (the key schedule is the caller's `subkeys`). One compiled
/// body for every model (`inline(never)`): LLVM otherwise inlined it into the parallel models'
/// closures and compiled that copy 3× faster than seq's, so seq and a parallel model did not run
/// the same machine code (seq 186 ms, threads ×1 61 ms at 16 MiB). What LLVM does inside it is
/// its own.
#[inline(never)]
pub fn encrypt_bitwise(k1: u16, k2: u16, input: &[u8], output: &mut [u8]) {
    for (out, &byte) in output.iter_mut().zip(input) {
        *out = encrypt_byte(k1, k2, byte as u16) as u8;
    }
}

/// The table cipher's table: `[encrypt_byte(k1, k2, b) for b in 0 … 255]`.
pub fn table_of(k1: u16, k2: u16) -> [u8; 256] {
    std::array::from_fn(|b| encrypt_byte(k1, k2, b as u16) as u8)
}

/// The table cipher over one chunk; one compiled body for every model, as `encrypt_bitwise`.
#[inline(never)]
pub fn encrypt_table(table: &[u8; 256], input: &[u8], output: &mut [u8]) {
    for (out, &byte) in output.iter_mut().zip(input) {
        *out = table[byte as usize];
    }
}
