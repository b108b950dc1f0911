import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { PAIRS_MIN_BYTES, TABLES_BYTES, tableLookupModule, writeTables } from '../src/table_lookup_wasm.js';
import { sdesEcb } from '../src/workloads/sdes_ecb.js';
import * as portable from '../src/workloads/sdes_ecb/portable.js';
import { EP, IP, IP_INV, P4, permute, subkeys } from '../src/workloads/sdes_ecb/portable.js';
import * as tuned from '../src/workloads/sdes_ecb/tuned.js';
import { instantiateKernels } from '../src/workloads/sdes_ecb/worker.js';
import { quietThreadCount, runModel, runModelRepetitions, threadCountSettled, threadIds } from './helpers.js';

/** The key's table from the reference procedure: the expected ciphertext of every test here. */
const keyTable = (key) => portable.keyTable(...subkeys(key));
const KERNEL_ROUNDS = { portable, tuned };

const KERNELS = Object.keys(sdesEcb.kernels);

const KEY_642_TABLE = 'ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b55156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1efcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c896d8ad1412ccf940434a41a6f71e1bf2a';
const FOX = 'The quick brown fox jumps over the lazy dog\n';
const FOX_SHA256 = '914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf';
const SEED_TEXT = '1234567890\nhogehoge\n私の名前はmorimorikochanです\nDiggy-mo!!!\n';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'parbench-node-sdes-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));

function inputFile(name, content) {
  const file = path.join(folder, name);
  fs.writeFileSync(file, content);
  return file;
}

test('key 1010000010 gives K1 10100100, K2 01000011', () => {
  assert.deepEqual(subkeys(0b1010000010), [0b10100100, 0b01000011]);
});

const VECTORS = [
  ['0000000000', '10101010', '00010001'],
  ['1110001110', '10101010', '11001010'],
  ['1110001110', '01010101', '01110000'],
  ['1111111111', '10101010', '00000100'],
  ['1010000010', '10010111', '00111000'],
  ['1010000010', '00000011', '11010000'],
];
for (const [kernel, rounds] of Object.entries(KERNEL_ROUNDS)) {
  for (const [key, plain, cipher] of VECTORS) {
    test(`${kernel}: key ${key}, plaintext ${plain} -> ${cipher}`, () => {
      const [k1, k2] = subkeys(parseInt(key, 2));
      assert.equal(rounds.encryptByte(k1, k2, parseInt(plain, 2)), parseInt(cipher, 2));
    });
  }

  test(`${kernel}: table of key 642, bytes 0x00..0xff`, () => {
    assert.equal(Buffer.from(portable.keyTable(...subkeys(642), rounds.encryptByte)).toString('hex'), KEY_642_TABLE);
  });
}

test('portable permute: output bit k is input bit table[k], counted from 1 at the most significant', () => {
  assert.equal(permute(0b1000000000, 10, [1, 2]), 0b10);
  assert.equal(permute(0b0000000001, 10, [10, 1]), 0b10);
  assert.equal(permute(0b0110, 4, P4), 0b1010);
});

for (const model of Object.keys(sdesEcb.models)) {
  for (const cipher of ['bitwise', 'table']) {
    for (const kernel of KERNELS) {
      test(`${model} ${cipher} ${kernel}: "The quick brown fox…" under key 642 -> SHA-256 914675d0…`, async () => {
        const result = await runModel(sdesEcb, model, { input: inputFile('fox.txt', FOX), key: 642, cipher }, 2, { kernel });
        assert.equal(result.checksum, FOX_SHA256);
        assert.equal(result.items, FOX.length);
        assert.equal(result.extra.kernel, kernel);
        assert.equal(result.extra.kernel_detail, sdesEcb.kernelDetail(kernel, { cipher }));
      });
    }
  }
}

