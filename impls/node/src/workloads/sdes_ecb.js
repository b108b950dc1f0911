/** sdes-ecb: S-DES (Stallings) over every byte of a file, per-byte rounds or the key's table; the protocol side. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { BYTES_CAP, chunkPlan, newChunkCounter } from '../chunking.js';
import { LimitError, nowNs, UsageError } from '../protocol.js';
import { bitwiseModule, writeConstants } from '../sdes_bitwise_wasm.js';
import { PAIRS_MIN_BYTES, TABLES_BYTES, tableLookupModule, writeTables } from '../table_lookup_wasm.js';
import { startTeam, workersReport } from '../worker_team.js';
import * as portable from './sdes_ecb/portable.js';
import * as tuned from './sdes_ecb/tuned.js';
import { describe, TECHNIQUES, techniqueOf } from './sdes_ecb/techniques.js';
import { BITWISE_CONSTANTS_OFFSET, encryptRange, instantiateKernels } from './sdes_ecb/worker.js';

// Worker threads load the cipher's module only.
const WORKER_MODULE = new URL('./sdes_ecb/worker.js', import.meta.url);

const PORTABLE_DETAIL = 'reference, transliterated';

/** `extra.kernel_detail`: the portable kernel, or the label and detail of the technique the tuned one runs here. */
export function kernelDetail(kernel, cipher) {
  return kernel === 'portable' ? PORTABLE_DETAIL : describe(techniqueOf(cipher));
}

/** `--list`'s tuned kernel: each cipher's techniques in order of preference (what runs depends on V8). */
const TUNED_LISTING = Object.entries(TECHNIQUES)
  .map(([cipher, techniques]) => `${cipher}: ${techniques.map(({ label }) => label).join(', else ')}`)
  .join('; ') + ' (the first this V8 runs; PARBENCH_SDES_TECHNIQUE picks one). WebAssembly has no GFNI and 128-bit vectors only:'
  + ' each bit permutation is two nibble-table swizzles, not one vgf2p8affineqb';

/**
 * The buffers of a case, the input read and the output written once (pre-faulted) before the
 * first repetition. portable: two plain typed arrays (SharedArrayBuffers for worker threads).
 * tuned: one WebAssembly.Memory laid out as [tables | input | output], so the WebAssembly table
 * form sees the bytes with no copy; shared for worker threads.
 */
function loadBuffers(path, shared, kernel) {
  const loadStart = nowNs();
  const size = fs.statSync(path).size;
  if (kernel === 'portable') {
    const allocate = () => new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
    const input = allocate();
    readFileInto(path, input);
    const loadNs = nowNs() - loadStart;
    const output = allocate();
    output.fill(0xff);
    return { memory: null, input, output, loadNs };
  }
  const inputOffset = TABLES_BYTES;
  const outputOffset = inputOffset + Math.ceil(size / 64) * 64;
  const pages = Math.ceil((outputOffset + size) / 65536);
  if (pages > 65536) throw new LimitError(`sdes-ecb keeps input and output in one WebAssembly memory of at most 4 GiB; ${size} bytes need ${pages} pages of 64 KiB`);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared });
  const input = new Uint8Array(memory.buffer, inputOffset, size);
  readFileInto(path, input);
  const loadNs = nowNs() - loadStart;
  const output = new Uint8Array(memory.buffer, outputOffset, size);
  output.fill(0xff);
  return { memory, input, output, loadNs };
}

