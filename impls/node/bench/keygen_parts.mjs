/**
 * Where keygen's time goes on one thread, per part, for COUNT keys of 1000 bytes in blocks of 1024:
 *   node bench/keygen_parts.mjs [COUNT=20480]
 * (docs/runtimes/node.md, "Distance to the ceiling").
 */
import crypto from 'node:crypto';
import { base32Module } from '../src/base32_wasm.js';
import { WasmKeyBuffers } from '../src/workloads/keygen/worker.js';
import { report, timeIt } from './measure.mjs';

const count = Number(process.argv[2] ?? 20480);
const keyBytes = 1000;
const width = 1600;
const block = 1024;
const blocks = Math.ceil(count / block);
const buffers = new WasmKeyBuffers(base32Module(), block, keyBytes);
crypto.randomFillSync(buffers.raw);

const ALPHABET = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1');
const PAIRS = new Uint16Array(1024);
for (let pair = 0; pair < 1024; pair++) PAIRS[pair] = ALPHABET[pair >>> 5] | (ALPHABET[pair & 0x1f] << 8);

// The encoder keygen had before: one alphabet look-up and one store per character.
function perCharacter(source, start, target, targetStart) {
  let out = targetStart;
  for (let i = start; i < start + keyBytes; i += 5) {
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
}

// The same pair table as the WebAssembly encoder, in JS over a Uint16Array view.
function pairsInJs(source, start, target16, target16Start) {
  let out = target16Start;
  for (let i = start; i < start + keyBytes; i += 5) {
    const rest = ((source[i + 1] << 24) | (source[i + 2] << 16) | (source[i + 3] << 8) | source[i + 4]) >>> 0;
    target16[out++] = PAIRS[(source[i] << 2) | (rest >>> 30)];
    target16[out++] = PAIRS[(rest >>> 20) & 0x3ff];
    target16[out++] = PAIRS[(rest >>> 10) & 0x3ff];
    target16[out++] = PAIRS[rest & 0x3ff];
  }
}

// The shared technique's generator, for comparison: AES-128-CTR over zeros (OpenSSL's AES-NI
// counter mode), keyed once; update() returns a new Buffer each call (Node has no update into a
// given buffer), so a block is one call and one allocation of its 1 MiB.
const aesCtr = crypto.createCipheriv('aes-128-ctr', crypto.randomBytes(16), crypto.randomBytes(16));
const zeros = Buffer.alloc(buffers.raw.length);

const records16 = new Uint16Array(buffers.records.buffer, buffers.records.byteOffset, buffers.records.length / 2);
const everyBlock = (body) => () => { for (let b = 0; b < blocks; b++) body(); };
const everyKey = (body) => everyBlock(() => { for (let k = 0; k < block; k++) body(k); });
let kept;
const parts = {
  'randomFillSync, one call per block': everyBlock(() => crypto.randomFillSync(buffers.raw)),
  "createCipheriv('aes-128-ctr').update over zeros, one call per block": everyBlock(() => { kept = aesCtr.update(zeros); }),
  "the same, copied into the block's buffer": everyBlock(() => aesCtr.update(zeros).copy(buffers.raw)),
  'Base32, per-character JS': everyKey((k) => perCharacter(buffers.raw, k * keyBytes, buffers.records, k * width)),
  'Base32, pair table in JS': everyKey((k) => pairsInJs(buffers.raw, k * keyBytes, records16, k * width / 2)),
  'Base32, pair table in wasm (used)': everyBlock(() => buffers.encode(block)),
  'strings (latin1), dropped': everyKey((k) => { kept = buffers.records.toString('latin1', k * width, (k + 1) * width); }),
  'strings (latin1), kept in one array': () => { const keys = []; everyKey((k) => keys.push(buffers.records.toString('latin1', k * width, (k + 1) * width)))(); kept = keys; },
  'one string a block, keys sliced': () => { const keys = []; everyBlock(() => { const all = buffers.records.toString('latin1'); for (let k = 0; k < block; k++) keys.push(all.slice(k * width, (k + 1) * width)); })(); kept = keys; },
};
console.log(`${blocks * block} keys of ${keyBytes} bytes`);
for (const [name, part] of Object.entries(parts)) {
  part();
  report(name, timeIt(part, 9));
}
void kept;
