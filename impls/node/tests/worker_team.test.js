import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadyWorkers, runWorkers, workersReport } from '../src/worker_team.js';
import { threadCount, threadCountSettled } from './helpers.js';

const FIXTURE = new URL('./fixtures/echo_worker.js', import.meta.url);

test('runWorkers resolves only after every worker thread has ended (the join is inside the timed region)', async () => {
  const before = threadCount();
  const results = await runWorkers(FIXTURE, 'echo', 3, { chunks: 1 });
  assert.equal(results.length, 3);
  assert.equal(await threadCountSettled(before), before);
});

test('each result names its worker thread; workers_used counts distinct threads with a chunk', async () => {
  const results = await runWorkers(FIXTURE, 'echo', 2, { chunks: 1 });
  assert.notEqual(results[0].threadId, results[1].threadId);
  assert.equal(workersReport(results, 0).workers_used, 2);
  assert.equal(workersReport([{ ...results[0] }, { ...results[1], chunks: 0 }], 0).workers_used, 1);
});

test('what a worker posts reaches the caller before runWorkers resolves', async () => {
  const posted = [];
  await runWorkers(FIXTURE, 'postTwice', 2, {}, (message, index) => posted.push([message, index]));
  assert.equal(posted.length, 4);
});

test('a worker that throws rejects runWorkers', async () => {
  await assert.rejects(runWorkers(FIXTURE, 'fail', 2, {}), /deliberate/);
});

test('ReadyWorkers run tasks on threads started before, until ended', async () => {
  const team = await ReadyWorkers.start(FIXTURE, 2);
  const results = await team.run('echo', { chunks: 1 });
  assert.deepEqual(results.map((result) => result.index), [0, 1]);
  await team.end();
});
