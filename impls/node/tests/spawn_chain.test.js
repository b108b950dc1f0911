import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import { promiseHandOffNs, spawnChain, workerChain } from '../src/workloads/spawn_chain.js';
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

test('worker-threads: every link has exited when the chain answers (inside the timed region)', async () => {
  const threads = () => fs.readdirSync('/proc/self/task').length;
  const before = threads();
  assert.equal(await workerChain(4), 4);
  assert.equal(threads(), before);
});

for (const model of Object.keys(spawnChain.models)) {
  test(`${model}: reports the hand-off ceiling`, async () => {
    const { extra } = await runModel(spawnChain, model, { n: 3 });
    assert.equal(extra.ceiling, 'hand-off');
    assert.ok(extra.ceiling_ns > 0);
  });
}

test('promises hand-off ceiling: two units pass the counter n times and both end', async () => {
  assert.ok(await promiseHandOffNs(1001) > 0);
});
