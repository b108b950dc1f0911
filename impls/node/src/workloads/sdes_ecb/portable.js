/**
 * sdes-ecb's portable kernel: the "Reference procedure" of docs/workloads/sdes-ecb.md,
 * transliterated (the spec's tables as arrays looped over, the S-boxes as 4×4 arrays, the same
 * order of operations). Whatever V8 makes of it is its own business; nothing here is tuned.
 */

export const P10 = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6];
export const P8 = [6, 3, 7, 4, 8, 5, 10, 9];
export const IP = [2, 6, 3, 1, 4, 8, 5, 7];
export const IP_INV = [4, 1, 3, 5, 7, 2, 8, 6];
export const EP = [4, 1, 2, 3, 2, 3, 4, 1];
export const P4 = [2, 4, 3, 1];
export const S0 = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
export const S1 = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];

/** The table's positions count from 1 = the most significant of `width` bits. */
export function permute(value, width, table) {
  let out = 0;
  for (let i = 0; i < table.length; i++) out = (out << 1) | ((value >> (width - table[i])) & 1);
  return out;
}

/** A left rotation of a 5-bit half. */
export function rotate5(half, by) {
  return ((half << by) | (half >> (5 - by))) & 0b11111;
}

/** The two round keys [K1, K2] of a 10-bit key. */
export function subkeys(key) {
  const p10 = permute(key, 10, P10);
  let left = rotate5(p10 >> 5, 1);
  let right = rotate5(p10 & 0b11111, 1);
  const k1 = permute((left << 5) | right, 10, P8);
  left = rotate5(left, 2);
  right = rotate5(right, 2);
  const k2 = permute((left << 5) | right, 10, P8);
  return [k1, k2];
}

/** Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input. */
export function sbox(box, bits4) {
  const row = (((bits4 >> 3) & 1) << 1) | (bits4 & 1);
  const column = (bits4 >> 1) & 0b11;
  return box[row][column];
}

/** f_K on an 8-bit block: left = the high 4 bits, right = the low 4. */
export function fK(block, subkey) {
  const left = block >> 4;
  const right = block & 0xf;
  const mixed = permute(right, 4, EP) ^ subkey;
  const s = (sbox(S0, mixed >> 4) << 2) | sbox(S1, mixed & 0xf);
  return ((left ^ permute(s, 4, P4)) << 4) | right;
}

export function encryptByte(k1, k2, plain) {
  const block = fK(permute(plain, 8, IP), k1);
  const swapped = ((block & 0xf) << 4) | (block >> 4);
  return permute(fK(swapped, k2), 8, IP_INV);
}

/**
 * The bitwise cipher over input[begin, end) into output, one block at a time through `rounds`:
 * this kernel's encryptByte, or the tuned kernel's (only the rounds differ between the two).
 */
export function encryptBitwise(k1, k2, input, output, begin, end, rounds = encryptByte) {
  for (let i = begin; i < end; i++) output[i] = rounds(k1, k2, input[i]);
}

/** The table cipher's key schedule: the ciphertext of every byte value through `rounds`. */
export function keyTable(k1, k2, rounds = encryptByte) {
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) table[b] = rounds(k1, k2, b);
  return table;
}

/** The table cipher over input[begin, end) into output. */
export function encryptTable(table, input, output, begin, end) {
  for (let i = begin; i < end; i++) output[i] = table[input[i]];
}
