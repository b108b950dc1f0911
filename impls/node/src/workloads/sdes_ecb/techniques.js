/**
 * Which technique the tuned sdes-ecb kernel runs, per cipher: the fastest this V8 can run, checked
 * when a case is prepared, or the one PARBENCH_SDES_TECHNIQUE names (for the tests and for
 * comparing techniques by hand). One asked for but not available is a usage error (exit 2),
 * never quietly replaced by the next.
 */
import { UsageError } from '../../protocol.js';
import { relaxedSimdAvailable, simdAvailable } from '../../sdes_bitwise_wasm.js';

export const ENVIRONMENT_VARIABLE = 'PARBENCH_SDES_TECHNIQUE';

/**
 * Fastest first (measured on a 2-core AMD EPYC; docs/runtimes/node.md). `needs` names what the
 * technique needs, `available` checks it; `detail` is its extra.kernel_detail after the label.
 */
export const TECHNIQUES = {
  bitwise: [
    {
      label: 'wasm-relaxed-simd',
      needs: 'WebAssembly relaxed SIMD (V8 11.4+, or 11.3 with --experimental-wasm-relaxed-simd, which is set for it) and SIMD (SSE4.1 on x64)',
      available: relaxedSimdAvailable,
      detail: 'WebAssembly SIMD, 16 bytes a step, every permutation a GF(2) matrix as two 16-entry nibble tables (SW folded into the IP⁻¹ matrix, each subkey into the E/P table) and each S-box (through P4) one, looked up by i8x16.relaxed_swizzle (pshufb); JS rounds for the last 0-15 bytes',
    },
    {
      label: 'wasm-simd',
      needs: 'WebAssembly SIMD (SSE4.1 on x64)',
      available: simdAvailable,
      detail: 'WebAssembly SIMD, 16 bytes a step, every permutation a GF(2) matrix as two 16-entry nibble tables (SW folded into the IP⁻¹ matrix, each subkey into the E/P table) and each S-box (through P4) one, looked up by i8x16.swizzle (saturating add + pshufb); JS rounds for the last 0-15 bytes',
    },
    {
      label: 'js-shift-mask',
      needs: 'nothing',
      available: () => true,
      detail: 'hand-expanded shift-and-mask permutations, flat S-box arrays (JS per byte)',
    },
  ],
  table: [
    {
      label: 'wasm-pair-table',
      needs: 'WebAssembly (every Node)',
      available: () => true,
      detail: 'WebAssembly look-up loop, 64K pair table (two bytes a look-up) from 1 MiB, the 256-byte table below',
    },
  ],
};

/**
 * The technique a case runs: `requested` (a label; empty or undefined for the fastest available).
 * `isAvailable` decides, so that the tests can pose as a V8 without a feature.
 */
export function chooseTechnique(cipher, requested, isAvailable = (technique) => technique.available()) {
  const techniques = TECHNIQUES[cipher];
  if (!requested) return techniques.find(isAvailable);
  const technique = techniques.find(({ label }) => label === requested);
  if (!technique) {
    throw new UsageError(`${ENVIRONMENT_VARIABLE}=${requested} is not a technique of the ${cipher} cipher; it has ${techniques.map(({ label }) => label).join(', ')}`);
  }
  if (!isAvailable(technique)) throw new UsageError(`${ENVIRONMENT_VARIABLE}=${requested} cannot run here: it needs ${technique.needs}`);
  return technique;
}

const chosen = new Map();
/**
 * The technique this process runs for `cipher`, as the environment asks; decided once (each
 * repetition's key schedule asks again, inside its timed region, and gets it from here).
 */
export function techniqueOf(cipher) {
  const key = `${cipher} ${process.env[ENVIRONMENT_VARIABLE] ?? ''}`;
  if (!chosen.has(key)) chosen.set(key, chooseTechnique(cipher, process.env[ENVIRONMENT_VARIABLE]));
  return chosen.get(key);
}

export const describe = (technique) => `${technique.label}: ${technique.detail}`;
