/** coroutine-swarm: many async functions that yield before each step, against a plain loop. */
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { OrderFreeDigest } from '../digest.js';
import { nowNs } from '../protocol.js';

export function fizzbuzz(i) {
  if (i % 15 === 0) return 'FizzBuzz';
  if (i % 5 === 0) return 'Buzz';
  if (i % 3 === 0) return 'Fizz';
  return String(i);
}

function stepLine(task, step) {
  return `${task}:${step}:${fizzbuzz(step)}`;
}

/**
 * Counts the scheduler's passes from one task to another, checked at every step as protocol 2
 * says: prev = last; last = me; if prev != me, one switch. One thread runs every task, so a
 * plain variable is enough.
 */
class SwitchCounter {
  constructor() {
    this.last = -1;
    this.switches = 0;
  }

  step(task) {
    if (this.last !== task && this.last !== -1) this.switches++;
    this.last = task;
  }
}

/**
 * extra.tickets and extra.ticket_probes (protocol 4, proof of interleaving): every step draws the
 * next ticket; about 16 probe tasks, picked by the salt, report the tickets of their first and
 * last steps. One thread runs every task, so a plain counter is the fetch-add.
 */
class Tickets {
  constructor(tasks, salt) {
    this.drawn = 0;
    this.stride = Math.max(1, Math.floor(tasks / 16));
    this.salt = salt;
    this.probes = [];
  }

  draw() {
    return this.drawn++;
  }

  finished(task, first, last) {
    if ((task + this.salt) % this.stride === 0) this.probes.push([task, first, last]);
  }

  extra() {
    return { tickets: this.drawn, ticket_probes: this.probes };
  }
}

/**
 * The lines of every task in a plain loop: the baseline without any switching (it counts
 * tasks - 1 switches). Task t forms its lines with the id t + salt.
 */
export function sequentialSwarm(tasks, steps, salt = 0) {
  const digest = new OrderFreeDigest();
  const counter = new SwitchCounter();
  for (let task = 0; task < tasks; task++) {
    for (let step = 0; step < steps; step++) {
      counter.step(task);
      digest.addAscii(stepLine(task + salt, step));
    }
  }
  return { digest, switches: counter.switches };
}

// How a task gives way before each step when sleep_ms is 0.
const YIELDS = {
  // A macrotask: the task resumes in the event loop's check phase, after pending I/O and timers.
  async: () => yieldToEventLoop(),
  // A microtask: the task only goes to the back of the promise job queue; the loop never turns.
  'async-microtask': async () => {},
};

/**
 * Starts every task at once (each runs to its first await), then waits for all of them.
 * Resolves with the digest, the switches counted and spawn_ns, the time until all tasks existed.
 */
export async function asyncSwarm(tasks, steps, sleepMs, model, start = nowNs(), salt = 0) {
  const digest = new OrderFreeDigest();
  const counter = new SwitchCounter();
  const tickets = new Tickets(tasks, salt);
  const giveWay = sleepMs > 0 ? () => sleep(sleepMs) : YIELDS[model];
  const runTask = async (task) => {
    let first = -1;
    let ticket = -1;
    for (let step = 0; step < steps; step++) {
      await giveWay();
      counter.step(task);
      ticket = tickets.draw();
      if (step === 0) first = ticket;
      digest.addAscii(stepLine(task + salt, step));
    }
    if (steps > 0) tickets.finished(task, first, ticket);
  };
  const running = new Array(tasks);
  for (let task = 0; task < tasks; task++) running[task] = runTask(task);
  const spawnNs = nowNs() - start;
  await Promise.all(running);
  return { digest, spawnNs, switches: counter.switches, tickets: tickets.extra() };
}

/**
 * The yield ceiling: one async function yields tasks × steps times with the model's bare yield and
 * forms no lines; the swarm's distance to it is the cost of many tasks rather than one.
 */
export async function yieldCeilingNs(yields, model) {
  const giveWay = YIELDS[model];
  const start = nowNs();
  await (async () => {
    for (let i = 0; i < yields; i++) await giveWay();
  })();
  return nowNs() - start;
}

export const coroutineSwarm = {
  name: 'coroutine-swarm',
  params: {
    tasks: { kind: 'int', default: 1000 },
    steps: { kind: 'int', default: 10 },
    sleep_ms: { kind: 'int', default: 0 },
    // Task t's id in its lines is t + salt: 0, or the variant read from stdin before the repetition.
    salt: { kind: 'int', default: 0, maximum: 2 ** 32 - 1, variantOnly: true },
  },
  variantParam: 'salt',
  models: {
    seq: { family: 'seq', note: 'the same lines in a plain loop' },
    async: {
      family: 'async',
      note: 'one async function per task; yield = await timers/promises setImmediate() (an event-loop turn); sleep = await timers/promises setTimeout(ms)',
      start_unavailable: {
        cold: 'the tasks are the work itself, made in every repetition; one JS thread runs them on the event loop, which is always there',
        warm: 'the tasks are the work itself: tasks made before the repetition would leave nothing to measure',
      },
    },
    'async-microtask': {
      family: 'async',
      note: 'one async function per task; yield = await of a resolved promise (microtask queue only, the event loop never turns); sleep = await setTimeout(ms)',
      start_unavailable: {
        cold: 'the tasks are the work itself, made in every repetition; one JS thread runs them on the event loop, which is always there',
        warm: 'the tasks are the work itself: tasks made before the repetition would leave nothing to measure',
      },
    },
  },
  prepare({ model }) {
    return {
      async runOnce(repetition) {
        const { tasks, steps, sleep_ms: sleepMs, salt } = repetition.params;
        const start = repetition.startClock();
        if (model === 'seq') {
          const { digest, switches } = sequentialSwarm(tasks, steps, salt);
          repetition.stopClock();
          return { items: tasks, checksum: await repetition.checksum(() => digest.hex()), extra: { switches } };
        }
        const { digest, spawnNs, switches, tickets } = await asyncSwarm(tasks, steps, sleepMs, model, start, salt);
        repetition.stopClock();
        const checksum = await repetition.checksum(() => digest.hex());
        const extra = { spawn_ns: spawnNs, switches, ...tickets };
        if (sleepMs === 0) Object.assign(extra, { ceiling: 'yield', ceiling_ns: await yieldCeilingNs(tasks * steps, model) });
        return { items: tasks, checksum, extra };
      },
    };
  },
};
