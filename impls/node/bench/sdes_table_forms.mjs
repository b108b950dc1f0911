/**
 * The forms of sdes-ecb's table look-up Node can run, against the copy, on one thread:
 *   node bench/sdes_table_forms.mjs [MiB=64]
 * (docs/runtimes/node.md, "Distance to the ceiling").
 */
import { TABLES_BYTES, tableLookupModule, writeTables } from '../src/table_lookup_wasm.js';
import { countedLoop, i32Const, localGet, localSet, memarg, moduleBytes, op, simd, simdOp, V128 } from '../src/wasm_assembler.js';
import { keyTable as tableThrough, subkeys } from '../src/workloads/sdes_ecb/portable.js';
import * as tuned from '../src/workloads/sdes_ecb/tuned.js';
import { instantiateKernels } from '../src/workloads/sdes_ecb/worker.js';
import { report, timeIt } from './measure.mjs';

const size = Number(process.argv[2] ?? 64) * 1048576;
const pages = Math.ceil((TABLES_BYTES + 2 * size + 64) / 65536);
const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
const inputOffset = TABLES_BYTES;
const outputOffset = TABLES_BYTES + size;
const input = new Uint8Array(memory.buffer, inputOffset, size);
const output = new Uint8Array(memory.buffer, outputOffset, size);
for (let i = 0; i < size; i++) input[i] = (i * 2654435761) >>> 24;
output.fill(0xff);
// The tuned kernel's key schedule: the table through the shift-and-mask rounds.
const keyTable = () => tableThrough(...subkeys(642), tuned.encryptByte);
const table = keyTable();
writeTables(table, memory.buffer, true);

/**
 * The SIMD form (not used: no faster): the table's 16 rows in v128 locals; swizzle(row_h, x - 16h)
 * is row_h[x & 15] where x's high nibble is h and 0 elsewhere, so OR-ing 16 swizzles is table[x].
 */
function swizzleModule() {
  const [IN, OUT, LENGTH, INDEX, END, X, SIXTEEN, RESULT, ROW0] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const loadRows = Array.from({ length: 16 }, (_, h) => [...i32Const(0), ...simd(simdOp.v128_load), ...memarg(4, 16 * h), ...localSet(ROW0 + h)]).flat();
  const orRow = (h) => [...localGet(ROW0 + h), ...localGet(X), ...localGet(SIXTEEN), ...simd(simdOp.i8x16_sub), op.local_tee, X,
    ...simd(simdOp.i8x16_swizzle), ...localGet(RESULT), ...simd(simdOp.v128_or), ...localSet(RESULT)];
  const step = [...localGet(IN), ...localGet(INDEX), op.i32_add, ...simd(simdOp.v128_load), ...memarg(0), ...localSet(X),
    ...localGet(ROW0), ...localGet(X), ...simd(simdOp.i8x16_swizzle), ...localSet(RESULT),
    ...Array.from({ length: 15 }, (_, h) => orRow(h + 1)).flat(),
    ...localGet(OUT), ...localGet(INDEX), op.i32_add, ...localGet(RESULT), ...simd(simdOp.v128_store), ...memarg(0)];
  const code = [...loadRows, ...i32Const(16), ...simd(simdOp.i8x16_splat), ...localSet(SIXTEEN),
    ...localGet(LENGTH), ...i32Const(-16), op.i32_and, ...localSet(END), ...countedLoop(INDEX, END, 16, step)];
  return new WebAssembly.Module(moduleBytes({ exportName: 'lookup', params: 3, locals: [[2, 0x7f], [19, V128]], code, shared: false }));
}

const { lookup } = instantiateKernels(memory, { lookup: tableLookupModule(false) });
const swizzle = new WebAssembly.Instance(swizzleModule(), { env: { memory } }).exports.lookup;
const pairs16 = new Uint16Array(65536);
for (let pair = 0; pair < 65536; pair++) pairs16[pair] = table[pair & 0xff] | (table[pair >>> 8] << 8);
const input32 = new Uint32Array(memory.buffer, inputOffset, size / 4);
const output32 = new Uint32Array(memory.buffer, outputOffset, size / 4);

// A typical JS loop: the arrays are arguments, so every access keeps its bounds check.
function byteLoop(tableArg, inputArg, outputArg, begin, end) {
  for (let i = begin; i < end; i++) outputArg[i] = tableArg[inputArg[i]];
}

const forms = {
  'copy (TypedArray.set)': () => output.set(input),
  'JS byte loop, arrays as arguments': () => byteLoop(table, input, output, 0, size),
  // The same loop over module constants, which V8 specialises on (lengths known, checks folded).
  'JS byte loop, module constants': () => { for (let i = 0; i < size; i++) output[i] = table[input[i]]; },
  'JS Uint32 view + 16-bit table': () => { for (let i = 0; i < input32.length; i++) { const w = input32[i]; output32[i] = pairs16[w & 0xffff] | (pairs16[w >>> 16] << 16); } },
  'wasm SIMD, 16 swizzles per 16 B': () => swizzle(inputOffset, outputOffset, size),
  'wasm 256-byte table (1 B a step)': () => lookup(inputOffset, outputOffset, size, 0),
  'wasm T16 (8 B a step), as used': () => lookup(inputOffset, outputOffset, size, 1),
};
for (const [name, form] of Object.entries(forms)) {
  form();
  report(name, timeIt(form), size);
  if (!name.startsWith('copy')) for (let i = 0; i < size; i += 4099) if (output[i] !== table[input[i]]) throw new Error(`${name} is wrong at ${i}`);
}
report('key schedule: T16 build (131,072 B)', timeIt(() => writeTables(keyTable(), memory.buffer, true), 50));
report('key schedule: 256-byte table only', timeIt(() => writeTables(keyTable(), memory.buffer, false), 50));
