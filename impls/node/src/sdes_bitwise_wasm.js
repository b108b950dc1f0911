/**
 * sdes-ecb's bitwise cipher in WebAssembly SIMD, 16 bytes a step, each byte through every step of
 * the cipher: a bit permutation is linear over GF(2), so P(x) = P(low nibble) ^ P(high nibble << 4),
 * two 16-entry tables looked up by i8x16.swizzle (pshufb), the way a CPU without GFNI applies the
 * 8×8 bit matrix that Rust's kernel applies with one vgf2p8affineqb. IP and IP⁻¹ are two
 * lookups each, E/P one (it reads R only), the subkey is XORed in, each S-box is one lookup whose
 * 16 entries hold its output already through P4 (an "SP-box", as DES software fuses them: P4 is
 * linear), and SW is two 64-bit shifts and a bitselect.
 *
 * Shifts are i64x2 (one instruction on x64; i8x16 shifts are emulated with several), which pull a
 * neighbour byte's bits into the top of each byte: every lookup masks its index to 4 bits first,
 * as swizzle gives 0 for an index of 16 or more.
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
  and: 0x4e, xor: 0x51, bitselect: 0x52, i64x2_shl: 0xcb, i64x2_shr_u: 0xcd,
};

// Locals: the parameters, the loop's index and end, then the constants (tables, mask, subkeys) and two temporaries.
const INPUT = 0, OUTPUT = 1, LENGTH = 2, CONSTANTS = 3, INDEX = 4, END = 5;
const IP_LOW = 6, IP_HIGH = 7, IP_INV_LOW = 8, IP_INV_HIGH = 9, EXPAND = 10, SP0 = 11, SP1 = 12, MASK = 13, KEY1 = 14, KEY2 = 15, BLOCK = 16, MIXED = 17;

const nibbles = (map) => Array.from({ length: 16 }, (_, nibble) => map(nibble));

/**
 * The vectors the loop keeps, in the order they lie at `constants`, each 16 bytes. They are read
 * from memory before the loop rather than written as v128.const: TurboFan rematerialises a
 * constant inside the loop wherever it is used (four instructions per table per block,
 * measured 7.4 ms against 2.5 ms for the same loop without those rounds), but keeps a loaded
 * value in a register.
 */
const FIXED = [
  [IP_LOW, nibbles((n) => permute(n, 8, IP))],
  [IP_HIGH, nibbles((n) => permute(n << 4, 8, IP))],
  [IP_INV_LOW, nibbles((n) => permute(n, 8, IP_INV))],
  [IP_INV_HIGH, nibbles((n) => permute(n << 4, 8, IP_INV))],
  // E/P of R (the low nibble) to a whole byte.
  [EXPAND, nibbles((r) => permute(r, 4, EP))],
  // S0 of l4 and S1 of r4, each already through P4 into the left half, where f_K XORs it into L.
  [SP0, nibbles((l4) => permute(sbox(S0, l4) << 2, 4, P4) << 4)],
  [SP1, nibbles((r4) => permute(sbox(S1, r4), 4, P4) << 4)],
  [MASK, nibbles(() => 0x0f)],
];
const VECTOR_LOCALS = [...FIXED.map(([local]) => local), KEY1, KEY2];
/** Bytes at `constants`: the fixed vectors, then K1 and K2 in every lane (writeConstants). */
export const CONSTANTS_BYTES = 16 * VECTOR_LOCALS.length;

/** Writes the constants the kernel reads: the fixed tables, and the subkeys of this repetition (part of its key schedule). */
export function writeConstants(memoryBuffer, offset, k1, k2) {
  const bytes = new Uint8Array(memoryBuffer, offset, CONSTANTS_BYTES);
  FIXED.forEach(([, entries], k) => bytes.set(entries, 16 * k));
  bytes.fill(k1, 16 * FIXED.length, 16 * FIXED.length + 16);
  bytes.fill(k2, 16 * FIXED.length + 16, 16 * FIXED.length + 32);
}

const v = (local) => localGet(local);
const shiftRight4 = (value) => [...value, ...i32Const(4), ...simd(SIMD.i64x2_shr_u)];
const shiftLeft4 = (value) => [...value, ...i32Const(4), ...simd(SIMD.i64x2_shl)];
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
  /** f_K on BLOCK: L ^= SP0(l4) ^ SP1(r4) with (l4 ‖ r4) = E/P(R) ^ subkey; R kept. */
  const feistel = (key) => [
    ...xor(lookUp(EXPAND, v(BLOCK)), v(key)), ...localSet(MIXED),
    ...xor(xor(v(BLOCK), lookUp(SP0, shiftRight4(v(MIXED)))), lookUp(SP1, v(MIXED))), ...localSet(BLOCK),
  ];
  return [
    ...v(OUTPUT), ...v(INDEX), op.i32_add,
    ...v(INPUT), ...v(INDEX), op.i32_add, ...simd(SIMD.load), ...memarg(0), ...localSet(BLOCK),
    ...permuteBytes(IP_LOW, IP_HIGH, v(BLOCK)), ...localSet(BLOCK),
    ...feistel(KEY1),
    // SW: the low nibble from the block shifted down, the high one from the block shifted up.
    ...shiftRight4(v(BLOCK)), ...shiftLeft4(v(BLOCK)), ...v(MASK), ...simd(SIMD.bitselect), ...localSet(BLOCK),
    ...feistel(KEY2),
    ...permuteBytes(IP_INV_LOW, IP_INV_HIGH, v(BLOCK)),
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
  return moduleBytes({ exportName: 'bitwise', params: 4, locals: [[2, I32], [12, V128]], code, shared });
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
