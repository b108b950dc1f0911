import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ColdTeam, runWorkers, startTeam, WarmTeam, workersReport } from '../src/worker_team.js';
import { bornThreadsGone, quietThreadCount, threadIds, threadsBornSince } from './helpers.js';

const FIXTURE = new URL('./fixtures/echo_worker.js', import.meta.url);

test('runWorkers resolves only after every worker thread has ended (the join is inside the timed region)', async () => {
  const baseline = threadIds();
  const results = await runWorkers(FIXTURE, 'echo', 3, { chunks: 1 });
  assert.equal(results.length, 3);
  assert.deepEqual(await bornThreadsGone(baseline), []);
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

test('a WarmTeam runs every task on the same threads, started before, until ended', async () => {
  await quietThreadCount();
  const baseline = threadIds();
  const team = await WarmTeam.start(FIXTURE, 2);
  try {
    const started = threadsBornSince(baseline);
    assert.equal(started.length, 2);
    const first = await team.run('echo', { chunks: 1 });
    const second = await team.run('echo', { chunks: 1 });
    assert.deepEqual(first.map((result) => result.index), [0, 1]);
    assert.deepEqual(second.map((result) => result.threadId), first.map((result) => result.threadId));
    assert.deepEqual(threadsBornSince(baseline), started);
  } finally {
    await team.end();
  }
  assert.deepEqual(await bornThreadsGone(baseline), []);
});

test('a ColdTeam starts new threads for every task and ends them', async () => {
  await quietThreadCount();
  const baseline = threadIds();
  const team = new ColdTeam(FIXTURE, 2);
  const first = await team.run('echo', { chunks: 1 });
  const second = await team.run('echo', { chunks: 1 });
  assert.equal(new Set([...first, ...second].map((result) => result.threadId)).size, 4);
  assert.deepEqual(await bornThreadsGone(baseline), []);
});

test('a warm worker keeps its state from one task to the next; a cold one starts afresh', async () => {
  const team = await WarmTeam.start(FIXTURE, 1);
  try {
    await team.run('count', {});
    assert.deepEqual((await team.run('count', {})).map((result) => result.count), [2]);
  } finally {
    await team.end();
  }
  const cold = new ColdTeam(FIXTURE, 1);
  await cold.run('count', {});
  assert.deepEqual((await cold.run('count', {})).map((result) => result.count), [1]);
});

test('a WarmTeam passes posts on before the result, and rejects when a task throws', async () => {
  const team = await WarmTeam.start(FIXTURE, 2);
  try {
    const posted = [];
    await team.run('postTwice', {}, (message, index) => posted.push([message.n, index]));
    assert.equal(posted.length, 4);
    await assert.rejects(team.run('fail', {}), /deliberate/);
  } finally {
    await team.end();
  }
});

test('startTeam: warm starts the team now and says how long it took; cold starts nothing', async () => {
  await quietThreadCount();
  const baseline = threadIds();
  const cold = await startTeam('cold', FIXTURE, 2);
  assert.ok(cold.team instanceof ColdTeam);
  assert.equal(cold.startNs, undefined);
  assert.deepEqual(threadsBornSince(baseline), []);
  const warm = await startTeam('warm', FIXTURE, 2);
  assert.ok(warm.team instanceof WarmTeam && warm.startNs > 0);
  await warm.team.end();
});
