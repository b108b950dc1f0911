/**
 * keygen's keys: random bytes, lower-case padded RFC 4648 Base32, and what a keygen worker
 * thread runs. Kept apart from the workload's protocol side so that each worker, which boots
 * its own isolate every repetition, loads only this.
 */
import crypto from 'node:crypto';
import { chunkBounds, claimChunks } from '../../chunking.js';
import { splitmix64Fill } from '../../digest.js';
import { BusyInterval } from '../../protocol.js';
import { SIMD_CONSTANTS } from '../../base32_simd_constants.js';

const ALPHABET = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1');
const PAD = '='.charCodeAt(0);

/** Where the WebAssembly encoder's table of 1,024 character pairs lives in its memory. */
export const PAIRS_OFFSET = 0;
const PAIRS_BYTES = 2048;
/** Where the SIMD encoder's swizzle indices and multipliers live, after the pairs (both encoders' memories have them). */
export const SIMD_CONSTANTS_OFFSET = PAIRS_BYTES;

export function encodedLength(byteCount) {
  return Math.ceil(byteCount / 5) * 8;
}

/** The last 1-4 bytes of a key: the characters that carry bits, then '=' to a group of eight. */
function encodeTail(source, start, remaining, target, targetStart) {
  let group = 0;
  for (let k = 0; k < 5; k++) group = group * 256 + (k < remaining ? source[start + k] : 0);
  const significantChars = [0, 2, 4, 5, 7][remaining];
  for (let k = 0; k < 8; k++) {
    const quintet = Math.floor(group / 2 ** (35 - 5 * k)) & 0x1f;
    target[targetStart + k] = k < significantChars ? ALPHABET[quintet] : PAD;
  }
}

/**
 * The portable encoder: RFC 4648 Base32 as plain JS writes it, five bits at a time through a
 * bit buffer, characters into `target` from `targetStart`, '=' to a multiple of eight.
 * Fewer than 5 bits are left over before each byte, so 12 bits of buffer hold every pending one.
 */
export function encodeBase32Into(source, start, end, target, targetStart) {
  let out = targetStart;
  let buffer = 0;
  let bits = 0;
  for (let i = start; i < end; i++) {
    buffer = ((buffer << 8) | source[i]) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      target[out++] = ALPHABET[(buffer >>> bits) & 0x1f];
    }
  }
  if (bits > 0) target[out++] = ALPHABET[(buffer << (5 - bits)) & 0x1f];
  while ((out - targetStart) % 8 !== 0) target[out++] = PAD;
  return out;
}

/** The portable kernel's buffers: raw bytes and Base32 records for up to `capacity` keys, plain Buffers. */
export class PortableKeyBuffers {
  constructor(capacity, keyBytes) {
    this.keyBytes = keyBytes;
    this.width = encodedLength(keyBytes);
    this.raw = Buffer.alloc(capacity * keyBytes);
    this.records = Buffer.alloc(capacity * this.width);
  }

  encode(keys) {
    for (let k = 0; k < keys; k++) encodeBase32Into(this.raw, k * this.keyBytes, (k + 1) * this.keyBytes, this.records, k * this.width);
  }

  recordsOf(keys) {
    return this.records.subarray(0, keys * this.width);
  }
}

/** The kernel's key buffers: the same interface, the plain JS encoder (portable) or the WebAssembly one (tuned). */
export function keyBuffers(kernel, module, capacity, keyBytes) {
  return kernel === 'portable' ? new PortableKeyBuffers(capacity, keyBytes) : new WasmKeyBuffers(module, capacity, keyBytes);
}

/** The keys of a chunk's records as strings (each a one-byte string, copied by latin1 decoding), appended to `keys`. */
export function appendKeys(keys, records, width) {
  const buffer = Buffer.from(records.buffer, records.byteOffset, records.byteLength);
  for (let offset = 0; offset < buffer.length; offset += width) keys.push(buffer.toString('latin1', offset, offset + width));
  return keys;
}

/**
 * The tuned kernel's buffers: raw bytes and their Base32 records for up to `capacity` keys of
 * `keyBytes` bytes, in one WebAssembly memory [pairs | raw | records] that the encoder works in: key k's bytes are at
 * raw[k·keyBytes], its characters at records[k·width].
 */
