/** keygen: random keys encoded as lower-case RFC 4648 Base32, sequentially or on worker threads. */
import crypto from 'node:crypto';
import { OrderFreeDigest, splitmix64Fill } from '../digest.js';
import { nowNs } from '../protocol.js';
import { WorkerPool } from '../worker_pool.js';

const ALPHABET = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1');
const PAD = '='.charCodeAt(0);
// Random bytes are drawn a block of keys at a time: one OpenSSL call per 64 KiB, not per key.
const KEYS_PER_BLOCK = 64;

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

/**
 * Generates keys [first, end) into `output`, key i at i * encodedLength(keyBytes): the keys are
 * kept as fixed-width ASCII records, the one form that worker threads can share without a copy.
 * Returns the characters written.
 */
export function generateKeys({ first, end, keyBytes, source, seed }, output) {
  const width = encodedLength(keyBytes);
  const block = Buffer.allocUnsafe(KEYS_PER_BLOCK * keyBytes);
  let written = 0;
  for (let blockFirst = first; blockFirst < end; blockFirst += KEYS_PER_BLOCK) {
    const keysInBlock = Math.min(KEYS_PER_BLOCK, end - blockFirst);
    if (source === 'strong') {
      crypto.randomFillSync(block, 0, keysInBlock * keyBytes);
    } else {
      for (let k = 0; k < keysInBlock; k++) splitmix64Fill(seed, blockFirst + k, block, k * keyBytes, keyBytes);
    }
    for (let k = 0; k < keysInBlock; k++) {
      written += base32LowerInto(block, k * keyBytes, keyBytes, output, (blockFirst + k) * width);
    }
  }
  return written;
}

/** The checksum of a finished run: "<count>:<chars>" for strong keys, the order-free digest for seeded ones. */
export function keysChecksum(output, count, keyBytes, source, charsWritten) {
  if (source === 'strong') return `${count}:${charsWritten}`;
  const width = encodedLength(keyBytes);
  const digest = new OrderFreeDigest();
  for (let i = 0; i < count; i++) digest.addBytes(output, i * width, (i + 1) * width);
  return digest.hex();
}

/** Contiguous ranges of roughly equal size, one per worker. */
export function splitRange(count, parts) {
  const ranges = [];
  for (let p = 0; p < parts; p++) {
    ranges.push({ first: Math.floor((count * p) / parts), end: Math.floor((count * (p + 1)) / parts) });
  }
  return ranges;
}

function jobOf(params) {
  return { keyBytes: params.bytes, source: params.source, seed: params.seed };
}

async function prepareSeq(params) {
  const { count } = params;
  const job = jobOf(params);
  // The output is allocated once, outside the timed region, for every model alike: a fresh
  // SharedArrayBuffer per repetition stays alive until each worker's next GC and would inflate peak RSS.
  const output = new Uint8Array(count * encodedLength(job.keyBytes));
  return {
    async runOnce() {
      const start = nowNs();
      const chars = generateKeys({ ...job, first: 0, end: count }, output);
      const ns = nowNs() - start;
      return { ns, items: count, checksum: keysChecksum(output, count, job.keyBytes, job.source, chars) };
    },
  };
}

async function prepareWorkerThreads(params, workers) {
  const { count } = params;
  const job = jobOf(params);
  const pool = await WorkerPool.start(workers, import.meta.url, null);
  const shared = new SharedArrayBuffer(count * encodedLength(job.keyBytes));
  return {
    async runOnce() {
      const start = nowNs();
      const tasks = splitRange(count, workers).map((range) => ({ ...job, ...range, output: shared }));
      const charsPerWorker = await pool.runAll(tasks);
      const ns = nowNs() - start;
      const chars = charsPerWorker.reduce((a, b) => a + b, 0);
      return { ns, items: count, checksum: keysChecksum(new Uint8Array(shared), count, job.keyBytes, job.source, chars) };
    },
    close: () => pool.close(),
  };
}

/** Worker side: generate the asked range straight into the shared output. */
export async function startWorker() {
  return { handle: (task) => generateKeys(task, new Uint8Array(task.output)) };
}

export const keygen = {
  name: 'keygen',
  params: {
    count: { kind: 'int', default: 2000 },
    bytes: { kind: 'int', default: 1000 },
    source: { kind: 'choice', choices: ['strong', 'seeded'], default: 'strong' },
    seed: { kind: 'uint64', default: 0n },
  },
  models: {
    seq: { family: 'seq', note: 'keys encoded into one fixed-width ASCII buffer, allocated once before timing' },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: 'a pool of worker_threads (started before timing) each encodes a contiguous range into one SharedArrayBuffer, allocated once before timing',
    },
  },
  prepare({ model, params, workers }) {
    return model === 'seq' ? prepareSeq(params) : prepareWorkerThreads(params, workers);
  },
};
