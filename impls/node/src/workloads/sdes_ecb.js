/** sdes-ecb: S-DES (Stallings) over every byte of a file, per-byte rounds or a 256-byte table. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { BYTES_CAP, chunkBounds, chunkPlan, claimChunks, newChunkCounter } from '../chunking.js';
import { nowNs, UsageError } from '../protocol.js';
import { ReadyWorkers, runWorkers, workersReport } from '../worker_team.js';

// Positions are 1-based from the most significant bit, as in the spec.
const P10 = [3, 5, 2, 7, 4, 10, 1, 9, 8, 6];
const P8 = [6, 3, 7, 4, 8, 5, 10, 9];
const IP = [2, 6, 3, 1, 4, 8, 5, 7];
const IP_INVERSE = [4, 1, 3, 5, 7, 2, 8, 6];
const EXPAND_PERMUTE = [4, 1, 2, 3, 2, 3, 4, 1];
const P4 = [2, 4, 3, 1];
const S0 = [[1, 0, 3, 2], [3, 2, 1, 0], [0, 2, 1, 3], [3, 1, 3, 2]];
const S1 = [[0, 1, 2, 3], [2, 0, 1, 3], [3, 0, 1, 0], [2, 1, 0, 3]];

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

/** The output buffer every repetition writes into, with each page written once so its faults are not timed. */
function preFaultedOutput(size, shared) {
  const output = new Uint8Array(shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size));
  output.fill(0xff);
  return output;
}

/** Input and output, loaded and allocated before the first repetition (outside every timed region). */
function loadBuffers(path, shared) {
  const loadStart = nowNs();
  const input = loadInput(path, shared);
  const loadNs = nowNs() - loadStart;
  return { input, output: preFaultedOutput(input.length, shared), loadNs };
}

function sha256Hex(bytes) {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

const COPY_CEILING = 'copy';

function prepareSeq(params) {
  const { input, output, loadNs } = loadBuffers(params.input, false);
  return {
    async runOnce() {
      const start = nowNs();
      encryptRange(makeCipher(params.cipher, params.key), input, output, 0, input.length);
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
 * Every repetition starts `workers` worker threads over the shared input and output; each
 * encrypts its own chunk, then claims more with Atomics.add; the repetition ends when all exited.
 */
function prepareWorkerThreads(params, workers) {
  const { input, output, loadNs } = loadBuffers(params.input, true);
  const { chunk, chunks } = chunkPlan(input.length, workers, BYTES_CAP, params.chunk);
  const task = (cipher) => ({ cipher, input: input.buffer, output: output.buffer, counter: newChunkCounter(workers).buffer, chunk, chunks });
  return {
    async runOnce() {
      const start = nowNs();
      const results = await runWorkers(import.meta.url, 'encryptChunks', workers, task(makeCipher(params.cipher, params.key)));
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
  const team = await ReadyWorkers.start(import.meta.url, workers);
  try {
    const start = nowNs();
    await team.run('copyChunks', task);
    return nowNs() - start;
  } finally {
    await team.end();
  }
}

/** Worker side: encrypts its chunks in place in the shared output. */
export function encryptChunks({ cipher, input, output, counter, chunk, chunks }, worker) {
  const inputBytes = new Uint8Array(input);
  const outputBytes = new Uint8Array(output);
  let done = 0;
  for (const index of claimChunks(new Int32Array(counter), worker, chunks)) {
    const [begin, end] = chunkBounds(index, chunk, inputBytes.length);
    encryptRange(cipher, inputBytes, outputBytes, begin, end);
    done++;
  }
  return { chunks: done };
}

/** Worker side of the ceiling: copies its chunks with TypedArray.set (memmove). */
export function copyChunks({ input, output, counter, chunk, chunks }, worker) {
  const inputBytes = new Uint8Array(input);
  const outputBytes = new Uint8Array(output);
  let done = 0;
  for (const index of claimChunks(new Int32Array(counter), worker, chunks)) {
    const [begin, end] = chunkBounds(index, chunk, inputBytes.length);
    outputBytes.set(inputBytes.subarray(begin, end), begin);
    done++;
  }
  return { chunks: done };
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
    seq: { family: 'seq', note: 'output buffer allocated and pre-faulted once before timing; key schedule inside' },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `every repetition starts --workers worker_threads inside the timed region and joins them (exit); SharedArrayBuffer input and output (output allocated and pre-faulted once before timing); each worker takes its own chunk, then claims more with Atomics.add; chunk min(${BYTES_CAP}, ceil(size/workers)) bytes or --chunk`,
    },
  },
  prepare({ model, params, workers }) {
    if (!fs.existsSync(params.input)) throw new UsageError(`--input '${params.input}' does not exist`);
    return model === 'seq' ? prepareSeq(params) : prepareWorkerThreads(params, workers);
  },
};