test('every model and cipher agree for arbitrary keys, sizes and chunks', async () => {
  const random = crypto.createHash('sha256');
  const cases = [
    [inputFile('seed.txt', SEED_TEXT), 642, 0],
    [inputFile('random.bin', Buffer.concat(Array.from({ length: 40 }, (_, i) => random.copy().update(String(i)).digest()))), 1023, 7],
    [inputFile('one.bin', Buffer.from([0x5a])), 0, 0],
  ];
  for (const [input, key, chunk] of cases) {
    const expected = crypto.createHash('sha256').update(Buffer.from(fs.readFileSync(input).map((b) => keyTable(key)[b]))).digest('hex');
    for (const model of Object.keys(sdesEcb.models)) {
      for (const cipher of ['bitwise', 'table']) {
        for (const kernel of KERNELS) {
          const result = await runModel(sdesEcb, model, { input, key, cipher, chunk }, 3, { kernel });
          assert.equal(result.checksum, expected, `${model} ${cipher} ${kernel} key ${key} ${path.basename(input)}`);
        }
      }
    }
  }
});

test('worker-threads at the smoke size (1 MiB, 2 workers): chunk 512 KiB, 2 chunks, both workers used', async () => {
  const input = inputFile('smoke.bin', crypto.randomBytes(1048576));
  const result = await runModel(sdesEcb, 'worker-threads', { input, key: 642, cipher: 'table' }, 2);
  assert.equal(result.extra.chunk, 524288);
  assert.equal(result.extra.chunks, 2);
  assert.equal(result.extra.workers_used, 2);
});

test('worker-threads: --chunk overrides the rule and is reported', async () => {
  const input = inputFile('override.bin', crypto.randomBytes(100000));
  const result = await runModel(sdesEcb, 'worker-threads', { input, key: 642, cipher: 'table', chunk: 30000 }, 2);
  assert.equal(result.extra.chunk, 30000);
  assert.equal(result.extra.chunks, 4);
  assert.equal(result.extra.workers_used, 2);
});

for (const model of Object.keys(sdesEcb.models)) {
  test(`${model}: reports the copy ceiling, and the checksum is the ciphertext's, not the copy's`, async () => {
    const result = await runModel(sdesEcb, model, { input: inputFile('fox.txt', FOX), key: 642, cipher: 'table' });
    assert.equal(result.extra.ceiling, 'copy');
    assert.ok(result.extra.ceiling_ns > 0);
    assert.equal(result.checksum, FOX_SHA256);
  });
}

const SPEC_PERMUTATIONS = [
  ['IP = 2 6 3 1 4 8 5 7', tuned.initialPermutation, 8, IP],
  ['IP⁻¹ = 4 1 3 5 7 2 8 6', tuned.inverseInitialPermutation, 8, IP_INV],
  ['E/P = 4 1 2 3 2 3 4 1', tuned.expandPermute, 4, EP],
  ['P4 = 2 4 3 1', tuned.permute4, 4, P4],
];
for (const [name, shifted, width, table] of SPEC_PERMUTATIONS) {
  test(`tuned ${name}: the shift-and-mask form equals the portable permute over the spec's table on every input`, () => {
    for (let value = 0; value < 1 << width; value++) assert.equal(shifted(value), permute(value, width, table), `input ${value}`);
  });
}

for (const pairs of [0, 1]) {
  test(`the WebAssembly look-up (pairs ${pairs}) maps every byte at any offset and length`, () => {
    const memory = new WebAssembly.Memory({ initial: 3, maximum: 3, shared: true });
    const bytes = new Uint8Array(memory.buffer);
    const table = keyTable(642);
    writeTables(table, memory.buffer, pairs === 1);
    const { lookup } = instantiateKernels(memory, { lookup: tableLookupModule(true) });
    const input = TABLES_BYTES + 5;
    for (let k = 0; k < 300; k++) bytes[input + k] = (k * 167) & 0xff;
    for (const [offset, length] of [[0, 0], [0, 1], [3, 7], [1, 8], [2, 9], [0, 256], [7, 293]]) {
      const output = TABLES_BYTES + 1000 + offset;
      bytes.fill(0, output, output + length + 8);
      lookup(input + offset, output, length, pairs);
      for (let k = 0; k < length; k++) assert.equal(bytes[output + k], table[bytes[input + offset + k]], `offset ${offset} length ${length} byte ${k}`);
      assert.equal(bytes[output + length], 0, `offset ${offset} length ${length}: wrote past the end`);
    }
  });
}

