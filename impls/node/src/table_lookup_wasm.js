/**
 * sdes-ecb's table form in WebAssembly: every byte through the key's 256-byte table, or, for
 * inputs large enough to repay building it, two bytes per look-up in a 65,536-entry table of
 * 16-bit pairs (T16[a | b << 8] = table[a] | table[b] << 8).
 *
 * WebAssembly because its loads and stores carry no bounds checks (V8 guards the memory with
 * unmapped pages instead), where the same loop over typed arrays pays a check per access once
 * the arrays are arguments rather than constants. SIMD does not help: 128-bit swizzles index 16
 * entries, so a 256-entry table costs 16 swizzles per 16 bytes (bench/sdes_table_forms.mjs).
 *
 * The module imports one memory laid out as [T256 | T16 | input | output]; shared, it lets
 * worker threads share all of it with no copy.
 */
import { countedLoop, I32, i32Const, localGet, localSet, memarg, moduleBytes, op } from './wasm_assembler.js';

const TABLE_OFFSET = 0;
const PAIRS_OFFSET = 256;
/** Where the input may start: after both tables. */
export const TABLES_BYTES = PAIRS_OFFSET + 65536 * 2;
/**
 * From this many bytes on, the key schedule also builds T16 (131,072 byte writes, ~0.12 ms once
 * optimised), which then saves about 0.2 ns a byte over the 256-byte table: it repays itself
 * from about 600 KB (bench/sdes_table_forms.mjs), so smaller inputs keep the 256-byte table.
 */
export const PAIRS_MIN_BYTES = 1048576;

// Locals: the parameters (input, output, length, pairs), then the loop index, the end of the word part and a word.
const INPUT = 0, OUTPUT = 1, LENGTH = 2, PAIRS = 3, INDEX = 4, WORDS_END = 5, WORD = 6;
const BYTES_PER_STEP = 8;

/** Pushes T16[(WORD >>> shift) & 0xffff]. */
function pairLookup(shift) {
  const pair = shift === 0 ? [...localGet(WORD), ...i32Const(0xffff), op.i32_and] : [...localGet(WORD), ...i32Const(shift), op.i32_shr_u];
  return [...pair, ...i32Const(1), op.i32_shl, op.i32_load16_u, ...memarg(1, PAIRS_OFFSET)];
}

/** output[i + offset .. +4] = T16[low half] | T16[high half] << 16 of input[i + offset .. +4]. */
function lookUpWord(offset) {
  return [
    ...localGet(OUTPUT), ...localGet(INDEX), op.i32_add,
    ...localGet(INPUT), ...localGet(INDEX), op.i32_add, op.i32_load, ...memarg(0, offset), ...localSet(WORD),
    ...pairLookup(0), ...pairLookup(16), ...i32Const(16), op.i32_shl, op.i32_or,
    op.i32_store, ...memarg(0, offset),
  ];
}

const lookUpByte = [
  ...localGet(OUTPUT), ...localGet(INDEX), op.i32_add,
  ...localGet(INPUT), ...localGet(INDEX), op.i32_add, op.i32_load8_u, ...memarg(0),
  op.i32_load8_u, ...memarg(0, TABLE_OFFSET),
  op.i32_store8, ...memarg(0),
];

/**
 * lookup(input, output, length, pairs): output[k] = table[input[k]] for k < length; with
 * pairs = 1, 8 bytes a step through T16 and the last 0-7 bytes one at a time, else all one at a time.
 */
export function tableLookupModuleBytes(shared) {
  const code = [
    // WORDS_END = pairs ? length & -8 : 0
    ...localGet(LENGTH), ...i32Const(-BYTES_PER_STEP), op.i32_and, ...i32Const(0), ...localGet(PAIRS), op.select, ...localSet(WORDS_END),
    ...countedLoop(INDEX, WORDS_END, BYTES_PER_STEP, [...lookUpWord(0), ...lookUpWord(4)]),
    ...countedLoop(INDEX, LENGTH, 1, lookUpByte),
  ];
  return moduleBytes({ exportName: 'lookup', params: 4, locals: [[3, I32]], code, shared });
}

const compiled = new Map();
/**
 * Compiled once per process, before any timed region (compilation is not the work), for a
 * shared memory (worker threads) or a plain one (seq, whose copies then stay plain memmoves).
 */
export function tableLookupModule(shared) {
  if (!compiled.has(shared)) compiled.set(shared, new WebAssembly.Module(tableLookupModuleBytes(shared)));
  return compiled.get(shared);
}

/**
 * Writes the 256-byte table, and T16 when `withPairs`, into the memory, byte by byte as
 * WebAssembly reads them (this is part of the key schedule, inside the timed region).
 */
export function writeTables(table, memoryBuffer, withPairs) {
  new Uint8Array(memoryBuffer, TABLE_OFFSET, 256).set(table);
  if (!withPairs) return;
  const pairs = new Uint8Array(memoryBuffer, PAIRS_OFFSET, 65536 * 2);
  for (let pair = 0; pair < 65536; pair++) {
    pairs[2 * pair] = table[pair & 0xff];
    pairs[2 * pair + 1] = table[pair >>> 8];
  }
}
