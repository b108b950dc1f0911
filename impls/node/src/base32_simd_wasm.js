/**
 * keygen's Base32 encoder in WebAssembly SIMD: ten bytes (two groups) become sixteen characters
 * per step. Each character gets the big-endian 16-bit word holding its 5 bits in a u16 lane
 * (one i8x16.swizzle per eight characters), a per-lane left shift by an i16x8.mul with a power
 * of two, and a shift right by 11; two vectors narrow to sixteen 0-31 values, mapped to
 * 'a'-'z' and '2'-'7' by a compare and an add. An odd last group goes through the pair-table
 * loop of base32_wasm.js, which shares the signature and the memory layout.
 */
import { countedLoop, I32, i32Const, localGet, localSet, memarg, moduleBytes, op, simd, V128 } from './wasm_assembler.js';
import { encodeGroup } from './base32_wasm.js';
export { SIMD_CONSTANTS } from './base32_simd_constants.js';
import { SIMD_CONSTANTS_OFFSET } from './workloads/keygen/worker.js';

const S = {
  load: 0x00, store: 0x0b, swizzle: 0x0e, i8x16_splat: 0x0f, i8x16_gt_u: 0x28, and: 0x4e,
  narrow_u: 0x66, i8x16_add: 0x6e, i16x8_shr_u: 0x8d, i16x8_mul: 0x95,
};
// Locals: as base32_wasm.js (source, target, groups, group, first, rest), then the end of the pairs and the vectors.
const SOURCE = 0, TARGET = 1, GROUPS = 2, GROUP = 3, PAIR_END = 6;
const INDEX_LOW = 7, INDEX_HIGH = 8, SCALE_LOW = 9, SCALE_HIGH = 10, BLOCK = 11, QUINTETS = 12;

const v = (local) => localGet(local);
const splat8 = (value) => [...i32Const(value), ...simd(S.i8x16_splat)];
const quintets = (index, scale) => [...v(BLOCK), ...v(index), ...simd(S.swizzle), ...v(scale), ...simd(S.i16x8_mul), ...i32Const(11), ...simd(S.i16x8_shr_u)];

const step = [
  ...v(TARGET),
  ...v(SOURCE), ...simd(S.load), ...memarg(0), ...localSet(BLOCK),
  ...quintets(INDEX_LOW, SCALE_LOW), ...quintets(INDEX_HIGH, SCALE_HIGH), ...simd(S.narrow_u), ...localSet(QUINTETS),
  // 'a' + q, less 73 from 26 on ('a' + 26 - 73 = '2'): 183 is -73 in a byte.
  ...v(QUINTETS), ...splat8(97), ...simd(S.i8x16_add),
  ...v(QUINTETS), ...splat8(25), ...simd(S.i8x16_gt_u), ...splat8(183), ...simd(S.and), ...simd(S.i8x16_add),
  ...simd(S.store), ...memarg(0),
  ...v(SOURCE), ...i32Const(10), op.i32_add, ...localSet(SOURCE),
  ...v(TARGET), ...i32Const(16), op.i32_add, ...localSet(TARGET),
];

/** encodeGroups(source, target, groups), as base32_wasm.js's; it reads up to 6 bytes past a pair of groups. */
export function base32SimdModuleBytes() {
  const code = [
    ...[INDEX_LOW, INDEX_HIGH, SCALE_LOW, SCALE_HIGH].flatMap((local, k) => [...i32Const(0), ...simd(S.load), ...memarg(0, SIMD_CONSTANTS_OFFSET + 16 * k), ...localSet(local)]),
    ...v(GROUPS), ...i32Const(-2), op.i32_and, ...localSet(PAIR_END),
    ...countedLoop(GROUP, PAIR_END, 2, step),
    ...countedLoop(GROUP, GROUPS, 1, encodeGroup),
  ];
  return moduleBytes({ exportName: 'encodeGroups', params: 3, locals: [[4, I32], [6, V128]], code, shared: false });
}

export function base32SimdAvailable() {
  return WebAssembly.validate(base32SimdModuleBytes());
}
