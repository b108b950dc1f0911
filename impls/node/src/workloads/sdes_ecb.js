/** sdes-ecb: S-DES (Stallings) over every byte of a file, per-byte rounds or a 256-byte table. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { nowNs, UsageError } from '../protocol.js';
import { WorkerPool } from '../worker_pool.js';

// Positions are 1-based from the most significant bit, as in the spec.
const P10 = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6];
const P8 = [6, 3, 7, 4, 8, 5, 10, 9];
const IP = [2, 6, 3, 1, 4, 8, 5, 7];
const IP_INVERSE = [4, 1, 3, 5, 7, 2, 8, 6];
const EXPAND_PERMUTE = [4, 1, 2, 3, 2, 3, 4, 1];
const P4 = [2, 4, 3, 1];
const S0 = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
const S1 = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];

// Work unit of the parallel model: small enough to balance, large enough that the atomic claim is noise.
const DEFAULT_CHUNK = 65536;

function permute(value, width, table) {
  let result = 0;
  for (let i = 0; i < table.length; i++) result = (result << 1) | ((value >>> (width - table[i])) & 1);
  return result;
}

function rotateLeft5(half, by) {
  return ((half << by) | (half >>> (5 - by))) & 0x1f;
}

/** The two round keys [K1, K2] of a 10-bit key. */
export function subkeys(key) {
  const permuted = permute(key, 10, P10);
  let left = rotateLeft5(permuted >>> 5, 1);
  let right = rotateLeft5(permuted & 0x1f, 1);
  const k1 = permute((left << 5) | right, 10, P8);
  left = rotateLeft5(left, 2);
  right = rotateLeft5(right, 2);
  const k2 = permute((left << 5) | right, 10, P8);
  return [k1, k2];
}

function sbox(box, nibble) {
  const row = (((nibble >>> 3) & 1) << 1) | (nibble & 1);
  const column = (((nibble >>> 2) & 1) << 1) | ((nibble >>> 1) & 1);
  return box[row][column];
}

function feistel(block, subkey) {
  const left = block >>> 4;
  const right = block & 0x0f;
  const mixed = permute(right, 4, EXPAND_PERMUTE) ^ subkey;
  const substituted = (sbox(S0, mixed >>> 4) << 2) | sbox(S1, mixed & 0x0f);
  return ((left ^ permute(substituted, 4, P4)) << 4) | right;
}

/** One 8-bit block through IP, f_K1, SW, f_K2, IP^-1. */
export function encryptByte(k1, k2, plain) {
  const first = feistel(permute(plain, 8, IP), k1);
  const swapped = ((first & 0x0f) << 4) | (first >>> 4);
  return permute(feistel(swapped, k2), 8, IP_INVERSE);
}

/** The ciphertext of every byte value under one key. */
export function keyTable(key) {
  const [k1, k2] = subkeys(key);
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) table[b] = encryptByte(k1, k2, b);
  return table;
}

/** Encrypts input[start, end) into output; `cipher` is {kind:'bitwise', k1, k2} or {kind:'table', table}. */
export function encryptRange(cipher, input, output, start, end) {
  if (cipher.kind === 'table') {
    const table = cipher.table;
    for (let i = start; i < end; i++) output[i] = table[input[i]];
  } else {
    const { k1, k2 } = cipher;
    for (let i = start; i < end; i++) output[i] = encryptByte(k1, k2, input[i]);
  }
}

/** The per-repetition cipher state; deriving it is part of the timed work. */
export function makeCipher(kind, key) {
  if (kind === 'table') return { kind, table: keyTable(key) };
  const [k1, k2] = subkeys(key);
  return { kind, k1, k2 };
}

/** Reads a whole file into memory, shared between threads when asked. */
function loadInput(path, shared) {
  const size = fs.statSync(path).size;
  const bytes = new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
  const fd = fs.openSync(path, 'r');
  try {
    let offset = 0;
    while (offset < size) {
      const read = fs.readSync(fd, bytes, offset, Math.min(size - offset, 1 << 30), offset);
      if (read === 0) throw new Error(`${path} ended after ${offset} of ${size} bytes`);
      offset += read;
    }
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

function sha256Hex(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

async function prepareSeq(params) {
  const loadStart = nowNs();
  const input = loadInput(params.input, false);
  const loadNs = nowNs() - loadStart;
  // Allocated once for every model alike: a fresh SharedArrayBuffer per repetition lives on until
  // each worker's next GC, which would inflate the parallel model's peak RSS.
  const output = new Uint8Array(input.length);
  return {
    async runOnce() {
      const start = nowNs();
      encryptRange(makeCipher(params.cipher, params.key), input, output, 0, input.length);
      const ns = nowNs() - start;
      return { ns, items: input.length, checksum: sha256Hex(output), extra: { load_ns: loadNs } };
    },
  };
}

/**
 * Workers claim chunk indices from one shared atomic counter (dynamic scheduling, like a
 * work queue), reading the shared input and writing the shared output in place.
 */
async function prepareWorkerThreads(params, workers) {
  const loadStart = nowNs();
  const input = loadInput(params.input, true);
  const loadNs = nowNs() - loadStart;
  const chunk = params.chunk > 0 ? params.chunk : Math.max(1, Math.min(DEFAULT_CHUNK, Math.ceil(input.length / workers)));
  const nextChunk = new Int32Array(new SharedArrayBuffer(4));
  const pool = await WorkerPool.start(workers, import.meta.url, null);
  const output = new Uint8Array(new SharedArrayBuffer(input.length));
  return {
    async runOnce() {
      const start = nowNs();
      const cipher = makeCipher(params.cipher, params.key);
      Atomics.store(nextChunk, 0, 0);
      const task = { cipher, input: input.buffer, output: output.buffer, chunk, nextChunk: nextChunk.buffer };
      const bytesPerWorker = await pool.runAll(Array(workers).fill(task));
      const ns = nowNs() - start;
      const done = bytesPerWorker.reduce((a, b) => a + b, 0);
      if (done !== input.length) throw new Error(`workers encrypted ${done} of ${input.length} bytes`);
      return { ns, items: input.length, checksum: sha256Hex(output), extra: { load_ns: loadNs, chunk } };
    },
    close: () => pool.close(),
  };
}

/** Worker side: claim chunks until none are left; returns the bytes this worker encrypted. */
export async function startWorker() {
  return {
    handle({ cipher, input, output, chunk, nextChunk }) {
      const inputBytes = new Uint8Array(input);
      const outputBytes = new Uint8Array(output);
      const counter = new Int32Array(nextChunk);
      const chunks = Math.ceil(inputBytes.length / chunk);
      let done = 0;
      for (let index = Atomics.add(counter, 0, 1); index < chunks; index = Atomics.add(counter, 0, 1)) {
        const begin = index * chunk;
        const end = Math.min(begin + chunk, inputBytes.length);
        encryptRange(cipher, inputBytes, outputBytes, begin, end);
        done += end - begin;
      }
      return done;
    },
  };
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
    seq: { family: 'seq', note: 'output buffer allocated once before timing' },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `worker_threads pool over SharedArrayBuffer input/output (allocated before timing); chunks claimed with Atomics.add; default chunk min(${DEFAULT_CHUNK}, size/workers) bytes (extra.chunk)`,
    },
  },
  prepare({ model, params, workers }) {
    if (!fs.existsSync(params.input)) throw new UsageError(`--input '${params.input}' does not exist`);
    return model === 'seq' ? prepareSeq(params) : prepareWorkerThreads(params, workers);
  },
};
