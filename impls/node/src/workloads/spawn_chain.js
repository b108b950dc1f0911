/** spawn-chain: n units in a chain passing one integer, as promises or as real worker threads. */
import os from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import { LimitError, nowNs } from '../protocol.js';

/**
 * Link k awaits its inbox promise and resolves link k-1's (link 0 resolves the caller's).
 * Each link is its own async function suspended on its own promise; none is reused.
 */
export async function promiseChain(n) {
  let resolveCaller;
  const answer = new Promise((resolve) => { resolveCaller = resolve; });
  const link = async (inbox, sendOn) => sendOn((await inbox) + 1);
  let sendToNewest = resolveCaller;
  for (let k = 0; k < n; k++) {
    let deliver;
    const inbox = new Promise((resolve) => { deliver = resolve; });
    link(inbox, sendToNewest);
    sendToNewest = deliver;
  }
  sendToNewest(0);
  return answer;
}

// A link is a tiny CommonJS script rather than this module: every worker boots its own V8
// isolate and would otherwise parse the whole ES module graph again.
const LINK_SOURCE = `
const { workerData } = require('node:worker_threads');
const { inbox, outbox } = workerData;
inbox.once('message', (value) => {
  outbox.postMessage(value + 1);
  inbox.close();
  outbox.close();
});
`;

// Node sets no limit on worker threads; memory runs out first (each worker is a V8 isolate of
// about 8 MB). The chain stops with a limit result while this much memory is still free, rather
// than pushing a shared machine into the kernel's OOM killer; recorded as extra.memory_reserve_mib.
export const MEMORY_RESERVE_MIB = 1024;
const MEMORY_CHECK_EVERY = 16;

/**
 * Link k is a worker thread listening on its own MessagePort and posting to link k-1's; the
 * caller sends 0 once every worker is online. Resolves with the answer once every worker has exited.
 */
export async function workerChain(n) {
  const fromFirstLink = new MessageChannel();
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
        workerData: { inbox: channel.port2, outbox: sendOn },
        transferList: [channel.port2, sendOn],
      });
    } catch (error) {
      throw new LimitError(`worker ${k + 1} of ${n}: ${error.message}`);
    }
    online.push(new Promise((resolve) => worker.once('online', resolve)));
    exited.push(new Promise((resolve) => worker.once('exit', resolve)));
    worker.once('error', (error) => fromFirstLink.failed(new LimitError(`worker ${k + 1} of ${n}: ${error.code ?? ''} ${error.message}`.trim())));
    sendOn = channel.port1;
    toNewest = channel.port1;
  }
  await Promise.race([Promise.all(online), failure]);
  const answer = new Promise((resolve) => fromFirstLink.port2.once('message', resolve));
  toNewest.postMessage(0);
  const value = await Promise.race([answer, failure]);
  fromFirstLink.port2.close();
  await Promise.race([Promise.all(exited), failure]);
  return value;
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
export async function workerHandOffNs(n) {
  const channel = new MessageChannel();
  const units = [channel.port1, channel.port2].map((peer) => new Worker(HAND_OFF_SOURCE, { eval: true, workerData: { peer, n }, transferList: [peer] }));
  const firstMessages = units.map((unit) => new Promise((resolve, reject) => { unit.once('message', resolve); unit.once('error', reject); }));
  try {
    await Promise.all(firstMessages);
    const answers = units.map((unit) => new Promise((resolve) => unit.once('message', resolve)));
    const start = nowNs();
    units[0].postMessage(0);
    await Promise.race(answers);
    return nowNs() - start;
  } finally {
    await Promise.all(units.map((unit) => unit.terminate()));
  }
}

const CHAINS = { promises: promiseChain, 'worker-threads': workerChain };
const HAND_OFFS = { promises: promiseHandOffNs, 'worker-threads': workerHandOffNs };

export const spawnChain = {
  name: 'spawn-chain',
  params: { n: { kind: 'int', default: 1000, minimum: 1 } },
  models: {
    promises: {
      family: 'async',
      note: 'each link an async function awaiting its own promise, resolved by the next link (microtask hops); a link ends by itself after its send',
    },
    'worker-threads': {
      family: 'threads',
      note: `each link a worker_thread (its own V8 isolate and event loop) joined by MessageChannel ports; all online before the pass; every link exited inside the timed region; stops with a limit result when free memory falls below ${MEMORY_RESERVE_MIB} MiB`,
      flags: `memory reserve ${MEMORY_RESERVE_MIB} MiB`,
    },
  },
  prepare({ model, params }) {
    const { n } = params;
    return {
      async runOnce() {
        const start = nowNs();
        const value = await CHAINS[model](n);
        const ns = nowNs() - start;
        if (value !== n) throw new Error(`chain of ${n} answered ${value}`);
        const extra = { ceiling: 'hand-off', ceiling_ns: await HAND_OFFS[model](n) };
        if (model === 'worker-threads') Object.assign(extra, { flags: `memory reserve ${MEMORY_RESERVE_MIB} MiB`, memory_reserve_mib: MEMORY_RESERVE_MIB });
        return { ns, items: n, checksum: String(value), extra };
      },
    };
  },
};
