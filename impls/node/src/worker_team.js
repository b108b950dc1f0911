/**
 * Worker threads for the parallel models, in protocol 3's two start modes: a ColdTeam starts and
 * joins its workers inside every run, a WarmTeam starts them once and hands each run over.
 */
import { Worker } from 'node:worker_threads';
import { nowNs } from './protocol.js';

const ENTRY = new URL('./worker_entry.js', import.meta.url);

/**
 * Starts `count` worker threads, each running `module[entry](task, index, post, state)` once and
 * then exiting, and resolves when every one has exited (the join) with their results in worker
 * order. What a worker posts along the way goes to `onPost(message, index)`. Each result carries
 * the worker's `threadId` and `startedNs` (when it began its task, after loading its modules).
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

/** `--start cold`: every run starts its workers and joins them; nothing outlives a run. */
export class ColdTeam {
  constructor(moduleUrl, count) {
    this.moduleUrl = moduleUrl;
    this.count = count;
  }

  run(entry, task, onPost) {
    return runWorkers(this.moduleUrl, entry, this.count, task, onPost);
  }

  /** A ceiling's workers are started before its clock and ended after it, inside the repetition. */
  withCeilingWorkers(repetition, body) {
    return withReadyWorkers(repetition, this.moduleUrl, this.count, body);
  }

  async end() {}
}

/**
 * Worker threads started and waiting: `--start warm`'s team, made once before the ready line and
 * reused by every repetition, and the ceilings' workers of a cold repetition, started before the
 * ceiling's clock. Each worker keeps one `state` object across tasks (a warm worker's connection).
 */
export class WarmTeam {
  static async start(moduleUrl, count) {
    const team = new WarmTeam();
    team.workers = Array.from({ length: count }, (_, index) => new Worker(ENTRY, { workerData: { moduleUrl: String(moduleUrl), index } }));
    await Promise.all(team.workers.map((worker, index) => awaitReply(worker, index)));
    return team;
  }

  /** Every worker runs `module[entry](task, index, post, state)`; resolves with the results in worker order. */
  run(entry, task, onPost = () => {}) {
    return Promise.all(this.workers.map((worker, index) => {
      const reply = awaitReply(worker, index, onPost);
      worker.postMessage({ entry, task });
      return reply;
    }));
  }

  /** The ceiling runs on this same team: a warm repetition makes no thread. */
  withCeilingWorkers(repetition, body) {
    return body(this);
  }

  async end() {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

/** The team of a parallel model for `--start`: warm is started here, and how long that took is `start_ns`. */
export async function startTeam(start, moduleUrl, count) {
  if (start !== 'warm') return { team: new ColdTeam(moduleUrl, count), startNs: undefined };
  const begin = nowNs();
  const team = await WarmTeam.start(moduleUrl, count);
  return { team, startNs: nowNs() - begin };
}

/**
 * Runs `body(team)` (a ceiling) on `count` ready worker threads. Starting them is outside the
 * ceiling's clock and reported as `extra.ceiling_setup_ns`; ending them is part of `cleanup_ns`.
 */
export async function withReadyWorkers(repetition, moduleUrl, count, body) {
  const setupStart = nowNs();
  const team = await WarmTeam.start(moduleUrl, count);
  repetition.extra.ceiling_setup_ns = nowNs() - setupStart;
  try {
    return await body(team);
  } finally {
    await repetition.cleanup(() => team.end());
  }
}

/** The worker's next reply (its ready message or a task's result), passing its posts on before it. */
function awaitReply(worker, index, onPost = () => {}) {
  return new Promise((resolve, reject) => {
    const onMessage = (message) => {
      if ('post' in message) return onPost(message.post, index);
      settle();
      resolve(message.result);
    };
    const onError = (error) => {
      settle();
      reject(error);
    };
    const onExit = (code) => {
      settle();
      reject(new Error(`worker ${index} exited with code ${code} while a reply was due`));
    };
    const settle = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
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
