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

test('noop prints a warmup line per warm-up, then one rep line per timed repetition', () => {
  const result = run('noop', '--model', 'seq', '--warmup', '2', '--repeat', '3');
  assert.equal(result.status, 0);
  const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => [line.warmup, line.rep, line.items, line.checksum]),
    [[0, undefined, 0, 'noop'], [1, undefined, 0, 'noop'], [undefined, 0, 0, 'noop'], [undefined, 1, 0, 'noop'], [undefined, 2, 0, 'noop']]);
  assert.ok(lines.every((line) => Number.isInteger(line.ns) && line.ns >= 0));
  for (const field of ['cpu_user_ns', 'cpu_sys_ns', 'checksum_ns', 'prepare_ns']) {
    assert.ok(lines.every((line) => Number.isInteger(line.extra[field]) && line.extra[field] >= 0), field);
  }
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

const lines = (result) => result.stdout.trim().split('\n').map((line) => JSON.parse(line));

test('--list offers kernels: sdes-ecb and keygen portable and tuned, batch-job portable only', () => {
  const { workloads } = JSON.parse(run('--list').stdout);
  assert.deepEqual(Object.keys(workloads['sdes-ecb'].kernels), ['portable', 'tuned']);
  assert.deepEqual(Object.keys(workloads.keygen.kernels), ['portable', 'tuned']);
  assert.deepEqual(Object.keys(workloads['batch-job'].kernels), ['portable']);
  assert.equal(workloads['spawn-chain'].kernels, undefined);
  assert.deepEqual(workloads['spawn-chain'].params, ['n']);
  assert.deepEqual(workloads['coroutine-swarm'].params, ['tasks', 'steps', 'sleep_ms']);
});

test('--kernel tuned where there is none, an unknown kernel, or a kernel for spawn-chain exits 2', () => {
  assert.equal(run('batch-job', '--model', 'seq', '--docs-dir', '/', '--db', 'sqlite:/tmp/x', '--kernel', 'tuned').status, 2);
  assert.equal(run('keygen', '--model', 'seq', '--kernel', 'fast').status, 2);
  assert.equal(run('spawn-chain', '--model', 'promises', '--n', '3', '--kernel', 'portable').status, 2);
});

test('--variants must give one value per repetition', () => {
  assert.equal(run('spawn-chain', '--model', 'promises', '--n', '3', '--warmup', '1', '--repeat', '2', '--variants', '1,2').status, 2);
  assert.equal(run('sdes-ecb', '--model', 'seq', '--input', '/dev/null', '--variants', '1024').status, 2);
});

test('keygen lines carry kernel, kernel_detail and the probed keys; repetition j uses seed variants[j]', () => {
  const result = run('keygen', '--model', 'seq', '--count', '3', '--bytes', '10', '--source', 'seeded', '--kernel', 'tuned',
    '--warmup', '1', '--repeat', '1', '--variants', '2,1', '--probes', '2,0');
  assert.equal(result.status, 0);
  const [warm, timed] = lines(result);
  assert.equal(warm.warmup, 0);
  assert.notEqual(warm.checksum, 'd3605c1b2c10e632');
  assert.equal(timed.checksum, 'd3605c1b2c10e632');
  assert.deepEqual(timed.extra.probes, ['lzktf67oukj7qc6j', 'yfoafcpmfufjcz7m']);
  assert.equal(timed.extra.kernel, 'tuned');
  assert.ok(timed.extra.kernel_detail.includes('WebAssembly'));
});

test('parallel models report busy intervals inside the repetition', () => {
  const result = run('keygen', '--model', 'worker-threads', '--count', '100', '--bytes', '5', '--source', 'strong', '--workers', '2', '--warmup', '0', '--repeat', '1');
  const [line] = lines(result);
  assert.deepEqual(line.extra.busy.map(([worker]) => worker).sort(), [0, 1]);
  for (const [, start, end] of line.extra.busy) assert.ok(start >= 0 && start <= end && end <= line.ns);
});
