/** spawn-chain: n units in a chain passing one integer, as promises or as real worker threads. */
import os from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import { LimitError, nowNs } from '../protocol.js';

/**
 * Link k awaits its inbox promise and resolves link k-1's (link 0 resolves the caller's).
 * Each link is its own async function suspended on its own promise; none is reused. Resolves
 * with the answer and live_units: how many links had started and not ended when `start` was sent
 * (each counts itself up as it starts running and down after its send).
 */
export async function promiseChain(n, start = 0) {
  let resolveCaller;
  const answer = new Promise((resolve) => { resolveCaller = resolve; });
  let live = 0;
  const link = async (inbox, sendOn) => {
    live++;
    sendOn((await inbox) + 1);
    live--;
  };
  let sendToNewest = resolveCaller;
  for (let k = 0; k < n; k++) {
    let deliver;
    const inbox = new Promise((resolve) => { deliver = resolve; });
    link(inbox, sendToNewest);
    sendToNewest = deliver;
  }
  const liveUnits = live;
  sendToNewest(start);
  return { value: await answer, liveUnits };
}

// A link is a tiny CommonJS script rather than this module: every worker boots its own V8
// isolate and would otherwise parse the whole ES module graph again.
// A link counts itself in the shared 'live' counter as it starts, says so (the caller sends the
// start value once every link has), and counts itself out after its send.
const LINK_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { inbox, outbox, live } = workerData;
const counter = new Int32Array(live);
Atomics.add(counter, 0, 1);
inbox.once('message', (value) => {
  outbox.postMessage(value + 1);
  inbox.close();
  outbox.close();
  Atomics.sub(counter, 0, 1);
});
parentPort.postMessage('up');
`;

// Node sets no limit on worker threads; memory runs out first (each worker is a V8 isolate of
// about 8 MB). The chain stops with a limit result while this much memory is still free, rather
// than pushing a shared machine into the kernel's OOM killer; recorded as extra.memory_reserve_mib.
export const MEMORY_RESERVE_MIB = 1024;
const MEMORY_CHECK_EVERY = 16;

/**
 * Link k is a worker thread listening on its own MessagePort and posting to link k-1's; the
 * caller sends `start` once every worker is up (counted in and listening). Resolves with the
 * answer and live_units once every worker has exited.
 */
export async function workerChain(n, start = 0) {
  const fromFirstLink = new MessageChannel();
  const live = new SharedArrayBuffer(4);
  const online = [];
  const exited = [];
  const failure = new Promise((_, reject) => { fromFirstLink.failed = reject; });
  let sendOn = fromFirstLink.port1;
  let toNewest;
  for (let k = 0; k < n; k++) {
    if (k % MEMORY_CHECK_EVERY === 0 && os.freemem() < MEMORY_RESERVE_MIB * 1048576) {
      throw new LimitError(`out of memory: ${k} of ${n} worker threads alive, os.freemem() ${Math.round(os.freemem() / 1048576)} MiB is below the ${MEMORY_RESERVE_MIB} MiB reserve`);
    }
    const channel = new MessageChannel();
    let worker;
    try {
      worker = new Worker(LINK_SOURCE, {
        eval: true,
        workerData: { inbox: channel.port2, outbox: sendOn, live },
        transferList: [channel.port2, sendOn],
      });
    } catch (error) {
      throw new LimitError(`worker ${k + 1} of ${n}: ${error.message}`);
    }
    online.push(new Promise((resolve) => worker.once('message', resolve)));
    exited.push(new Promise((resolve) => worker.once('exit', resolve)));
    worker.once('error', (error) => fromFirstLink.failed(new LimitError(`worker ${k + 1} of ${n}: ${error.code ?? ''} ${error.message}`.trim())));
    sendOn = channel.port1;
    toNewest = channel.port1;
  }
  await Promise.race([Promise.all(online), failure]);
  const answer = new Promise((resolve) => fromFirstLink.port2.once('message', resolve));
  const liveUnits = Atomics.load(new Int32Array(live), 0);
  toNewest.postMessage(start);
  const value = await Promise.race([answer, failure]);
  fromFirstLink.port2.close();
  await Promise.race([Promise.all(exited), failure]);
  return { value, liveUnits };
}

/** A promise and the function that resolves it: one message, as a chain link receives it. */
function newInbox() {
  const inbox = {};
  inbox.message = new Promise((resolve) => { inbox.deliver = resolve; });
  return inbox;
}

/**
 * The hand-off ceiling of `promises`: two async functions, both awaiting their inbox before the
 * clock starts, pass a counter back and forth until it has been handed over n times.
 */
export async function promiseHandOffNs(n) {
  const units = [{ inbox: newInbox() }, { inbox: newInbox() }];
  const run = async (self, other) => {
    for (;;) {
      const value = await self.inbox.message;
      self.inbox = newInbox();
      if (value >= n) return value;
      other.inbox.deliver(value + 1);
    }
  };
  const running = [run(units[0], units[1]), run(units[1], units[0])];
  const start = nowNs();
  units[0].inbox.deliver(0);
  await Promise.race(running);
  const ns = nowNs() - start;
  // The other unit still awaits its inbox: the final count ends it too.
  units.forEach((unit) => unit.inbox.deliver(n));
  await Promise.all(running);
  return ns;
}

// A ceiling unit: passes the counter to its peer until it reaches n, then tells the caller.
const HAND_OFF_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { peer, n } = workerData;
peer.on('message', (value) => {
  if (value >= n) parentPort.postMessage(value);
  else peer.postMessage(value + 1);
});
parentPort.on('message', (value) => peer.postMessage(value + 1));
parentPort.postMessage('ready');
`;