export class WasmKeyBuffers {
  constructor(module, capacity, keyBytes) {
    this.keyBytes = keyBytes;
    this.width = encodedLength(keyBytes);
    const rawOffset = SIMD_CONSTANTS_OFFSET + SIMD_CONSTANTS.length;
    const recordsOffset = rawOffset + Math.ceil((capacity * keyBytes) / 8) * 8;
    const pages = Math.max(1, Math.ceil((recordsOffset + capacity * this.width) / 65536));
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const pairs = new Uint8Array(memory.buffer, PAIRS_OFFSET, PAIRS_BYTES);
    for (let pair = 0; pair < 1024; pair++) {
      pairs[2 * pair] = ALPHABET[pair >>> 5];
      pairs[2 * pair + 1] = ALPHABET[pair & 0x1f];
    }
    new Uint8Array(memory.buffer).set(SIMD_CONSTANTS, SIMD_CONSTANTS_OFFSET);
    this.raw = Buffer.from(memory.buffer, rawOffset, capacity * keyBytes);
    this.records = Buffer.from(memory.buffer, recordsOffset, capacity * this.width);
    this.encodeGroups = new WebAssembly.Instance(module, { env: { memory } }).exports.encodeGroups;
  }

  /** Encodes keys 0..keys-1 from raw into records: whole groups in WebAssembly, a short tail here. */
  encode(keys) {
    const groups = Math.floor(this.keyBytes / 5);
    const tail = this.keyBytes - 5 * groups;
    for (let k = 0; k < keys; k++) {
      const source = k * this.keyBytes;
      const target = k * this.width;
      this.encodeGroups(this.raw.byteOffset + source, this.records.byteOffset + target, groups);
      if (tail > 0) encodeTail(this.raw, source + 5 * groups, tail, this.records, target + 8 * groups);
    }
  }

  /** The records of the first `keys` keys. */
  recordsOf(keys) {
    return this.records.subarray(0, keys * this.width);
  }
}

/** Writes the raw bytes of keys [first, first + keys) into `raw`: one OpenSSL call, or SplitMix64 per key. */
export function fillKeyBytes({ keyBytes, source, seed }, first, keys, raw) {
  if (source === 'strong') {
    crypto.randomFillSync(raw, 0, keys * keyBytes);
  } else {
    for (let k = 0; k < keys; k++) splitmix64Fill(seed, first + k, raw, k * keyBytes, keyBytes);
  }
}

/** Lower-case padded Base32 of a byte array, as a string, through the kernel's encoder (tuned by default). */
export function base32Lower(module, bytes, kernel = 'tuned') {
  const buffers = keyBuffers(kernel, module, 1, bytes.length);
  buffers.raw.set(bytes);
  buffers.encode(1);
  return buffers.recordsOf(1).toString('latin1');
}

/**
 * Worker side: makes its chunks of keys and posts each one to the main thread with its index.
 * portable: the keys as strings (structured clone copies them into the main thread's heap).
 * tuned: the chunk's records in a fresh buffer it transfers (no copy), which the main thread
 * makes strings.
 */
export function generateChunks(task, worker, post) {
  const buffers = keyBuffers(task.kernel, task.module, task.chunk, task.keyBytes);
  const busy = new BusyInterval();
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    busy.begin();
    const [first, end] = chunkBounds(index, task.chunk, task.count);
    fillKeyBytes(task, first, end - first, buffers.raw);
    buffers.encode(end - first);
    if (task.kernel === 'portable') {
      post({ index, keys: appendKeys([], buffers.recordsOf(end - first), buffers.width) });
    } else {
      const encoded = new Uint8Array(buffers.recordsOf(end - first));
      post({ index, encoded }, [encoded.buffer]);
    }
    busy.end();
    done++;
  }
  return { chunks: done, ...busy.toJSON() };
}

/** Ceiling part (a): the CSPRNG alone fills each chunk's bytes into one scratch buffer. */
export function csprngChunks(task, worker) {
  const raw = Buffer.allocUnsafe(task.chunk * task.keyBytes);
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [first, end] = chunkBounds(index, task.chunk, task.count);
    crypto.randomFillSync(raw, 0, (end - first) * task.keyBytes);
    done++;
  }
  return { chunks: done };
}

/** Ceiling part (b): the kernel's encoder alone encodes each chunk's keys from fixed bytes into its records. */
export function base32Chunks(task, worker) {
  const buffers = keyBuffers(task.kernel, task.module, task.chunk, task.keyBytes);
  buffers.raw.fill(0xa5);
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [first, end] = chunkBounds(index, task.chunk, task.count);
    buffers.encode(end - first);
    done++;
  }
  return { chunks: done };
}
