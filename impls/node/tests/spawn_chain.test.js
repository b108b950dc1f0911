import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnChain } from '../src/workloads/spawn_chain.js';
import { runModel } from './helpers.js';

for (const n of [1, 2, 1000]) {
  test(`promises: a chain of ${n} answers ${n}`, async () => {
    const result = await runModel(spawnChain, 'promises', { n });
    assert.equal(result.checksum, String(n));
  });
}

for (const n of [1, 5]) {
  test(`worker-threads: a chain of ${n} answers ${n}`, async () => {
    const result = await runModel(spawnChain, 'worker-threads', { n });
    assert.equal(result.checksum, String(n));
  });
}