function readFileInto(path, bytes) {
  const fd = fs.openSync(path, 'r');
  try {
    for (let offset = 0; offset < bytes.length;) {
      const read = fs.readSync(fd, bytes, offset, Math.min(bytes.length - offset, 1 << 30), offset);
      if (read === 0) throw new Error(`${path} ended after ${offset} of ${bytes.length} bytes`);
      offset += read;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The per-repetition key schedule, part of the timed work: K1 and K2, or for `table` the
 * 256-byte table of the key (tuned: written into the memory the look-up reads, with its pair
 * table for a large input).
 */
export function makeCipher(kind, kernel, key, memory, size) {
  const [k1, k2] = portable.subkeys(key);
  if (kind === 'bitwise') {
    const technique = kernel === 'tuned' ? techniqueOf(kind).label : null;
    if (technique?.startsWith('wasm')) writeConstants(memory.buffer, BITWISE_CONSTANTS_OFFSET, k1, k2);
    return { kind, kernel, technique, k1, k2 };
  }
  if (kernel === 'portable') return { kind, kernel, table: portable.keyTable(k1, k2) };
  const pairs = size >= PAIRS_MIN_BYTES;
  writeTables(portable.keyTable(k1, k2, tuned.encryptByte), memory.buffer, pairs);
  return { kind, kernel, pairs };
}

function sha256Hex(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

const COPY_CEILING = 'copy';

/**
 * The tuned kernel's compiled WebAssembly, before any timed region: the table look-up, and the
 * bitwise cipher's SIMD loop when the technique is one (chosen here, so a technique asked for
 * but unavailable stops the case before its ready line).
 */
function wasmModules(cipher, shared) {
  const technique = techniqueOf(cipher).label;
  const bitwise = technique.startsWith('wasm') && cipher === 'bitwise' ? bitwiseModule(shared, technique === 'wasm-relaxed-simd') : null;
  return { lookup: tableLookupModule(shared), bitwise };
}

function prepareSeq(params, kernel) {
  const { memory, input, output, loadNs } = loadBuffers(params.input, false, kernel);
  const kernels = kernel === 'tuned' ? instantiateKernels(memory, wasmModules(params.cipher, false)) : null;
  return {
    async runOnce(repetition) {
      const { cipher, key } = repetition.params;
      repetition.startClock();
      encryptRange(makeCipher(cipher, kernel, key, memory, input.length), kernels, input, output, 0, input.length);
      repetition.stopClock();
      const checksum = await repetition.checksum(() => sha256Hex(output));
      const copyStart = nowNs();
      output.set(input);
      const ceilingNs = nowNs() - copyStart;
      return { items: input.length, checksum, extra: { load_ns: loadNs, ceiling: COPY_CEILING, ceiling_ns: ceilingNs } };
    },
  };
}

/**
 * `workers` worker threads over the shared memory, started in every repetition (cold) or once
 * here (warm); each encrypts its own chunk, then claims more with Atomics.add.
 */
async function prepareWorkerThreads(params, workers, kernel, start) {
  const { memory, input, output, loadNs } = loadBuffers(params.input, true, kernel);
  const { chunk, chunks } = chunkPlan(input.length, workers, BYTES_CAP, params.chunk);
  // tuned: the compiled modules go to the workers with the memory (V8 shares their code between
  // isolates); portable: the two SharedArrayBuffers.
  const buffers = kernel === 'tuned'
    ? { memory, modules: wasmModules(params.cipher, true), inputOffset: input.byteOffset, outputOffset: output.byteOffset }
    : { inputBuffer: input.buffer, outputBuffer: output.buffer };
  const sharedTask = { ...buffers, size: input.length, chunk, chunks };
  const task = (cipher) => ({ ...sharedTask, cipher, counter: newChunkCounter(workers).buffer });
  const { team, startNs } = await startTeam(start, WORKER_MODULE, workers);
  return {
    startNs,
    async runOnce(repetition) {
      const { cipher, key } = repetition.params;
      const clockStart = repetition.startClock();
      const results = await team.run('encryptChunks', task(makeCipher(cipher, kernel, key, memory, input.length)));
      repetition.stopClock();
      repetition.recordBusy(results);
      const report = workersReport(results, clockStart);
      if (report.chunks_done !== chunks) throw new Error(`workers encrypted ${report.chunks_done} of ${chunks} chunks`);
      const checksum = await repetition.checksum(() => sha256Hex(output));
      const ceilingNs = await timeParallelCopy(repetition, team, task(null));
      return {
        items: input.length,
        checksum,
        extra: { load_ns: loadNs, chunk, chunks, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns, ceiling: COPY_CEILING, ceiling_ns: ceilingNs },
      };
    },
    close: () => team.end(),
  };
}

/** The copy ceiling: the same chunks copied by as many worker threads, running before its clock. */
function timeParallelCopy(repetition, team, task) {
  return team.withCeilingWorkers(repetition, async (ceilingTeam) => {
    const begin = nowNs();
    await ceilingTeam.run('copyChunks', task);
    return nowNs() - begin;
  });
}

export const sdesEcb = {
  name: 'sdes-ecb',
  params: {
    input: { kind: 'string' },
    key: { kind: 'int', default: 642, maximum: 1023 },
    cipher: { kind: 'choice', choices: ['bitwise', 'table'], default: 'table' },
    chunk: { kind: 'int', default: 0 },
  },
  // Protocol 3: repetition j encrypts under the key read from stdin before it.
  variantParam: 'key',
  kernels: { portable: PORTABLE_DETAIL, tuned: TUNED_LISTING },
  kernelDetail: (kernel, params) => kernelDetail(kernel, params.cipher),
  models: {
    seq: { family: 'seq', note: 'output pre-faulted once before timing; key schedule inside; portable: the reference procedure over plain typed arrays; tuned: input and output in one WebAssembly.Memory, table looked up by a WebAssembly loop (pair table from 1 MiB), bitwise by the technique its kernel_detail names (WebAssembly SIMD nibble matrices where V8 has SIMD)' },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `--workers worker_threads (cold: started and joined inside every repetition's timed region; warm: started once before the first repetition); input and output shared with no copy (portable: two SharedArrayBuffers; tuned: one shared WebAssembly.Memory, the compiled module passed to every worker), output pre-faulted once before timing; each worker takes its own chunk, then claims more with Atomics.add; chunk min(${BYTES_CAP}, ceil(size/workers)) bytes or --chunk`,
      start: {
        cold: 'the Workers started inside each repetition\'s clock and joined (exited) before it stops; the copy ceiling\'s Workers started and terminated within the repetition',
        warm: 'the Workers started once before the ready line; each repetition posts the chunks\' task to every worker and awaits its reply; the copy ceiling runs on the same Workers',
      },
    },
  },
  prepare({ model, params, workers, start, kernel = 'portable' }) {
    // stat, not fs.existsSync: access(2) asks as the real user without capabilities, and parbench's
    // benchmark user reads a project under a root-only folder by CAP_DAC_READ_SEARCH alone.
    if (!fs.statSync(params.input, { throwIfNoEntry: false })) throw new UsageError(`--input '${params.input}' does not exist`);
    return model === 'seq' ? prepareSeq(params, kernel) : prepareWorkerThreads(params, workers, kernel, start);
  },
};
