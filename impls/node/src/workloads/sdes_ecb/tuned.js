/**
 * sdes-ecb's tuned bitwise rounds: every permutation hand-expanded into shift-and-mask groups
 * (the bits that move by the same distance), the S-boxes flat, row and column bits moved into
 * place by masks. 2.5-3× the portable rounds; the tests hold them to the portable kernel for every
 * key and byte. The ECB loop and the table's key schedule are the portable kernel's
 * (`encryptBitwise`, `keyTable` in ./portable.js, handed these rounds). The tuned table cipher is
 * WebAssembly (../../table_lookup_wasm.js).
 */
/** IP = 2 6 3 1 4 8 5 7 */
export function initialPermutation(x) {
  return ((x << 4) & 0x40) | ((x << 2) & 0x04) | ((x << 1) & 0x80) | (x & 0x20) | ((x >>> 1) & 0x09) | ((x >>> 2) & 0x02) | ((x >>> 3) & 0x10);
}

/** IP⁻¹ = 4 1 3 5 7 2 8 6 */
export function inverseInitialPermutation(x) {
  return ((x << 3) & 0x80) | ((x << 2) & 0x08) | ((x << 1) & 0x12) | (x & 0x20) | ((x >>> 1) & 0x40) | ((x >>> 2) & 0x01) | ((x >>> 4) & 0x04);
}

/** E/P = 4 1 2 3 2 3 4 1, from the 4-bit right half to 8 bits. */
export function expandPermute(r) {
  return ((r << 7) & 0x80) | ((r << 3) & 0x70) | ((r << 1) & 0x0e) | ((r >>> 3) & 0x01);
}

/** P4 = 2 4 3 1 */
export function permute4(s) {
  return ((s << 2) & 0x04) | ((s << 1) & 0x08) | (s & 0x02) | ((s >>> 3) & 0x01);
}

// The S-boxes row by row, flat: entry row * 4 + column.
const S0_FLAT = Uint8Array.of(1, 0, 3, 2, 3, 2, 1, 0, 0, 2, 1, 3, 3, 1, 3, 2);
const S1_FLAT = Uint8Array.of(0, 1, 2, 3, 2, 0, 1, 3, 3, 0, 1, 0, 2, 1, 0, 3);

/** Row = bits 1 and 4, column = bits 2 and 3: the index row * 4 + column by masks. */
function sbox(box, nibble) {
  return box[(nibble & 0x08) | ((nibble & 0x01) << 2) | ((nibble >>> 1) & 0x03)];
}

function feistel(block, subkey) {
  const right = block & 0x0f;
  const mixed = expandPermute(right) ^ subkey;
  const substituted = (sbox(S0_FLAT, mixed >>> 4) << 2) | sbox(S1_FLAT, mixed & 0x0f);
  return block ^ (permute4(substituted) << 4);
}

/** One 8-bit block through IP, f_K1, SW, f_K2, IP^-1. */
export function encryptByte(k1, k2, plain) {
  const first = feistel(initialPermutation(plain), k1);
  const swapped = ((first & 0x0f) << 4) | (first >>> 4);
  return inverseInitialPermutation(feistel(swapped, k2));
}
