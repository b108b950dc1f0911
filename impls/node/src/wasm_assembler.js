/**
 * Just enough of the WebAssembly binary format to write small functions by hand: opcodes,
 * LEB128 immediates and a module of one exported function over one imported shared memory.
 */

export const op = {
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, br_if: 0x0d, select: 0x1b,
  local_get: 0x20, local_set: 0x21, local_tee: 0x22,
  i32_load: 0x28, i32_load8_u: 0x2d, i32_load16_u: 0x2f, i32_store: 0x36, i32_store8: 0x3a,
  i32_const: 0x41, i32_ge_u: 0x4f,
  i32_add: 0x6a, i32_and: 0x71, i32_or: 0x72, i32_shl: 0x74, i32_shr_u: 0x76,
};
/** SIMD instructions: each is 0xfd followed by its code as LEB128 (see simd()). */
export const simdOp = { v128_load: 0x00, v128_store: 0x0b, i8x16_swizzle: 0x0e, i8x16_splat: 0x0f, v128_or: 0x50, i8x16_sub: 0x71 };
export const VOID_BLOCK = 0x40;
export const I32 = 0x7f;
export const V128 = 0x7b;

export function unsignedLeb(value) {
  const bytes = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

export function signedLeb(value) {
  const bytes = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) return [...bytes, byte];
    bytes.push(byte | 0x80);
  }
}

const vector = (bytes) => [...unsignedLeb(bytes.length), ...bytes];
const section = (id, bytes) => [id, ...vector(bytes)];
const name = (text) => vector([...Buffer.from(text, 'utf8')]);

export const simd = (code) => [0xfd, ...unsignedLeb(code)];
/** A memory immediate: log2 of the alignment, then a constant offset. */
export const memarg = (alignLog2, offset = 0) => [...unsignedLeb(alignLog2), ...unsignedLeb(offset)];
export const localGet = (local) => [op.local_get, ...unsignedLeb(local)];
export const localSet = (local) => [op.local_set, ...unsignedLeb(local)];
export const localTee = (local) => [op.local_tee, ...unsignedLeb(local)];
export const i32Const = (value) => [op.i32_const, ...signedLeb(value)];

/**
 * A `while (counter < limit) { body; counter += step }` loop: `block loop (br_if 1 when done) … br 0 end end`.
 */
export function countedLoop(counter, limit, step, body) {
  return [
    op.block, VOID_BLOCK, op.loop, VOID_BLOCK,
    ...localGet(counter), ...localGet(limit), op.i32_ge_u, op.br_if, 1,
    ...body,
    ...localGet(counter), ...i32Const(step), op.i32_add, ...localSet(counter),
    op.br, 0, op.end, op.end,
  ];
}

/**
 * The bytes of a module with one function `exportName(params: i32…)` returning nothing, whose
 * extra locals are `locals` ([count, type] pairs) and body `code`, over `env.memory`: an
 * imported memory of up to 65,536 pages (4 GiB), shared between threads when `shared`.
 */
export function moduleBytes({ exportName, params, locals, code, shared }) {
  const type = section(1, [1, 0x60, ...vector(Array(params).fill(I32)), 0]);
  // Memory limits: flag bit 0 = has a maximum, bit 1 = shared (which needs a maximum).
  const memory = [0x02, shared ? 0x03 : 0x01, ...unsignedLeb(1), ...unsignedLeb(65536)];
  const imports = section(2, [1, ...name('env'), ...name('memory'), ...memory]);
  const functions = section(3, [1, 0]);
  const exports = section(7, [1, ...name(exportName), 0x00, 0]);
  const declarations = [...unsignedLeb(locals.length), ...locals.flatMap(([count, type]) => [...unsignedLeb(count), type])];
  const body = section(10, [1, ...vector([...declarations, ...code, op.end])]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...type, ...imports, ...functions, ...exports, ...body]);
}
