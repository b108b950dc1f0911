import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const RUN = new URL('../run', import.meta.url).pathname;
const run = (...args) => spawnSync(RUN, args, { encoding: 'utf8', cwd: '/' });

test('--list is one JSON object naming every workload, its params and model families', () => {
  const result = run('--list');
  assert.equal(result.status, 0);
  const listing = JSON.parse(result.stdout);
  assert.equal(listing.runtime, 'node');
  assert.deepEqual(Object.keys(listing.workloads).sort(), ['batch-job', 'coroutine-swarm', 'keygen', 'noop', 'sdes-ecb', 'spawn-chain']);
  assert.deepEqual(listing.workloads['batch-job'].params, ['docs_dir', 'db']);
  for (const workload of Object.values(listing.workloads)) {
    for (const model of Object.values(workload.models)) assert.ok(model.family);
  }
  assert.ok(listing.sources.strong);
});

test('noop prints one JSON line per timed repetition, none for warm-ups', () => {
  const result = run('noop', '--model', 'seq', '--warmup', '2', '--repeat', '3');
  assert.equal(result.status, 0);
  const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => [line.rep, line.items, line.checksum]), [[0, 0, 'noop'], [1, 0, 'noop'], [2, 0, 'noop']]);
  assert.ok(lines.every((line) => Number.isInteger(line.ns) && line.ns >= 0));
});

test('--workers is printed under extra.workers', () => {
  const result = run('keygen', '--model', 'worker-threads', '--count', '10', '--bytes', '5', '--source', 'strong', '--workers', '3', '--warmup', '0', '--repeat', '1');
  assert.equal(result.status, 0);
  assert.equal(JSON.parse(result.stdout).extra.workers, 3);
});

test('an unknown model exits 2 with one line naming the valid ones', () => {
  const result = run('keygen', '--model', 'foo', '--warmup', '0', '--repeat', '1');
  assert.equal(result.status, 2);
  assert.equal(result.stdout, '');
  assert.match(result.stderr.trim(), /^unknown model 'foo' for keygen; valid: seq, worker-threads$/);
});

test('an unknown workload or param exits 2', () => {
  assert.equal(run('nothing', '--model', 'seq').status, 2);
  assert.equal(run('keygen', '--model', 'seq', '--colour', 'red').status, 2);
  assert.equal(run('sdes-ecb', '--model', 'seq', '--input', '/dev/null', '--key', '1024').status, 2);
});
