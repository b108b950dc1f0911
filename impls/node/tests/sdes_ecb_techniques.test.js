import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../src/protocol.js';
import { relaxedSimdAvailable, simdAvailable } from '../src/sdes_bitwise_wasm.js';
import { sdesEcb } from '../src/workloads/sdes_ecb.js';
import * as portable from '../src/workloads/sdes_ecb/portable.js';
import { chooseTechnique, ENVIRONMENT_VARIABLE, TECHNIQUES, techniqueOf } from '../src/workloads/sdes_ecb/techniques.js';
import { runModelRepetitions } from './helpers.js';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'parbench-node-techniques-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));

const labels = (cipher) => TECHNIQUES[cipher].map(({ label }) => label);
const without = (...missing) => (technique) => !missing.includes(technique.label);
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
const expectedChecksum = (plain, key) => sha256(plain.map((b) => portable.encryptByte(...portable.subkeys(key), b)));

/** Runs `body` with PARBENCH_SDES_TECHNIQUE set to `label`, as a user forcing a technique would. */
async function forcing(label, body) {
  const before = process.env[ENVIRONMENT_VARIABLE];
  process.env[ENVIRONMENT_VARIABLE] = label;
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env[ENVIRONMENT_VARIABLE];
    else process.env[ENVIRONMENT_VARIABLE] = before;
  }
}

test('the bitwise cipher prefers relaxed SIMD, then SIMD, then JS; the table cipher has its pair table', () => {
  assert.deepEqual(labels('bitwise'), ['wasm-relaxed-simd', 'wasm-simd', 'js-shift-mask']);
  assert.deepEqual(labels('table'), ['wasm-pair-table']);
});

test('without relaxed SIMD the SIMD loop runs; without SIMD the JS rounds', () => {
  assert.equal(chooseTechnique('bitwise', undefined, without('wasm-relaxed-simd')).label, 'wasm-simd');
  assert.equal(chooseTechnique('bitwise', '', without('wasm-relaxed-simd', 'wasm-simd')).label, 'js-shift-mask');
});

test('a forced technique that cannot run, or that the cipher lacks, is a usage error naming why', () => {
  assert.throws(() => chooseTechnique('bitwise', 'wasm-simd', without('wasm-simd')), (error) => error instanceof UsageError && /cannot run here: it needs WebAssembly SIMD/.test(error.message));
  assert.throws(() => chooseTechnique('table', 'wasm-simd'), (error) => error instanceof UsageError && /not a technique of the table cipher/.test(error.message));
  assert.equal(chooseTechnique('bitwise', 'js-shift-mask', without('wasm-relaxed-simd', 'wasm-simd')).label, 'js-shift-mask');
});

test('this V8 runs the fastest technique it has, so the agreement tests below compare SIMD code, not JS with itself', () => {
  const expected = relaxedSimdAvailable() ? 'wasm-relaxed-simd' : simdAvailable() ? 'wasm-simd' : 'js-shift-mask';
  assert.equal(techniqueOf('bitwise').label, expected);
  assert.equal(sdesEcb.kernelDetail('tuned', { cipher: 'bitwise' }).split(':')[0], expected);
});

for (const label of labels('bitwise')) {
  for (const model of Object.keys(sdesEcb.models)) {
    test(`${label} (forced), ${model}: agrees with the portable kernel on random inputs, keys, sizes and chunks`, async () => {
      await forcing(label, async () => {
        for (const [size, chunk] of [[1, 0], [15, 0], [16, 0], [4099, 0], [10007, 333], [65536 + 37, 4097]]) {
          const plain = crypto.randomBytes(size);
          const input = path.join(folder, `random-${size}`);
          fs.writeFileSync(input, plain);
          const keys = Array.from({ length: 4 }, () => crypto.randomInt(1024));
          const results = await runModelRepetitions(sdesEcb, model, { input, key: 0, cipher: 'bitwise', chunk }, 2, { kernel: 'tuned', variants: keys });
          assert.deepEqual(results.map((result) => result.checksum), keys.map((key) => expectedChecksum(plain, key)), `size ${size} keys ${keys}`);
          assert.ok(results.every((result) => result.extra.kernel_detail.startsWith(`${label}: `)));
        }
      });
    });
  }
}

/** `node [flags] main.js sdes-ecb …` on a small file, tuned bitwise, one repetition, PARBENCH_SDES_TECHNIQUE as given. */
function runMain(nodeFlags, technique) {
  const input = path.join(folder, 'fox.txt');
  fs.writeFileSync(input, 'The quick brown fox jumps over the lazy dog\n');
  const env = { ...process.env };
  delete env[ENVIRONMENT_VARIABLE];
  if (technique) env[ENVIRONMENT_VARIABLE] = technique;
  return spawnSync(process.execPath, [...nodeFlags, MAIN, 'sdes-ecb', '--model', 'seq', '--input', input, '--cipher', 'bitwise', '--kernel', 'tuned'],   // one variant on stdin: one repetition (protocol 4)
    { encoding: 'utf8', input: '642\n', env });
}

// V8 turns WebAssembly SIMD off on an x64 CPU without SSE4.1; --no-enable-sse4-1 poses as one.
test('on a CPU without SSE4.1 the tuned bitwise kernel falls back to the JS rounds and says so', () => {
  const run = runMain(['--no-enable-sse4-1']);
  assert.equal(run.status, 0, run.stderr);
  const line = JSON.parse(run.stdout.trim().split('\n').at(-1));
  assert.match(line.extra.kernel_detail, /^js-shift-mask: /);
  assert.equal(line.checksum, '914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf');
});

test('on a CPU without SSE4.1 a forced SIMD technique exits 2 with the reason', () => {
  for (const technique of ['wasm-simd', 'wasm-relaxed-simd']) {
    const run = runMain(['--no-enable-sse4-1'], technique);
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`${ENVIRONMENT_VARIABLE}=${technique} cannot run here`));
  }
});
