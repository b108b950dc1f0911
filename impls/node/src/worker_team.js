/** Worker threads for the parallel models: started and joined inside the timed region, or kept ready for a ceiling. */
import { Worker } from 'node:worker_threads';
import { nowNs } from './protocol.js';

const ENTRY = new URL('./worker_entry.js', import.meta.url);

/**
 * Starts `count` worker threads, each running `module[entry](task, index, post)` once and then
 * exiting, and resolves when every one has exited (the join) with their results in worker order.
 * What a worker posts along the way goes to `onPost(message, index)`. Each result carries the
 * worker's `threadId` and `startedNs` (when it began its task, after loading its modules).
 */
export function runWorkers(moduleUrl, entry, count, task, onPost = () => {}) {
  return Promise.all(Array.from({ length: count }, (_, index) => runOneWorker(moduleUrl, entry, index, task, onPost)));
}

function runOneWorker(moduleUrl, entry, index, task, onPost) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, { workerData: { moduleUrl: String(moduleUrl), entry, index, task } });
    let result;
    worker.on('message', (message) => {
      if ('result' in message) result = message.result;
      else onPost(message.post, index);
    });
    worker.once('error', reject);
    // Node delivers every message a worker posted before it emits 'exit'.
    worker.once('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`worker ${index} exited with code ${code}${result === undefined ? ' before its result' : ''}`));
    });
  });
}

/**
 * Worker threads started and waiting before a clock starts: the ceilings time the work alone on
 * them, with no start-up in the figure.
 */
export class ReadyWorkers {
  static async start(moduleUrl, count) {
    const team = new ReadyWorkers();
    team.workers = Array.from({ length: count }, (_, index) => new Worker(ENTRY, { workerData: { moduleUrl: String(moduleUrl), index } }));
    await Promise.all(team.workers.map((worker) => nextReply(worker)));
    return team;
  }

  /** Every worker runs `module[entry](task, index)`; resolves with the results in worker order. */
  run(entry, task) {
    return Promise.all(this.workers.map((worker) => {
      const reply = nextReply(worker);
      worker.postMessage({ entry, task });
      return reply;
    }));
  }

  async end() {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/**
 * Runs `body(team)` (a ceiling) on `count` ready worker threads. Starting them is outside the
 * ceiling's clock and reported as `extra.ceiling_setup_ns`; ending them is part of `cleanup_ns`.
 */
export async function withReadyWorkers(repetition, moduleUrl, count, body) {
  const setupStart = nowNs();
  const team = await ReadyWorkers.start(moduleUrl, count);
  repetition.extra.ceiling_setup_ns = nowNs() - setupStart;
  try {
    return await body(team);
  } finally {
    await repetition.cleanup(() => team.end());
  }
}

function nextReply(worker) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      worker.off('error', onError);
      resolve(message.result);
    };
    const onError = (error) => {
      worker.off('message', onMessage);
      reject(error);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
}

/** What really ran: chunks processed and the distinct worker threads that processed at least one. */
export function workersReport(results, clockStartNs) {
  const used = new Set(results.filter((result) => result.chunks > 0).map((result) => result.threadId));
  return {
    chunks_done: results.reduce((sum, result) => sum + result.chunks, 0),
    workers_used: used.size,
    workers_start_ns: Math.max(...results.map((result) => result.startedNs)) - clockStartNs,
  };
}
