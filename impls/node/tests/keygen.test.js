import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { base32Module } from '../src/base32_wasm.js';
import { keygen } from '../src/workloads/keygen.js';
import { base32Lower } from '../src/workloads/keygen_worker.js';
import { runModel } from './helpers.js';

const BASE32_VECTORS = [['', ''], ['f', 'my======'], ['fo', 'mzxq===='], ['foo', 'mzxw6==='],
  ['foob', 'mzxw6yq='], ['fooba', 'mzxw6ytb'], ['foobar', 'mzxw6ytboi======']];

for (const [plain, encoded] of BASE32_VECTORS) {
  test(`base32 lower with padding: "${plain}" -> "${encoded}"`, () => {
    assert.equal(base32Lower(base32Module(), Buffer.from(plain)), encoded);
  });
}

test('1000 bytes encode to exactly 1600 characters, no padding', () => {
  const encoded = base32Lower(base32Module(), Buffer.alloc(1000, 0xff));
  assert.equal(encoded.length, 1600);
  assert.ok(!encoded.includes('='));
});

for (const model of Object.keys(keygen.models)) {
  test(`${model}: seeded, count 3, bytes 10, seed 1 -> d3605c1b2c10e632`, async () => {
    const result = await runModel(keygen, model, { count: 3, bytes: 10, source: 'seeded', seed: 1n });
    assert.equal(result.checksum, 'd3605c1b2c10e632');
  });

  test(`${model}: strong checksum is "<count>:<total chars>"`, async () => {
    const result = await runModel(keygen, model, { count: 50, bytes: 1000, source: 'strong' });
    assert.equal(result.checksum, '50:80000');
    assert.equal(result.items, 50);
  });
}

test('every model agrees for arbitrary seeded parameters', async () => {
  for (const [count, bytes, seed, workers] of [[257, 33, 7n, 3], [1000, 1, 18446744073709551615n, 2], [5, 999, 42n, 7]]) {
    const seq = await runModel(keygen, 'seq', { count, bytes, source: 'seeded', seed });
    const threads = await runModel(keygen, 'worker-threads', { count, bytes, source: 'seeded', seed }, workers);
    assert.equal(threads.checksum, seq.checksum, `count ${count} bytes ${bytes} seed ${seed} workers ${workers}`);
  }
});

test('worker-threads at the smoke size (2000 keys, 2 workers): chunk 1000, 2 chunks, both workers used', async () => {
  const result = await runModel(keygen, 'worker-threads', { count: 2000, bytes: 1000, source: 'strong' }, 2);
  assert.deepEqual([result.extra.chunk, result.extra.chunks, result.extra.workers_used], [1000, 2, 2]);
  assert.equal(result.checksum, '2000:3200000');
});

test('worker-threads: --chunk overrides the rule and is reported', async () => {
  const result = await runModel(keygen, 'worker-threads', { count: 2000, bytes: 10, source: 'seeded', seed: 5n, chunk: 300 }, 3);
  assert.deepEqual([result.extra.chunk, result.extra.chunks, result.extra.workers_used], [300, 7, 3]);
  const seq = await runModel(keygen, 'seq', { count: 2000, bytes: 10, source: 'seeded', seed: 5n });
  assert.equal(result.checksum, seq.checksum);
});

for (const model of Object.keys(keygen.models)) {
  test(`${model}: strong keys report the csprng+base32 ceiling as the sum of its two parts`, async () => {
    const { extra } = await runModel(keygen, model, { count: 100, bytes: 1000, source: 'strong' });
    assert.equal(extra.ceiling, 'csprng+base32');
    assert.ok(extra.csprng_ns > 0 && extra.base32_ns > 0);
    assert.equal(extra.ceiling_ns, extra.csprng_ns + extra.base32_ns);
  });
}

// RFC 4648 written plainly (bits as a string of 0s and 1s), as the reference for the encoder.
function referenceBase32(bytes) {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

test('the WebAssembly encoder equals RFC 4648 written plainly, for every length 0-41 and 1000', () => {
  for (const length of [...Array(42).keys(), 1000]) {
    const bytes = crypto.randomBytes(length);
    assert.equal(base32Lower(base32Module(), bytes), referenceBase32(bytes), `length ${length}`);
  }
});
