import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { test } from 'node:test';

const RUN = new URL('../run', import.meta.url).pathname;
/** Runs the runtime with no stdin lines (stdin at EOF at once). */
const run = (...args) => spawnSync(RUN, args, { encoding: 'utf8', cwd: '/', input: '' });
/** Runs the runtime with one stdin line per variant, as the launcher writes them. */
const runFed = (variants, ...args) => spawnSync(RUN, args, { encoding: 'utf8', cwd: '/', input: variants.map((v) => `${v}\n`).join('') });
const lines = (result) => result.stdout.trim().split('\n').map((line) => JSON.parse(line));
/** Every stdout line but the ready line. */
const repetitionLines = (result) => lines(result).slice(1);

test('--list is one JSON object naming every workload, its params and model families', () => {
  const result = run('--list');
  assert.equal(result.status, 0);
  const listing = JSON.parse(result.stdout);
  assert.equal(listing.runtime, 'node');
  assert.deepEqual(Object.keys(listing.workloads).sort(), ['batch-job', 'coroutine-swarm', 'echo-server', 'keygen', 'noop', 'sdes-ecb', 'spawn-chain']);
  assert.deepEqual(listing.workloads['batch-job'].params, ['docs_dir', 'db']);
  for (const workload of Object.values(listing.workloads)) {
    for (const model of Object.values(workload.models)) assert.ok(model.family);
  }
  assert.ok(listing.sources.strong);
});

test('noop prints the ready line, then one rep line per variant (protocol 4: no warm-up lines)', () => {
  const result = runFed([0, 0, 0, 0, 0], 'noop', '--model', 'seq');
  assert.equal(result.status, 0);
  assert.deepEqual(lines(result)[0], { ready: 'none' });
  const repetitions = repetitionLines(result);
  assert.deepEqual(repetitions.map((line) => [Object.keys(line)[0], line.rep, line.items, line.checksum]),
    [0, 1, 2, 3, 4].map((j) => ['rep', j, 0, 'noop']));
  assert.ok(repetitions.every((line) => Number.isInteger(line.ns) && line.ns >= 0));
  for (const field of ['cpu_user_ns', 'cpu_sys_ns', 'checksum_ns', 'prepare_ns']) {
    assert.ok(repetitions.every((line) => Number.isInteger(line.extra[field]) && line.extra[field] >= 0), field);
  }
});

test('--workers is printed under extra.workers, in the ready line and every repetition', () => {
  const result = runFed([1], 'keygen', '--model', 'worker-threads', '--count', '10', '--bytes', '5', '--source', 'strong', '--workers', '3');
  assert.equal(result.status, 0);
  const [ready, line] = lines(result);
  assert.equal(ready.extra.workers, 3);
  assert.equal(line.extra.workers, 3);
});

// Protocol 3: the ready line, a variant line per repetition on stdin, --start.

test('end of stdin ends the case cleanly after k variants, with k rep lines (protocol 4)', () => {
  for (const variants of [[], [5], [5, 6, 7]]) {
    const result = runFed(variants, 'spawn-chain', '--model', 'promises', '--n', '3');
    assert.equal(result.status, 0, `${variants.length} variants: ${result.stderr}`);
    assert.equal(result.stderr, '');
    assert.deepEqual(lines(result)[0], { ready: 'none' });
    assert.deepEqual(repetitionLines(result).map((line) => [line.rep, line.checksum]), variants.map((v, j) => [j, String(v + 3)]));
  }
});

test('--warmup and --repeat are gone: unknown options, exit 2 with one line', () => {
  for (const option of ['--warmup', '--repeat']) {
    const result = runFed([5], 'spawn-chain', '--model', 'promises', '--n', '3', option, '1');
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, new RegExp(`^unknown option ${option} for spawn-chain[^\\n]*\\n$`));
  }
});

test('the ready line comes first, before any variant is read (it is printed with stdin still open and empty)', async () => {
  const child = spawn(RUN, ['spawn-chain', '--model', 'promises', '--n', '3'], { cwd: '/' });
  const first = await new Promise((resolve) => child.stdout.once('data', (data) => resolve(String(data))));
  assert.deepEqual(JSON.parse(first.split('\n')[0]), { ready: 'none' });
  child.stdin.end('7\n');
  const code = await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(code, 0);
});

test('repetition j uses the variant of stdin line j (spawn-chain: the start value)', () => {
  const result = runFed([0, 123456, 5], 'spawn-chain', '--model', 'promises', '--n', '1000');
  assert.equal(result.status, 0);
  assert.deepEqual(repetitionLines(result).map((line) => line.checksum), ['1000', '124456', '1005']);
});

test('a variant line that is no valid variant exits 2 saying what is valid', () => {
  const result = runFed(['abc'], 'spawn-chain', '--model', 'promises', '--n', '3');
  assert.equal(result.status, 2);
  assert.match(result.stderr, /variant of repetition 0 \(start, from stdin\) must be an integer/);
  assert.equal(runFed([2 ** 31], 'spawn-chain', '--model', 'promises', '--n', '3').status, 2);
});

