/** keygen: random keys encoded as lower-case RFC 4648 Base32, sequentially or on worker threads. */
import crypto from 'node:crypto';
import { OrderFreeDigest, splitmix64Fill } from '../digest.js';
import { chunkBounds, chunkPlan, claimChunks, KEYS_CAP, newChunkCounter } from '../chunking.js';
import { nowNs } from '../protocol.js';
import { ReadyWorkers, runWorkers, workersReport } from '../worker_team.js';

const ALPHABET = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1');
const PAD = '='.charCodeAt(0);

export const STRONG_SOURCE = `crypto.randomFillSync (OpenSSL ${process.versions.openssl} RAND_bytes: per-thread CTR-DRBG AES-256 seeded from getrandom)`;

export function encodedLength(byteCount) {
  return Math.ceil(byteCount / 5) * 8;
}

/** Encodes source[start, start+length) as lower-case padded Base32 into target at targetStart; returns chars written. */
export function base32LowerInto(source, start, length, target, targetStart) {
  let out = targetStart;
  const end = start + length;
  let i = start;
  for (; i + 5 <= end; i += 5) {
    const b0 = source[i], b1 = source[i + 1], b2 = source[i + 2], b3 = source[i + 3], b4 = source[i + 4];
    target[out++] = ALPHABET[b0 >>> 3];
    target[out++] = ALPHABET[((b0 & 0x07) << 2) | (b1 >>> 6)];
    target[out++] = ALPHABET[(b1 >>> 1) & 0x1f];
    target[out++] = ALPHABET[((b1 & 0x01) << 4) | (b2 >>> 4)];
    target[out++] = ALPHABET[((b2 & 0x0f) << 1) | (b3 >>> 7)];
    target[out++] = ALPHABET[(b3 >>> 2) & 0x1f];
    target[out++] = ALPHABET[((b3 & 0x03) << 3) | (b4 >>> 5)];
    target[out++] = ALPHABET[b4 & 0x1f];
  }
  const remaining = end - i;
  if (remaining > 0) {
    // The tail is 1-4 bytes: gather them into a 40-bit group and emit only the characters that carry bits.
    let group = 0;
    for (let k = 0; k < 5; k++) group = group * 256 + (k < remaining ? source[i + k] : 0);
    const significantChars = [0, 2, 4, 5, 7][remaining];
    for (let k = 0; k < 8; k++) {
      const quintet = Math.floor(group / 2 ** (35 - 5 * k)) & 0x1f;
      target[out++] = k < significantChars ? ALPHABET[quintet] : PAD;
    }
  }
  return out - targetStart;
}

/** Lower-case padded Base32 of a byte array, as a string. */
export function base32Lower(bytes) {
  const target = Buffer.allocUnsafe(encodedLength(bytes.length));
  base32LowerInto(bytes, 0, bytes.length, target, 0);
  return target.toString('latin1');
}

/** Writes the raw bytes of keys [first, first + keys) into `random`: one OpenSSL call, or SplitMix64 per key. */
export function fillKeyBytes({ keyBytes, source, seed }, first, keys, random) {
  if (source === 'strong') {
    crypto.randomFillSync(random, 0, keys * keyBytes);
  } else {
    for (let k = 0; k < keys; k++) splitmix64Fill(seed, first + k, random, k * keyBytes, keyBytes);
  }
}

/** Encodes `keys` keys of `keyBytes` bytes from `random` into `encoded`, one fixed-width record each. */
export function encodeKeys(random, keys, keyBytes, encoded) {
  const width = encodedLength(keyBytes);
  for (let k = 0; k < keys; k++) base32LowerInto(random, k * keyBytes, keyBytes, encoded, k * width);
}

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
  return { keyBytes: params.bytes, source: params.source, seed: params.seed };
}

const CEILING = 'csprng+base32';

/** The ceiling's extra fields from its two parts, timed separately. */
function ceilingExtra(csprngNs, base32Ns) {
  return { ceiling: CEILING, ceiling_ns: csprngNs + base32Ns, csprng_ns: csprngNs, base32_ns: base32Ns };
}

function checkedResult(ns, keys, count, job, extra) {
  if (keys.length !== count) throw new Error(`made ${keys.length} of ${count} keys`);
  return { ns, items: count, checksum: keysChecksum(keys, job.source), extra };
}