/**
 * The hand-off ceiling of `worker-threads`: two worker threads, started and listening before the
 * clock, pass a counter over one MessageChannel until it has been handed over n times.
 */
export async function workerHandOffNs(n, repetition) {
  const setupStart = nowNs();
  const channel = new MessageChannel();
  const units = [channel.port1, channel.port2].map((peer) => new Worker(HAND_OFF_SOURCE, { eval: true, workerData: { peer, n }, transferList: [peer] }));
  const firstMessages = units.map((unit) => new Promise((resolve, reject) => { unit.once('message', resolve); unit.once('error', reject); }));
  try {
    await Promise.all(firstMessages);
    if (repetition) repetition.extra.ceiling_setup_ns = nowNs() - setupStart;
    const answers = units.map((unit) => new Promise((resolve) => unit.once('message', resolve)));
    const start = nowNs();
    units[0].postMessage(0);
    await Promise.race(answers);
    return nowNs() - start;
  } finally {
    const end = () => Promise.all(units.map((unit) => unit.terminate()));
    await (repetition ? repetition.cleanup(end) : end());
  }
}

const CHAINS = { promises: promiseChain, 'worker-threads': workerChain };
const HAND_OFFS = { promises: promiseHandOffNs, 'worker-threads': workerHandOffNs };

export const spawnChain = {
  name: 'spawn-chain',
  params: {
    n: { kind: 'int', default: 1000, minimum: 1 },
    // The value sent into the chain: 0, or the variant read from stdin before the repetition.
    start: { kind: 'int', default: 0, maximum: 2 ** 31 - 1, variantOnly: true },
  },
  variantParam: 'start',
  models: {
    promises: {
      family: 'async',
      note: 'each link an async function awaiting its own promise, resolved by the next link (microtask hops); a link ends by itself after its send; live_units counted by each link as it starts and after its send',
      start_unavailable: {
        cold: 'the links are the work itself, made in every repetition; no pool of threads runs them (the one event loop is always there)',
        warm: 'the links are the work itself: a chain made before the repetition would leave nothing to measure',
      },
    },
    'worker-threads': {
      family: 'threads',
      note: `each link a worker_thread (its own V8 isolate and event loop) joined by MessageChannel ports; all online before the pass; every link exited inside the timed region; live_units from a shared Atomics counter each link increments as it starts and decrements after its send; stops with a limit result when free memory falls below ${MEMORY_RESERVE_MIB} MiB`,
      flags: `memory reserve ${MEMORY_RESERVE_MIB} MiB`,
      start_unavailable: {
        cold: 'each link is its own worker_thread, made and ended in every repetition: the units are the work itself, there is no separate pool to start cold',
        warm: 'each link is its own worker_thread and the chain is the work: links made before the repetition would leave nothing to measure',
      },
    },
  },
  prepare({ model }) {
    return {
      async runOnce(repetition) {
        const { n, start } = repetition.params;
        repetition.startClock();
        const { value, liveUnits } = await CHAINS[model](n, start);
        repetition.stopClock();
        const checksum = await repetition.checksum(() => {
          if (value !== start + n) throw new Error(`chain of ${n} from ${start} answered ${value}`);
          return String(value);
        });
        const extra = { live_units: liveUnits, ceiling: 'hand-off', ceiling_ns: await HAND_OFFS[model](n, repetition) };
        if (model === 'worker-threads') Object.assign(extra, { flags: `memory reserve ${MEMORY_RESERVE_MIB} MiB`, memory_reserve_mib: MEMORY_RESERVE_MIB });
        return { items: n, checksum, extra };
      },
    };
  },
};
