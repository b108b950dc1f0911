import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OrderFreeDigest } from '../src/digest.js';
import { coroutineSwarm, fizzbuzz } from '../src/workloads/coroutine_swarm.js';
import { runModel, runModelRepetitions } from './helpers.js';

test('fizzbuzz: multiples of 15 FizzBuzz, of 5 Buzz, of 3 Fizz, else the number', () => {
  assert.deepEqual([0, 1, 3, 5, 9, 10, 15, 16].map(fizzbuzz), ['FizzBuzz', '1', 'Fizz', 'Buzz', 'Fizz', 'Buzz', 'FizzBuzz', '16']);
});

test('tasks and steps count from 0: task 0 step 0 is "0:0:FizzBuzz"', async () => {
  const single = new OrderFreeDigest();
  single.addAscii('0:0:FizzBuzz');
  const result = await runModel(coroutineSwarm, 'seq', { tasks: 1, steps: 1, sleep_ms: 0 });
  assert.equal(result.checksum, single.hex());
});

for (const model of Object.keys(coroutineSwarm.models)) {
  test(`${model}: tasks 3, steps 10 -> 1161d008ce58dc37`, async () => {
    const result = await runModel(coroutineSwarm, model, { tasks: 3, steps: 10, sleep_ms: 0 });
    assert.equal(result.checksum, '1161d008ce58dc37');
  });
}

test('every model agrees for arbitrary tasks, steps and sleeps', async () => {
  for (const [tasks, steps, sleepMs] of [[301, 7, 0], [1000, 3, 0], [50, 2, 1]]) {
    const expected = (await runModel(coroutineSwarm, 'seq', { tasks, steps, sleep_ms: sleepMs })).checksum;
    for (const model of ['async', 'async-microtask']) {
      const result = await runModel(coroutineSwarm, model, { tasks, steps, sleep_ms: sleepMs });
      assert.equal(result.checksum, expected, `${model} tasks ${tasks} steps ${steps} sleep ${sleepMs}`);
      assert.ok(result.extra.spawn_ns > 0);
    }
  }
});

test('sleep_ms > 0 sleeps before each step', async () => {
  const result = await runModel(coroutineSwarm, 'async', { tasks: 10, steps: 3, sleep_ms: 20 });
  // libuv starts a timer from the loop's cached millisecond clock, so measured by hrtime a
  // 20 ms setTimeout can end up to 1 ms early: allow that per sleep, no more.
  assert.ok(result.ns >= 3 * 19 * 1e6, `took ${result.ns} ns`);
});

for (const model of ['async', 'async-microtask']) {
  test(`${model}: reports the yield ceiling with sleep_ms 0, none with sleeps`, async () => {
    const bare = await runModel(coroutineSwarm, model, { tasks: 10, steps: 3, sleep_ms: 0 });
    assert.equal(bare.extra.ceiling, 'yield');
    assert.ok(bare.extra.ceiling_ns > 0);
    const sleeping = await runModel(coroutineSwarm, model, { tasks: 2, steps: 1, sleep_ms: 1 });
    assert.equal(sleeping.extra.ceiling, undefined);
  });
}

// Protocol 2: the salt and the switches.
const SALTED = [[0, '1161d008ce58dc37'], [1000, 'bb33744708f665dd'], [4294967295, '2540eadf7cfb00ad']];

for (const model of Object.keys(coroutineSwarm.models)) {
  test(`${model}: tasks 3, steps 10 with salts 0, 1000, 4294967295, one per repetition`, async () => {
    const results = await runModelRepetitions(coroutineSwarm, model, { tasks: 3, steps: 10, sleep_ms: 0 }, undefined, { variants: SALTED.map(([salt]) => salt) });
    assert.deepEqual(results.map((result) => result.checksum), SALTED.map(([, digest]) => digest));
  });
}

test('switches: seq counts tasks - 1, the async models interleave every step', async () => {
  const tasks = 50;
  const steps = 10;
  assert.equal((await runModel(coroutineSwarm, 'seq', { tasks, steps, sleep_ms: 0 })).extra.switches, tasks - 1);
  for (const model of ['async', 'async-microtask']) {
    const { switches } = (await runModel(coroutineSwarm, model, { tasks, steps, sleep_ms: 0 })).extra;
    // Every task yields before every step, so every step follows another task's.
    assert.equal(switches, tasks * steps - 1, model);
  }
});

for (const model of ['async', 'async-microtask']) {
  test(`${model}: every step draws a ticket and the salt's probe tasks drew overlapping ones`, async () => {
    const { extra } = await runModel(coroutineSwarm, model, { tasks: 40, steps: 5, sleep_ms: 0, salt: 3 });
    assert.equal(extra.tickets, 200);
    // 40 // 16 = stride 2; task t is a probe when (t + 3) % 2 === 0.
    assert.deepEqual(extra.ticket_probes.map(([task]) => task).sort((a, b) => a - b), [...Array(20).keys()].map((i) => 2 * i + 1));
    for (const [, first, last] of extra.ticket_probes) {
      assert.ok(last - first > 4, `a probe ran its 5 steps back to back: ${first}..${last}`);
    }
  });
}
