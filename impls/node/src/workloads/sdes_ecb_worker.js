/**
 * S-DES itself and what a sdes-ecb worker thread runs. Kept apart from the workload's protocol
 * side so that each worker, which boots its own isolate every repetition, loads only this.
 */
import { chunkBounds, claimChunks } from '../chunking.js';
import { BusyInterval } from '../protocol.js';

// Positions are 1-based from the most significant bit, as in the spec.
const P10 = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6];
const P8 = [6, 3, 7, 4, 8, 5, 10, 9];
const IP = [2, 6, 3, 1, 4, 8, 5, 7];
const IP_INVERSE = [4, 1, 3, 5, 7, 2, 8, 6];
const EP = [4, 1, 2, 3, 2, 3, 4, 1];
const P4 = [2, 4, 3, 1];
const S0 = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
const S1 = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];

/** Output bit k is input bit table[k], counting from 1 at the most significant of `width` bits. */
export function permute(value, width, table) {
  let result = 0;
  for (let i = 0; i < table.length; i++) result = (result << 1) | ((value >>> (width - table[i])) & 1);
  return result;
}

function rotateLeft5(half, by) {
  return ((half << by) | (half >>> (5 - by))) & 0x1f;
}

/** The two round keys [K1, K2] of a 10-bit key. */
export function subkeys(key) {
  const permuted = permute(key, 10, P10);
  let left = rotateLeft5(permuted >>> 5, 1);
  let right = rotateLeft5(permuted & 0x1f, 1);
  const k1 = permute((left << 5) | right, 10, P8);
  left = rotateLeft5(left, 2);
  right = rotateLeft5(right, 2);
  const k2 = permute((left << 5) | right, 10, P8);
  return [k1, k2];
}

// The portable kernel: S-DES as the spec writes it, every permutation a loop over its table.

function portableSbox(box, nibble) {
  const row = ((nibble >>> 3) & 1) * 2 + (nibble & 1);
  const column = (nibble >>> 1) & 3;
  return box[row][column];
}

function portableFeistel(block, subkey) {
  const left = block >>> 4;
  const right = block & 0x0f;
  const mixed = permute(right, 4, EP) ^ subkey;
  const substituted = (portableSbox(S0, mixed >>> 4) << 2) | portableSbox(S1, mixed & 0x0f);
  return ((left ^ permute(substituted, 4, P4)) << 4) | right;
}

/** One 8-bit block through IP, f_K1, SW, f_K2, IP^-1, each permutation from the spec's table. */
export function portableEncryptByte(k1, k2, plain) {
  const first = portableFeistel(permute(plain, 8, IP), k1);
  const swapped = ((first & 0x0f) << 4) | (first >>> 4);
  return permute(portableFeistel(swapped, k2), 8, IP_INVERSE);
}

// The tuned kernel's per-byte permutations, each written as a few shift-and-mask groups (the bits that move by
// the same distance), which is what a compiler makes of permute() over a constant table; the
// tests check each against permute() with the spec's table on every input.

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
const S0_FLAT = Uint8Array.from(S0.flat());
const S1_FLAT = Uint8Array.from(S1.flat());

/** Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input. */
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

/** The ciphertext of every byte value under one key, through the kernel's own rounds. */
export function keyTable(key, kernel = 'tuned') {
  const [k1, k2] = subkeys(key);
  const encrypt = kernel === 'portable' ? portableEncryptByte : encryptByte;
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) table[b] = encrypt(k1, k2, b);
  return table;
}

/**
 * Encrypts input[begin, end) into output. portable: `bitwise` runs every byte's rounds from the
 * spec's tables, `table` looks every byte up in the key's 256-byte table, in plain JS. tuned:
 * `bitwise` runs the shift-and-mask rounds, `table` the WebAssembly look-up `lookup` over the
 * memory both arrays live in.
 */
export function encryptRange(cipher, lookup, input, output, begin, end) {
  if (cipher.kind === 'table') {
    if (cipher.kernel === 'portable') {
      const table = cipher.table;
      for (let i = begin; i < end; i++) output[i] = table[input[i]];
    } else {
      lookup(input.byteOffset + begin, output.byteOffset + begin, end - begin, cipher.pairs ? 1 : 0);
    }
  } else {
    const { k1, k2 } = cipher;
    const encrypt = cipher.kernel === 'portable' ? portableEncryptByte : encryptByte;
    for (let i = begin; i < end; i++) output[i] = encrypt(k1, k2, input[i]);
  }
}

/** The WebAssembly table look-up over the shared memory, from the module compiled on the main thread. */
export function instantiateTableLookup(memory, module) {
  return new WebAssembly.Instance(module, { env: { memory } }).exports.lookup;
}

/** The input and output: in the tuned kernel's shared WebAssembly memory, or the portable kernel's two SharedArrayBuffers. */
function sharedViews({ memory, inputOffset, outputOffset, inputBuffer, outputBuffer, size }) {
  if (!memory) return { input: new Uint8Array(inputBuffer, 0, size), output: new Uint8Array(outputBuffer, 0, size) };
  return { input: new Uint8Array(memory.buffer, inputOffset, size), output: new Uint8Array(memory.buffer, outputOffset, size) };
}

/** Worker side: encrypts its chunks into the shared output; reports its busy interval. */
export function encryptChunks(task, worker) {
  const { input, output } = sharedViews(task);
  const lookup = task.cipher.kind === 'table' && task.cipher.kernel === 'tuned' ? instantiateTableLookup(task.memory, task.module) : null;
  const busy = new BusyInterval();
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    busy.begin();
    const [begin, end] = chunkBounds(index, task.chunk, task.size);
    encryptRange(task.cipher, lookup, input, output, begin, end);
    busy.end();
    done++;
  }
  return { chunks: done, ...busy.toJSON() };
}

/** Worker side of the ceiling: copies its chunks with TypedArray.set (memmove). */
export function copyChunks(task, worker) {
  const { input, output } = sharedViews(task);
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [begin, end] = chunkBounds(index, task.chunk, task.size);
    output.set(input.subarray(begin, end), begin);
    done++;
  }
  return { chunks: done };
}
