import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promiseHandOffNs, spawnChain, workerChain } from '../src/workloads/spawn_chain.js';
import { runModel, runModelRepetitions, threadCount, threadCountSettled } from './helpers.js';

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
  const before = threadCount();
  assert.deepEqual(await workerChain(4), { value: 4, liveUnits: 4 });
  assert.equal(await threadCountSettled(before), before);
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

// Protocol 2: the start value s goes into the chain instead of 0, and every link is alive when it is sent.
test('promises: n 1000, start 123456 -> 124456, live_units 1000', async () => {
  const result = await runModel(spawnChain, 'promises', { n: 1000 }, undefined, { variants: [123456] });
  assert.equal(result.checksum, '124456');
  assert.equal(result.extra.live_units, 1000);
});

test('worker-threads: n 5, start 123456 -> 123461, live_units 5', async () => {
  const result = await runModel(spawnChain, 'worker-threads', { n: 5 }, undefined, { variants: [123456] });
  assert.equal(result.checksum, '123461');
  assert.equal(result.extra.live_units, 5);
});

test('each repetition uses its own start value', async () => {
  const results = await runModelRepetitions(spawnChain, 'promises', { n: 300 }, undefined, { variants: [0, 5, 2147483647] });
  assert.deepEqual(results.map((result) => result.checksum), ['300', '305', String(2147483647 + 300)]);
});
