import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { encryptByte, keyTable, sdesEcb, subkeys } from '../src/workloads/sdes_ecb.js';
import { runModel } from './helpers.js';

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
for (const [key, plain, cipher] of VECTORS) {
  test(`key ${key}, plaintext ${plain} -> ${cipher}`, () => {
    const [k1, k2] = subkeys(parseInt(key, 2));
    assert.equal(encryptByte(k1, k2, parseInt(plain, 2)), parseInt(cipher, 2));
  });
}

test('table of key 642, bytes 0x00..0xff', () => {
  assert.equal(Buffer.from(keyTable(642)).toString('hex'), KEY_642_TABLE);
});

for (const model of Object.keys(sdesEcb.models)) {
  for (const cipher of ['bitwise', 'table']) {
    test(`${model} ${cipher}: "The quick brown fox…" under key 642 -> SHA-256 914675d0…`, async () => {
      const result = await runModel(sdesEcb, model, { input: inputFile('fox.txt', FOX), key: 642, cipher });
      assert.equal(result.checksum, FOX_SHA256);
      assert.equal(result.items, FOX.length);
    });
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
        const result = await runModel(sdesEcb, model, { input, key, cipher, chunk }, 3);
        assert.equal(result.checksum, expected, `${model} ${cipher} key ${key} ${path.basename(input)}`);
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
