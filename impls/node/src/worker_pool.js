/** A fixed set of worker threads, started before the timed region, each serving one workload's tasks. */
import { Worker } from 'node:worker_threads';

const ENTRY = new URL('./worker_entry.js', import.meta.url);

/**
 * Each worker imports `moduleUrl` and calls its `startWorker(setup)`, which returns the function
 * that handles one task message. Tasks go out one per worker; replies come back as promises.
 */
export class WorkerPool {
  static async start(size, moduleUrl, setup) {
    const pool = new WorkerPool();
    pool.workers = [];
    const readies = [];
    for (let i = 0; i < size; i++) {
      const worker = new Worker(ENTRY, { workerData: { moduleUrl: String(moduleUrl), setup, index: i } });
      pool.workers.push(worker);
      readies.push(nextReply(worker));
    }
    await Promise.all(readies);
    return pool;
  }

  /** Sends tasks[i] to worker i and resolves with every reply, in worker order. */
  async runAll(tasks) {
    if (tasks.length > this.workers.length) throw new Error(`${tasks.length} tasks for ${this.workers.length} workers`);
    const replies = tasks.map((task, i) => {
      const reply = nextReply(this.workers[i]);
      this.workers[i].postMessage(task);
      return reply;
    });
    return Promise.all(replies);
  }

  async close() {
    await Promise.all(this.workers.map((worker) => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage({ close: true });
      return exited;
    }));
  }
}

// One reply per message keeps the bookkeeping to a listener pair per request.
function nextReply(worker) {
  return new Promise((resolve, reject) => {
    const onMessage = (reply) => {
      worker.off('error', onError);
      if (reply.ok) resolve(reply.result);
      else reject(new Error(`worker failed: ${reply.error}`));
    };
    const onError = (error) => {
      worker.off('message', onMessage);
      reject(error);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
  });
}
