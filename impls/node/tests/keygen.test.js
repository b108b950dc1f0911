import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { base32Module } from '../src/base32_wasm.js';
import { base32SimdAvailable } from '../src/base32_simd_wasm.js';
import { keygen } from '../src/workloads/keygen.js';
import { base32Lower, encodeBase32Into } from '../src/workloads/keygen/worker.js';
import { quietThreadCount, runModel, runModelRepetitions, threadIds } from './helpers.js';

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

  test(`${model}: strong checksum is the order-free digest, different every repetition`, async () => {
    const results = await runModelRepetitions(keygen, model, { count: 50, bytes: 1000, source: 'strong', probes: [0, 49] }, 2, { repetitions: 2 });
    for (const result of results) {
      assert.match(result.checksum, /^[0-9a-f]{16}$/);
      assert.equal(result.items, 50);
      assert.ok(result.extra.probes.every((key) => /^[a-z2-7]{1600}$/.test(key)));
    }
    assert.notEqual(results[0].checksum, results[1].checksum);
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
  assert.match(result.checksum, /^[0-9a-f]{16}$/);
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

// Protocol 2: probes, variants and the two kernels.
const VECTOR_KEYS = ['yfoafcpmfufjcz7m', 'm7wi4znbrxv34xsv', 'lzktf67oukj7qc6j'];

for (const model of Object.keys(keygen.models)) {
  for (const kernel of ['portable', 'tuned']) {
    test(`${model} ${kernel}: seeded, count 3, bytes 10, seed 1: probes 0, 1, 2 are the vector's keys, digest d3605c1b2c10e632`, async () => {
      const result = await runModel(keygen, model, { count: 3, bytes: 10, source: 'seeded', seed: 1n, probes: [0, 1, 2] }, 2, { kernel });
      assert.deepEqual(result.extra.probes, VECTOR_KEYS);
      assert.equal(result.checksum, 'd3605c1b2c10e632');
      assert.equal(result.extra.kernel, kernel);
    });
  }

  for (const start of Object.keys(keygen.models[model].start ?? { none: '' })) {
    test(`${model} ${start}: repetition j uses the seed of its stdin line`, async () => {
      const results = await runModelRepetitions(keygen, model, { count: 3, bytes: 10, source: 'seeded', seed: 99n, probes: [1] }, 2,
        { start: start === 'none' ? undefined : start, variants: [7n, 1n, 18446744073709551615n] });
      assert.equal(results[1].checksum, 'd3605c1b2c10e632');
      assert.deepEqual(results[1].extra.probes, [VECTOR_KEYS[1]]);
      assert.notEqual(results[0].checksum, results[1].checksum);
    });
  }
}

test('worker-threads warm: the strong source keeps its keys fresh on reused workers, ceiling included, and makes no thread', async () => {
  const before = await quietThreadCount();
  const seen = [];
  const results = await runModelRepetitions(keygen, 'worker-threads', { count: 300, bytes: 20, source: 'strong' }, 2,
    { start: 'warm', variants: [0, 0, 0], afterEach: () => seen.push(threadIds()) });
  assert.equal(new Set(results.map((result) => result.checksum)).size, 3);
  assert.ok(results.every((result) => result.extra.ceiling_ns > 0 && result.extra.workers_used === 2));
  assert.equal(seen[0].length, before + 2);
  assert.deepEqual(seen[2], seen[0]);
});

test('worker-threads: probes follow the generation order whatever order chunks arrive in', async () => {
  const probes = [0, 299, 300, 1999];
  const params = { count: 2000, bytes: 7, source: 'seeded', seed: 3n, chunk: 300, probes };
  for (const kernel of ['portable', 'tuned']) {
    const seq = await runModel(keygen, 'seq', params, undefined, { kernel });
    const threads = await runModel(keygen, 'worker-threads', params, 3, { kernel });
    assert.deepEqual(threads.extra.probes, seq.extra.probes, kernel);
    assert.equal(threads.checksum, seq.checksum, kernel);
  }
});

test('portable and tuned kernels make the same keys for every model', async () => {
  for (const [count, bytes] of [[257, 33], [1000, 1], [5, 999]]) {
    const checksums = new Set();
    for (const model of Object.keys(keygen.models)) {
      for (const kernel of ['portable', 'tuned']) checksums.add((await runModel(keygen, model, { count, bytes, source: 'seeded', seed: 42n }, 2, { kernel })).checksum);
    }
    assert.equal(checksums.size, 1, `count ${count} bytes ${bytes}`);
  }
});

test('the portable encoder equals RFC 4648 written plainly, for every length 0-41 and 1000, and the vectors', () => {
  const encode = (bytes) => base32Lower(null, bytes, 'portable');
  for (const [plain, encoded] of BASE32_VECTORS) assert.equal(encode(Buffer.from(plain)), encoded);
  for (const length of [...Array(42).keys(), 1000]) {
    const bytes = crypto.randomBytes(length);
    assert.equal(encode(bytes), referenceBase32(bytes), `length ${length}`);
    const target = Buffer.alloc(Math.ceil(length / 5) * 8);
    assert.equal(encodeBase32Into(bytes, 0, length, target, 0), target.length);
  }
});

test('the SIMD and pair-table encoders both equal the portable one on random bytes of random lengths, odd groups and tails included', () => {
  assert.ok(base32SimdAvailable(), 'this engine validates WebAssembly SIMD');
  const lengths = [0, 1, 4, 5, 9, 10, 11, 14, 15, 16, 19, 20, 21, 25, 999, 1000, 1001, ...Array.from({ length: 40 }, () => crypto.randomInt(1, 300))];
  for (const length of lengths) {
    const bytes = crypto.randomBytes(length);
    const portable = base32Lower(null, bytes, 'portable');
    assert.equal(base32Lower(base32Module('simd'), bytes), portable, `simd, length ${length}`);
    assert.equal(base32Lower(base32Module('table'), bytes), portable, `table, length ${length}`);
  }
});

test('the tuned kernel runs SIMD Base32 by default, the table when forced, and a forced technique it lacks exits 2', () => {
  // V8 on x64 runs WebAssembly SIMD only with SSE4.1: --no-enable-sse4-1 makes an engine without it.
  const detailWith = (env, v8Flags = []) => {
    const run = spawnSync(process.execPath, [...v8Flags, '--input-type=module', '-e', `import { keygen } from ${JSON.stringify(new URL('../src/workloads/keygen.js', import.meta.url).href)}; console.log(keygen.kernelDetail('tuned'))`], { env: { ...process.env, ...env }, encoding: 'utf8' });
    return run;
  };
  delete process.env.PARBENCH_NODE_BASE32;
  assert.match(detailWith({}).stdout, /WebAssembly SIMD Base32/);
  assert.match(detailWith({ PARBENCH_NODE_BASE32: 'table' }).stdout, /1,024-entry character-pair table/);
  const wrong = detailWith({ PARBENCH_NODE_BASE32: 'avx512' });
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /not simd or table/);
  assert.match(detailWith({}, ['--no-enable-sse4-1']).stdout, /1,024-entry character-pair table/);
  const lacking = detailWith({ PARBENCH_NODE_BASE32: 'simd' }, ['--no-enable-sse4-1']);
  assert.equal(lacking.status, 2);
  assert.match(lacking.stderr, /does not validate WebAssembly SIMD/);
});
