/**
 * sdes-ecb's bitwise cipher in WebAssembly SIMD, 16 bytes a step, each byte through every step of
 * the cipher: a bit permutation is linear over GF(2), so P(x) = P(low nibble) ^ P(high nibble << 4),
 * two 16-entry tables looked up by i8x16.swizzle (pshufb), the way a CPU without GFNI applies the
 * 8×8 bit matrix that Rust's kernel applies with one vgf2p8affineqb. Per 16 bytes:
 * - IP: two lookups;
 * - f_K1: E/P of R with K1 XORed in, one lookup (an affine map, as vgf2p8affineqb's constant
 *   makes one; its 16 entries are written by each repetition's key schedule); S0 and S1 one lookup
 *   each, their entries already through P4 into the left half (an "SP-box", as DES software has
 *   long fused them: P4 is linear);
 * - SW is not done on its own: f_K2 reads its R from the high half and XORs into the low half,
 *   and the last matrix is IP⁻¹·SW (the product of two permutations is one permutation);
 * - IP⁻¹·SW: two lookups.
 *
 * Shifts are i64x2 (one instruction on x64; i8x16 shifts are emulated with several), which pull a
 * neighbour byte's bits into the top of each byte: every lookup masks its index to 4 bits first,
 * as swizzle gives 0 (and relaxed_swizzle something undefined) for an index of 16 or more.
 *
 * The module imports the memory the tuned kernel keeps its input and output in (shared for worker
 * threads); bitwise(input, output, length, constants) does whole 16-byte blocks, and the caller
 * the last 0-15 bytes.
 */
import v8 from 'node:v8';
import { countedLoop, I32, i32Const, localGet, localSet, memarg, moduleBytes, op, simd, V128 } from './wasm_assembler.js';
import { EP, IP, IP_INV, P4, permute, S0, S1, sbox } from './workloads/sdes_ecb/portable.js';

export const BLOCK_BYTES = 16;

const SIMD = {
  load: 0x00, store: 0x0b, swizzle: 0x0e, relaxed_swizzle: 0x100,
  and: 0x4e, xor: 0x51, i64x2_shr_u: 0xcd,
};

// Locals: the parameters, the loop's index and end, then the vectors at `constants` and two temporaries.
const INPUT = 0, OUTPUT = 1, LENGTH = 2, CONSTANTS = 3, INDEX = 4, END = 5;
const IP_LOW = 6, IP_HIGH = 7, LAST_LOW = 8, LAST_HIGH = 9, SP0_LEFT = 10, SP1_LEFT = 11, SP0_RIGHT = 12, SP1_RIGHT = 13, MASK = 14;
const EXPAND_K1 = 15, EXPAND_K2 = 16, BLOCK = 17, MIXED = 18;

const nibbles = (map) => Array.from({ length: 16 }, (_, nibble) => map(nibble));
const swapHalves = (x) => ((x & 0x0f) << 4) | (x >> 4);
/** S-box `box` of a 4-bit input, its 2 bits at `shift`, through P4. */
const sboxThenP4 = (box, shift) => (input) => permute(sbox(box, input) << shift, 4, P4);

/**
 * The vectors the loop keeps, in the order they lie at `constants`, each 16 bytes. They are read
 * from memory before the loop rather than written as v128.const: TurboFan rematerialises a
 * constant inside the loop wherever it is used (four instructions per table per block: 10.2 ms
 * against 7.7 ms at 16 MiB with i8x16.swizzle), but keeps a loaded value in a register.
 */
const FIXED = [
  [IP_LOW, nibbles((n) => permute(n, 8, IP))],
  [IP_HIGH, nibbles((n) => permute(n << 4, 8, IP))],
  [LAST_LOW, nibbles((n) => permute(swapHalves(n), 8, IP_INV))],
  [LAST_HIGH, nibbles((n) => permute(swapHalves(n << 4), 8, IP_INV))],
  [SP0_LEFT, nibbles((l4) => sboxThenP4(S0, 2)(l4) << 4)],
  [SP1_LEFT, nibbles((r4) => sboxThenP4(S1, 0)(r4) << 4)],
  [SP0_RIGHT, nibbles(sboxThenP4(S0, 2))],
  [SP1_RIGHT, nibbles(sboxThenP4(S1, 0))],
  [MASK, nibbles(() => 0x0f)],
];
const VECTOR_LOCALS = [...FIXED.map(([local]) => local), EXPAND_K1, EXPAND_K2];
/** Bytes at `constants`: the fixed vectors, then E/P ^ K1 and E/P ^ K2 (writeConstants). */
export const CONSTANTS_BYTES = 16 * VECTOR_LOCALS.length;

