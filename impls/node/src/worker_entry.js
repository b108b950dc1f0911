/**
 * The script every worker thread runs. With a task in workerData it runs it once, posts the
 * result and exits (ColdTeam); without one it waits for tasks until it is terminated (WarmTeam).
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';

// protocol.js's nowNs, inlined: a worker loads no module it does not need.
const nowNs = () => Number(process.hrtime.bigint());

const workload = await import(workerData.moduleUrl);
const post = (message, transfer) => parentPort.postMessage({ post: message }, transfer);
// What this worker keeps from one task to the next (a warm worker's database connection).
const state = {};

async function perform(entry, task) {
  const startedNs = nowNs();
  const result = await workload[entry](task, workerData.index, post, state);
  return { ...result, threadId, startedNs };
}

if (workerData.task !== undefined) {
  parentPort.postMessage({ result: await perform(workerData.entry, workerData.task) });
} else {
  parentPort.on('message', async ({ entry, task }) => parentPort.postMessage({ result: await perform(entry, task) }));
  parentPort.postMessage({ result: { ready: true } });
}
