/** sdes-ecb: S-DES (Stallings) over every byte of a file, per-byte rounds or the key's table; the protocol side. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { BYTES_CAP, chunkPlan, newChunkCounter } from '../chunking.js';
import { LimitError, nowNs, UsageError } from '../protocol.js';
import { PAIRS_MIN_BYTES, TABLES_BYTES, tableLookupModule, writeTables } from '../table_lookup_wasm.js';
import { ReadyWorkers, runWorkers, workersReport } from '../worker_team.js';
import { encryptRange, instantiateTableLookup, keyTable, subkeys } from './sdes_ecb_worker.js';

// Worker threads load the cipher's module only.
const WORKER_MODULE = new URL('./sdes_ecb_worker.js', import.meta.url);

/**
 * The buffers of a case: one WebAssembly.Memory laid out as [tables | input | output], so the
 * WebAssembly table form sees the bytes with no copy; shared for worker threads. The input is
 * read and the output written once (pre-faulted) before the first repetition.
 */
function loadBuffers(path, shared) {
  const loadStart = nowNs();
  const size = fs.statSync(path).size;
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
 * 256-byte table of the key (and its T16 for a large input) in the memory the look-up reads.
 */
export function makeCipher(kind, key, memory, size) {
  if (kind === 'table') {
    const pairs = size >= PAIRS_MIN_BYTES;
    writeTables(keyTable(key), memory.buffer, pairs);
    return { kind, pairs };
  }
  const [k1, k2] = subkeys(key);
  return { kind, k1, k2 };
}

function sha256Hex(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

const COPY_CEILING = 'copy';

function prepareSeq(params) {
  const { memory, input, output, loadNs } = loadBuffers(params.input, false);
  const lookup = instantiateTableLookup(memory, tableLookupModule(false));
  return {
    async runOnce() {
      const start = nowNs();
      encryptRange(makeCipher(params.cipher, params.key, memory, input.length), lookup, input, output, 0, input.length);
      const ns = nowNs() - start;
      const checksum = sha256Hex(output);
      const copyStart = nowNs();
      output.set(input);
      const ceilingNs = nowNs() - copyStart;
      return { ns, items: input.length, checksum, extra: { load_ns: loadNs, ceiling: COPY_CEILING, ceiling_ns: ceilingNs } };
    },
  };
}

/**
 * Every repetition starts `workers` worker threads over the shared memory; each encrypts its
 * own chunk, then claims more with Atomics.add; the repetition ends when all have exited.
 */
function prepareWorkerThreads(params, workers) {
  const { memory, input, output, loadNs } = loadBuffers(params.input, true);
  const { chunk, chunks } = chunkPlan(input.length, workers, BYTES_CAP, params.chunk);
  // The compiled module goes to the workers with the memory: V8 shares its code between isolates.
  const sharedTask = { memory, module: tableLookupModule(true), inputOffset: input.byteOffset, outputOffset: output.byteOffset, size: input.length, chunk, chunks };
  const task = (cipher) => ({ ...sharedTask, cipher, counter: newChunkCounter(workers).buffer });
  return {
    async runOnce() {
      const start = nowNs();
      const results = await runWorkers(WORKER_MODULE, 'encryptChunks', workers, task(makeCipher(params.cipher, params.key, memory, input.length)));
      const ns = nowNs() - start;
      const report = workersReport(results, start);
      if (report.chunks_done !== chunks) throw new Error(`workers encrypted ${report.chunks_done} of ${chunks} chunks`);
      const checksum = sha256Hex(output);
      const ceilingNs = await timeParallelCopy(workers, task(null));
      return {
        ns,
        items: input.length,
        checksum,
        extra: { load_ns: loadNs, chunk, chunks, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns, ceiling: COPY_CEILING, ceiling_ns: ceilingNs },
      };
    },
  };
}

/** The copy ceiling: the same chunks copied by as many worker threads, started before the clock. */
async function timeParallelCopy(workers, task) {
  const team = await ReadyWorkers.start(WORKER_MODULE, workers);
  try {
    const start = nowNs();
    await team.run('copyChunks', task);
    return nowNs() - start;
  } finally {
    await team.end();
  }
}

export const sdesEcb = {
  name: 'sdes-ecb',
  params: {
    input: { kind: 'string' },
    key: { kind: 'int', default: 642, maximum: 1023 },
    cipher: { kind: 'choice', choices: ['bitwise', 'table'], default: 'table' },
    chunk: { kind: 'int', default: 0 },
  },
  models: {
    seq: { family: 'seq', note: 'input and output in one (unshared) WebAssembly.Memory, output pre-faulted once before timing; key schedule inside; table: the key\'s table looked up by a WebAssembly loop, through a 16-bit pair table (T16) from 1 MiB; bitwise: every byte\'s permutations and rounds in JS' },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `every repetition starts --workers worker_threads inside the timed region and joins them (exit); input and output in one shared WebAssembly.Memory (output pre-faulted once before timing), the compiled WebAssembly module passed to every worker; each worker takes its own chunk, then claims more with Atomics.add; chunk min(${BYTES_CAP}, ceil(size/workers)) bytes or --chunk`,
    },
  },
  prepare({ model, params, workers }) {
    if (!fs.existsSync(params.input)) throw new UsageError(`--input '${params.input}' does not exist`);
    return model === 'seq' ? prepareSeq(params) : prepareWorkerThreads(params, workers);
  },
};
