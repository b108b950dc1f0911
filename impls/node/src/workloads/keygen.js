/** keygen: random keys encoded as lower-case RFC 4648 Base32, sequentially or on worker threads; the protocol side. */
import { base32Module } from '../base32_wasm.js';
import { chunkBounds, chunkPlan, KEYS_CAP, newChunkCounter } from '../chunking.js';
import { OrderFreeDigest } from '../digest.js';
import { nowNs } from '../protocol.js';
import { ReadyWorkers, runWorkers, workersReport } from '../worker_team.js';
import { base32Chunks, csprngChunks, encodedLength, fillKeyBytes, KeyBuffers } from './keygen_worker.js';

// Worker threads load the keys' module only.
const WORKER_MODULE = new URL('./keygen_worker.js', import.meta.url);

export const STRONG_SOURCE = `crypto.randomFillSync (OpenSSL ${process.versions.openssl} RAND_bytes: per-thread CTR-DRBG AES-256 seeded from getrandom)`;

/** Appends each record of `encoded` to `keys` as a JS string (one-byte, copied by latin1 decoding). */
export function appendKeys(keys, encoded, width) {
  const records = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  for (let offset = 0; offset < records.length; offset += width) keys.push(records.toString('latin1', offset, offset + width));
}

/** The checksum of a finished run: "<count>:<chars>" for strong keys, the order-free digest for seeded ones. */
export function keysChecksum(keys, source) {
  if (source === 'strong') return `${keys.length}:${keys.reduce((chars, key) => chars + key.length, 0)}`;
  const digest = new OrderFreeDigest();
  for (const key of keys) digest.addAscii(key);
  return digest.hex();
}

function jobOf(params) {
  // The compiled encoder travels with the job: worker threads instantiate it, V8 shares its code.
  return { keyBytes: params.bytes, source: params.source, seed: params.seed, count: params.count, module: base32Module() };
}

const CEILING = 'csprng+base32';

/** The ceiling's extra fields from its two parts, timed separately. */
function ceilingExtra([csprngNs, base32Ns]) {
  return { ceiling: CEILING, ceiling_ns: csprngNs + base32Ns, csprng_ns: csprngNs, base32_ns: base32Ns };
}

function checkedResult(ns, keys, job, extra) {
  if (keys.length !== job.count) throw new Error(`made ${keys.length} of ${job.count} keys`);
  return { ns, items: job.count, checksum: keysChecksum(keys, job.source), extra };
}

/** seq: blocks of KEYS_CAP keys, one randomFillSync and one encoder call per key, each key a string. */
function prepareSeq(params) {
  const job = jobOf(params);
  const { chunk: block, chunks: blocks } = chunkPlan(job.count, 1, KEYS_CAP);
  return {
    async runOnce() {
      const start = nowNs();
      const keys = [];
      const buffers = new KeyBuffers(job.module, block, job.keyBytes);
      for (let index = 0; index < blocks; index++) {
        const [first, end] = chunkBounds(index, block, job.count);
        fillKeyBytes(job, first, end - first, buffers.raw);
        buffers.encode(end - first);
        appendKeys(keys, buffers.recordsOf(end - first), buffers.width);
      }
      const ns = nowNs() - start;
      const result = checkedResult(ns, keys, job, undefined);
      if (job.source === 'strong') result.extra = ceilingExtra(timeSeqCeiling({ ...job, chunk: block, chunks: blocks }));
      return result;
    },
  };
}

function timeSeqCeiling(task) {
  return [csprngChunks, base32Chunks].map((part) => {
    const start = nowNs();
    part({ ...task, counter: newChunkCounter(1).buffer }, 0);
    return nowNs() - start;
  });
}

/**
 * Every repetition starts `workers` worker threads; each makes its own chunk of keys, then claims
 * more with Atomics.add, and transfers each chunk's records to the main thread, which makes them
 * strings as they arrive: strings cannot be shared between isolates.
 */
function prepareWorkerThreads(params, workers) {
  const job = jobOf(params);
  const width = encodedLength(job.keyBytes);
  const { chunk, chunks } = chunkPlan(job.count, workers, KEYS_CAP, params.chunk);
  const task = () => ({ ...job, chunk, chunks, counter: newChunkCounter(workers).buffer });
  return {
    async runOnce() {
      const start = nowNs();
      const keys = [];
      const results = await runWorkers(WORKER_MODULE, 'generateChunks', workers, task(), ({ encoded }) => appendKeys(keys, encoded, width));
      const ns = nowNs() - start;
      const report = workersReport(results, start);
      const result = checkedResult(ns, keys, job, { chunk, chunks, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns });
      if (job.source === 'strong') Object.assign(result.extra, ceilingExtra(await timeParallelCeiling(workers, task)));
      return result;
    },
  };
}

/** Both parts of the ceiling on the same number of worker threads, started before the clocks. */
async function timeParallelCeiling(workers, task) {
  const team = await ReadyWorkers.start(WORKER_MODULE, workers);
  try {
    const times = [];
    for (const part of ['csprngChunks', 'base32Chunks']) {
      const start = nowNs();
      await team.run(part, task());
      times.push(nowNs() - start);
    }
    return times;
  } finally {
    await team.end();
  }
}

export const keygen = {
  name: 'keygen',
  params: {
    count: { kind: 'int', default: 2000 },
    bytes: { kind: 'int', default: 1000 },
    source: { kind: 'choice', choices: ['strong', 'seeded'], default: 'strong' },
    seed: { kind: 'uint64', default: 0n },
    chunk: { kind: 'int', default: 0 },
  },
  models: {
    seq: { family: 'seq', note: `blocks of ${KEYS_CAP} keys: one randomFillSync, a WebAssembly Base32 encoder into a scratch memory, each key a latin1 string in one array` },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `every repetition starts --workers worker_threads inside the timed region and joins them (exit); each makes its own chunk of keys (randomFillSync, WebAssembly Base32), then claims more with Atomics.add, and transfers each chunk's records to the main thread, which makes them strings in one array (strings cannot cross isolates); chunk min(${KEYS_CAP}, ceil(count/workers)) keys or --chunk`,
    },
  },
  prepare({ model, params, workers }) {
    return model === 'seq' ? prepareSeq(params) : prepareWorkerThreads(params, workers);
  },
};