test('batch-job and noop read a line per repetition and ignore what it says', () => {
  const result = runFed(['9', 'anything'], 'noop', '--model', 'seq');
  assert.equal(result.status, 0);
  assert.equal(repetitionLines(result).length, 2);
});

test('--variants is gone: an unknown option, exit 2', () => {
  const result = run('spawn-chain', '--model', 'promises', '--n', '3', '--variants', '1');
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^unknown option --variants for spawn-chain/);
});

test('--list: every model with workers offers cold and warm; chains and swarms say why neither applies', () => {
  const { workloads } = JSON.parse(run('--list').stdout);
  for (const [name, workload] of Object.entries(workloads)) {
    for (const [modelName, model] of Object.entries(workload.models)) {
      // A server makes its workers before its ready line and is timed by its client: it says why
      // neither start mode applies.
      if (name === 'echo-server' && model.workers) assert.deepEqual(Object.keys(model.start_unavailable), ['cold', 'warm'], modelName);
      else if (model.workers) assert.deepEqual(Object.keys(model.start), ['cold', 'warm'], `${name} ${modelName}`);
      else assert.equal(model.start, undefined, `${name} ${modelName}`);
    }
  }
  for (const name of ['spawn-chain', 'coroutine-swarm']) {
    for (const [modelName, model] of Object.entries(workloads[name].models)) {
      if (modelName !== 'seq') assert.deepEqual(Object.keys(model.start_unavailable), ['cold', 'warm'], `${name} ${modelName}`);
    }
  }
});

test('--start: cold is the default and echoed; warm prints ready warm with start_ns and echoes warm', () => {
  const args = ['keygen', '--model', 'worker-threads', '--count', '10', '--bytes', '5', '--source', 'seeded', '--workers', '2'];
  const cold = lines(runFed([1, 2], ...args));
  assert.deepEqual(cold[0], { ready: 'cold', extra: { workers: 2 } });
  assert.deepEqual(cold.slice(1).map((line) => line.extra.start), ['cold', 'cold']);
  const warm = lines(runFed([1, 2], ...args, '--start', 'warm'));
  assert.equal(warm[0].ready, 'warm');
  assert.ok(Number.isInteger(warm[0].start_ns) && warm[0].start_ns > 0);
  assert.deepEqual(warm.slice(1).map((line) => line.extra.start), ['warm', 'warm']);
  assert.deepEqual(warm.slice(1).map((line) => line.checksum), cold.slice(1).map((line) => line.checksum));
});

test('--start on a model without it, or an unknown mode, exits 2 with the reason', () => {
  const seq = run('keygen', '--model', 'seq', '--start', 'cold');
  assert.equal(seq.status, 2);
  assert.match(seq.stderr, /^model 'seq' of keygen has no --start cold/);
  const chain = run('spawn-chain', '--model', 'worker-threads', '--n', '3', '--start', 'warm');
  assert.equal(chain.status, 2);
  assert.match(chain.stderr, /has no --start warm: each link is its own worker_thread/);
  assert.equal(run('keygen', '--model', 'worker-threads', '--start', 'hot').status, 2);
});

test('an unknown model exits 2 with one line naming the valid ones', () => {
  const result = run('keygen', '--model', 'foo');
  assert.equal(result.status, 2);
  assert.equal(result.stdout, '');
  assert.match(result.stderr.trim(), /^unknown model 'foo' for keygen; valid: seq, worker-threads$/);
});

test('an unknown workload or param exits 2', () => {
  assert.equal(run('nothing', '--model', 'seq').status, 2);
  assert.equal(run('keygen', '--model', 'seq', '--colour', 'red').status, 2);
  assert.equal(run('sdes-ecb', '--model', 'seq', '--input', '/dev/null', '--key', '1024').status, 2);
});

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

test('keygen lines carry kernel, kernel_detail and the probed keys; repetition j uses the seed of stdin line j', () => {
  const result = runFed([2, 1], 'keygen', '--model', 'seq', '--count', '3', '--bytes', '10', '--source', 'seeded', '--kernel', 'tuned',
    '--probes', '2,0');
  assert.equal(result.status, 0);
  const [first, timed] = repetitionLines(result);
  assert.notEqual(first.checksum, 'd3605c1b2c10e632');
  assert.equal(timed.checksum, 'd3605c1b2c10e632');
  assert.deepEqual(timed.extra.probes, ['lzktf67oukj7qc6j', 'yfoafcpmfufjcz7m']);
  assert.equal(timed.extra.kernel, 'tuned');
  assert.ok(timed.extra.kernel_detail.includes('WebAssembly'));
});

test('parallel models report busy intervals inside the repetition', () => {
  const result = runFed([0], 'keygen', '--model', 'worker-threads', '--count', '100', '--bytes', '5', '--source', 'strong', '--workers', '2');
  const [line] = repetitionLines(result);
  assert.deepEqual(line.extra.busy.map(([worker]) => worker).sort(), [0, 1]);
  for (const [, start, end] of line.extra.busy) assert.ok(start >= 0 && start <= end && end <= line.ns);
});
