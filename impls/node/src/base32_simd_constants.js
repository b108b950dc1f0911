/**
 * The vectors the SIMD Base32 encoder (base32_simd_wasm.js) reads from its memory, in a module
 * of their own so that keygen's worker threads, which write them, load no assembler.
 */

/** The swizzle indices and multipliers for characters 0-7 (`half` 0) or 8-15 (`half` 1) of ten bytes. */
function charLanes(half) {
  const index = [], scale = [];
  for (let k = 0; k < 8; k++) {
    const byte = 5 * half + ((5 * k) >> 3);
    index.push(byte + 1, byte); // little-endian lane: low byte the later one
    const shift = (5 * k) & 7;
    scale.push((1 << shift) & 0xff, (1 << shift) >> 8);
  }
  return [index, scale];
}
/** The 64 bytes the encoder reads at SIMD_CONSTANTS_OFFSET: index low/high, scale low/high. */
export const SIMD_CONSTANTS = Uint8Array.from([...charLanes(0)[0], ...charLanes(1)[0], ...charLanes(0)[1], ...charLanes(1)[1]]);