test(`from ${PAIRS_MIN_BYTES} bytes on (the pair table), every model still agrees with the 256-byte table`, async () => {
  const plain = crypto.randomBytes(PAIRS_MIN_BYTES + 13);
  const input = inputFile('pairs.bin', plain);
  const table = keyTable(1000);
  const expected = crypto.createHash('sha256').update(plain.map((b) => table[b])).digest('hex');
  for (const model of Object.keys(sdesEcb.models)) {
    for (const kernel of KERNELS) {
      const result = await runModel(sdesEcb, model, { input, key: 1000, cipher: 'table', chunk: 1048573 }, 2, { kernel });
      assert.equal(result.checksum, expected, `${model} ${kernel}`);
    }
  }
});

// Protocol 2: the kernels agree, and every repetition encrypts under its own key.
test('the tuned shift-and-mask rounds equal the portable reference procedure for every key and byte', () => {
  for (let key = 0; key < 1024; key++) {
    const [k1, k2] = subkeys(key);
    for (let plain = 0; plain < 256; plain++) {
      if (tuned.encryptByte(k1, k2, plain) !== portable.encryptByte(k1, k2, plain)) assert.fail(`key ${key} plain ${plain}`);
    }
  }
});

test('portable and tuned kernels give the same ciphertext under every key, for both ciphers', async () => {
  // 64 keys spread over 0..1023, one per repetition (a stdin line each), each checked against the reference table.
  const plain = crypto.randomBytes(4099);
  const input = inputFile('kernels.bin', plain);
  const keys = Array.from({ length: 64 }, (_, k) => (k * 16 + k) % 1024);
  const expected = keys.map((key) => crypto.createHash('sha256').update(plain.map((b) => keyTable(key)[b])).digest('hex'));
  for (const cipher of ['bitwise', 'table']) {
    for (const kernel of KERNELS) {
      const results = await runModelRepetitions(sdesEcb, 'seq', { input, key: 642, cipher }, undefined, { kernel, variants: keys });
      assert.deepEqual(results.map((result) => result.checksum), expected, `${cipher} ${kernel}`);
    }
  }
});

for (const start of ['cold', 'warm']) {
  test(`worker-threads ${start}: repetition j encrypts under the key of its stdin line and reports every worker busy`, async () => {
    const input = inputFile('variants.bin', crypto.randomBytes(10000));
    const results = await runModelRepetitions(sdesEcb, 'worker-threads', { input, key: 642, cipher: 'table' }, 2, { start, variants: [642, 1023, 5] });
    const plain = fs.readFileSync(input);
    assert.deepEqual(results.map((result) => result.checksum),
      [642, 1023, 5].map((key) => crypto.createHash('sha256').update(plain.map((b) => keyTable(key)[b])).digest('hex')));
    for (const { ns, extra } of results) {
      assert.equal(extra.start, start);
      assert.deepEqual(extra.busy.map(([worker]) => worker).sort(), [0, 1]);
      for (const [, begin, end] of extra.busy) assert.ok(begin >= 0 && begin <= end && end <= ns);
    }
  });
}

test('worker-threads warm: every repetition, ceiling included, runs on the threads made before the first; none is made or ended', async () => {
  const before = await quietThreadCount();
  const input = inputFile('warm.bin', crypto.randomBytes(50000));
  const seen = [];
  const results = await runModelRepetitions(sdesEcb, 'worker-threads', { input, key: 642, cipher: 'bitwise' }, 2,
    { start: 'warm', variants: [1, 2, 3], afterEach: () => seen.push(threadIds()) });
  assert.equal(results.length, 3);
  assert.equal(seen[0].length, before + 2, 'the two warm workers are alive after the first repetition');
  assert.deepEqual(seen[1], seen[0]);
  assert.deepEqual(seen[2], seen[0]);
});

test('worker-threads cold: every repetition ends the threads it made, the ceiling\'s too', async () => {
  const before = await quietThreadCount();
  const input = inputFile('cold.bin', crypto.randomBytes(50000));
  const counts = [];
  await runModelRepetitions(sdesEcb, 'worker-threads', { input, key: 642, cipher: 'bitwise' }, 2,
    { start: 'cold', variants: [1, 2], afterEach: async () => counts.push(await threadCountSettled(before)) });
  assert.deepEqual(counts, [before, before]);
});