/** Writes the constants the kernel reads: the fixed tables, and this repetition's E/P ^ subkey tables (part of its key schedule). */
export function writeConstants(memoryBuffer, offset, k1, k2) {
  const bytes = new Uint8Array(memoryBuffer, offset, CONSTANTS_BYTES);
  FIXED.forEach(([, entries], k) => bytes.set(entries, 16 * k));
  bytes.set(nibbles((r) => permute(r, 4, EP) ^ k1), 16 * FIXED.length);
  bytes.set(nibbles((r) => permute(r, 4, EP) ^ k2), 16 * FIXED.length + 16);
}

const v = (local) => localGet(local);
const shiftRight4 = (value) => [...value, ...i32Const(4), ...simd(SIMD.i64x2_shr_u)];
const xor = (a, b) => [...a, ...b, ...simd(SIMD.xor)];

/**
 * The loop body, with each lookup `swizzle`: i8x16.swizzle, which V8 compiles to a saturating
 * add (so that an index of 16 or more gives 0) and pshufb, or i8x16.relaxed_swizzle, defined for
 * indices below 16 only (which every index here is), which is pshufb alone.
 */
function step(swizzle) {
  /** table[index & 15] in every lane. */
  const lookUp = (table, index) => [...v(table), ...index, ...v(MASK), ...simd(SIMD.and), ...simd(swizzle)];
  /** A whole-byte permutation by its two nibble tables. */
  const permuteBytes = (low, high, value) => xor(lookUp(low, value), lookUp(high, shiftRight4(value)));
  /** f_K on BLOCK with its R at `right` (the low half, or the high one shifted down): the SP-boxes of E/P(R) ^ K XORed in. */
  const feistel = (expandWithKey, right, sp0, sp1) => [
    ...lookUp(expandWithKey, right), ...localSet(MIXED),
    ...xor(xor(v(BLOCK), lookUp(sp0, shiftRight4(v(MIXED)))), lookUp(sp1, v(MIXED))), ...localSet(BLOCK),
  ];
  return [
    ...v(OUTPUT), ...v(INDEX), op.i32_add,
    ...v(INPUT), ...v(INDEX), op.i32_add, ...simd(SIMD.load), ...memarg(0), ...localSet(BLOCK),
    ...permuteBytes(IP_LOW, IP_HIGH, v(BLOCK)), ...localSet(BLOCK),
    ...feistel(EXPAND_K1, v(BLOCK), SP0_LEFT, SP1_LEFT),
    // f_K2 after SW, without moving the halves: R is the high half, L the low one.
    ...feistel(EXPAND_K2, shiftRight4(v(BLOCK)), SP0_RIGHT, SP1_RIGHT),
    ...permuteBytes(LAST_LOW, LAST_HIGH, v(BLOCK)),
    ...simd(SIMD.store), ...memarg(0),
  ];
}

/** bitwise(input, output, length, constants), relaxed: with i8x16.relaxed_swizzle (see step). */
export function bitwiseModuleBytes(shared, relaxed) {
  const code = [
    ...VECTOR_LOCALS.flatMap((local, k) => [...v(CONSTANTS), ...simd(SIMD.load), ...memarg(0, 16 * k), ...localSet(local)]),
    ...v(LENGTH), ...i32Const(-BLOCK_BYTES), op.i32_and, ...localSet(END),
    ...countedLoop(INDEX, END, BLOCK_BYTES, step(relaxed ? SIMD.relaxed_swizzle : SIMD.swizzle)),
  ];
  return moduleBytes({ exportName: 'bitwise', params: 4, locals: [[2, I32], [13, V128]], code, shared });
}

/** Whether this V8 runs WebAssembly SIMD (on x64 it needs SSE4.1, and V8 leaves it off without). */
export function simdAvailable() {
  return WebAssembly.validate(bitwiseModuleBytes(false, false));
}

/**
 * Whether this V8 runs relaxed SIMD. Node 20's V8 (11.3) has it behind a flag, on by default from
 * V8 11.4 (Node 22): the flag is set here, before any module that uses it is compiled, as
 * `node --experimental-wasm-relaxed-simd` would set it. A V8 without the feature, or without
 * SIMD at all, still says no.
 */
export function relaxedSimdAvailable() {
  const relaxed = bitwiseModuleBytes(false, true);
  if (WebAssembly.validate(relaxed)) return true;
  if (!simdAvailable()) return false;
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
  return WebAssembly.validate(relaxed);
}

const compiled = new Map();
/** Compiled once per process, before any timed region, for a shared memory (worker threads) or a plain one. */
export function bitwiseModule(shared, relaxed) {
  const key = `${shared} ${relaxed}`;
  if (!compiled.has(key)) compiled.set(key, new WebAssembly.Module(bitwiseModuleBytes(shared, relaxed)));
  return compiled.get(key);
}