/** seq: blocks of KEYS_CAP keys, one randomFillSync and one scratch record buffer per block. */
function prepareSeq(params) {
  const { count } = params;
  const job = jobOf(params);
  const width = encodedLength(job.keyBytes);
  const { chunk: block, chunks: blocks } = chunkPlan(count, 1, KEYS_CAP);
  return {
    async runOnce() {
      const start = nowNs();
      const keys = [];
      const random = Buffer.allocUnsafe(block * job.keyBytes);
      const encoded = Buffer.allocUnsafe(block * width);
      for (let index = 0; index < blocks; index++) {
        const [first, end] = chunkBounds(index, block, count);
        fillKeyBytes(job, first, end - first, random);
        encodeKeys(random, end - first, job.keyBytes, encoded);
        appendKeys(keys, encoded.subarray(0, (end - first) * width), width);
      }
      const ns = nowNs() - start;
      const result = checkedResult(ns, keys, count, job, undefined);
      if (job.source === 'strong') result.extra = ceilingExtra(...timeSeqCeiling(job, count, block, blocks));
      return result;
    },
  };
}

function timeSeqCeiling(job, count, block, blocks) {
  const csprngNs = timeChunks(csprngChunks, { ...job, count, chunk: block, chunks: blocks, counter: newChunkCounter(1).buffer });
  const base32Ns = timeChunks(base32Chunks, { ...job, count, chunk: block, chunks: blocks, counter: newChunkCounter(1).buffer });
  return [csprngNs, base32Ns];
}

function timeChunks(part, task) {
  const start = nowNs();
  part(task, 0);
  return nowNs() - start;
}

/**
 * Every repetition starts `workers` worker threads; each makes its own chunk of keys, then claims
 * more with Atomics.add, and transfers each chunk's records (zero-copy) to the main thread, which
 * makes them strings as they arrive: strings cannot be shared between isolates.
 */
function prepareWorkerThreads(params, workers) {
  const { count } = params;
  const job = jobOf(params);
  const width = encodedLength(job.keyBytes);
  const { chunk, chunks } = chunkPlan(count, workers, KEYS_CAP, params.chunk);
  const task = () => ({ ...job, count, chunk, chunks, counter: newChunkCounter(workers).buffer });
  return {
    async runOnce() {
      const start = nowNs();
      const keys = [];
      const results = await runWorkers(import.meta.url, 'generateChunks', workers, task(), ({ encoded }) => appendKeys(keys, encoded, width));
      const ns = nowNs() - start;
      const report = workersReport(results, start);
      const result = checkedResult(ns, keys, count, job, { chunk, chunks, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns });
      if (job.source === 'strong') Object.assign(result.extra, ceilingExtra(...await timeParallelCeiling(workers, task)));
      return result;
    },
  };
}

/** Both parts of the ceiling on the same number of worker threads, started before the clocks. */
async function timeParallelCeiling(workers, task) {
  const team = await ReadyWorkers.start(import.meta.url, workers);
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

/** Worker side: makes its chunks of keys and posts each chunk's records to the main thread. */
export function generateChunks(task, worker, post) {
  const width = encodedLength(task.keyBytes);
  const random = Buffer.allocUnsafe(task.chunk * task.keyBytes);
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [first, end] = chunkBounds(index, task.chunk, task.count);
    // A fresh buffer per chunk: it is transferred, so the main thread owns it afterwards.
    const encoded = new Uint8Array((end - first) * width);
    fillKeyBytes(task, first, end - first, random);
    encodeKeys(random, end - first, task.keyBytes, encoded);
    post({ encoded }, [encoded.buffer]);
    done++;
  }
  return { chunks: done };
}

/** Ceiling part (a): the CSPRNG alone fills each chunk's bytes into one scratch buffer. */
export function csprngChunks(task, worker) {
  const random = Buffer.allocUnsafe(task.chunk * task.keyBytes);
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [first, end] = chunkBounds(index, task.chunk, task.count);
    crypto.randomFillSync(random, 0, (end - first) * task.keyBytes);
    done++;
  }
  return { chunks: done };
}

/** Ceiling part (b): the Base32 encoder alone encodes each chunk's keys from fixed bytes into one scratch buffer. */
export function base32Chunks(task, worker) {
  const fixed = Buffer.alloc(task.chunk * task.keyBytes, 0xa5);
  const encoded = Buffer.allocUnsafe(task.chunk * encodedLength(task.keyBytes));
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [first, end] = chunkBounds(index, task.chunk, task.count);
    encodeKeys(fixed, end - first, task.keyBytes, encoded);
    done++;
  }
  return { chunks: done };
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
    seq: { family: 'seq', note: `blocks of ${KEYS_CAP} keys: one randomFillSync, Base32 records into a scratch buffer, each key a latin1 string in one array` },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `every repetition starts --workers worker_threads inside the timed region and joins them (exit); each makes its own chunk of keys, then claims more with Atomics.add, and transfers each chunk's Base32 records to the main thread, which makes them strings in one array (strings cannot cross isolates); chunk min(${KEYS_CAP}, ceil(count/workers)) keys or --chunk`,
    },
  },
  prepare({ model, params, workers }) {
    return model === 'seq' ? prepareSeq(params) : prepareWorkerThreads(params, workers);
  },
};
