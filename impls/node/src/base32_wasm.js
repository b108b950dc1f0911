/**
 * keygen's Base32 encoder in WebAssembly: five bytes become eight characters through a table of
 * 1,024 character pairs (each 10 bits of input give two characters), with no bounds checks.
 * The JS form of the same loop is 1.5x slower, the per-character encoder 3.5x
 * (bench/keygen_parts.mjs).
 */
import { countedLoop, I32, i32Const, localGet, localSet, memarg, moduleBytes, op } from './wasm_assembler.js';
import { PAIRS_OFFSET } from './workloads/keygen/worker.js';
import { base32SimdAvailable, base32SimdModuleBytes } from './base32_simd_wasm.js';

// Locals: the parameters (source, target, groups), then the group counter, byte 0 and bytes 1-4 big-endian.
const SOURCE = 0, TARGET = 1, GROUPS = 2, GROUP = 3, FIRST = 4, REST = 5;

const sourceByte = (k) => [...localGet(SOURCE), op.i32_load8_u, ...memarg(0, k)];
/** Pushes the two characters of a 10-bit value: PAIRS[value] as a 16-bit load. */
const pairOf = (tenBits) => [...tenBits, ...i32Const(1), op.i32_shl, op.i32_load16_u, ...memarg(1, PAIRS_OFFSET)];
const restBits = (shift) => [...localGet(REST), ...i32Const(shift), op.i32_shr_u, ...i32Const(0x3ff), op.i32_and];
/** Stores two pairs (four characters) at target + offset. */
const storePairs = (offset, first, second) => [...localGet(TARGET), ...pairOf(first), ...pairOf(second), ...i32Const(16), op.i32_shl, op.i32_or, op.i32_store, ...memarg(0, offset)];

export const encodeGroup = [
  ...sourceByte(0), ...localSet(FIRST),
  ...sourceByte(1), ...i32Const(24), op.i32_shl, ...sourceByte(2), ...i32Const(16), op.i32_shl, op.i32_or,
  ...sourceByte(3), ...i32Const(8), op.i32_shl, op.i32_or, ...sourceByte(4), op.i32_or, ...localSet(REST),
  // The 40 bits in four 10-bit pieces: byte 0 and the top 2 bits of the rest, then 10 bits at a time.
  ...storePairs(0, [...localGet(FIRST), ...i32Const(2), op.i32_shl, ...localGet(REST), ...i32Const(30), op.i32_shr_u, op.i32_or], restBits(20)),
  ...storePairs(4, restBits(10), restBits(0)),
  ...localGet(SOURCE), ...i32Const(5), op.i32_add, ...localSet(SOURCE),
  ...localGet(TARGET), ...i32Const(8), op.i32_add, ...localSet(TARGET),
];

/**
 * encodeGroups(source, target, groups): Base32 of groups × 5 bytes, no padding (whole groups
 * only), in a memory of the thread's own (records leave it by copy).
 */
export function base32ModuleBytes() {
  return moduleBytes({ exportName: 'encodeGroups', params: 3, locals: [[3, I32]], code: countedLoop(GROUP, GROUPS, 1, encodeGroup), shared: false });
}

/**
 * The Base32 techniques: 'simd' (base32_simd_wasm.js, 16 characters a step) where the engine
 * validates WebAssembly SIMD, else 'table' (this file). PARBENCH_NODE_BASE32=simd|table forces one.
 */
export function base32Technique() {
  const forced = process.env.PARBENCH_NODE_BASE32;
  if (forced === 'table') return 'table';
  if (forced !== undefined && forced !== 'simd') {
    process.stderr.write(`PARBENCH_NODE_BASE32=${forced}: not simd or table\n`);
    process.exit(2);
  }
  if (base32SimdAvailable()) return 'simd';
  if (forced === 'simd') {
    process.stderr.write('PARBENCH_NODE_BASE32=simd: this engine does not validate WebAssembly SIMD\n');
    process.exit(2);
  }
  return 'table';
}

const compiled = new Map();
/** Compiled once per process, before any timed region, and handed to the worker threads. */
export function base32Module(technique = base32Technique()) {
  if (!compiled.has(technique)) compiled.set(technique, new WebAssembly.Module(technique === 'simd' ? base32SimdModuleBytes() : base32ModuleBytes()));
  return compiled.get(technique);
}
