/** The script every pooled worker thread runs: it hosts one workload module's task handler. */
import { parentPort, workerData } from 'node:worker_threads';

const workload = await import(workerData.moduleUrl);
const handler = await workload.startWorker(workerData.setup, workerData.index);

parentPort.on('message', async (task) => {
  if (task.close) {
    await handler.close?.();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ ok: true, result: await handler.handle(task) });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: (error && error.stack) || String(error) });
  }
});
parentPort.postMessage({ ok: true, result: 'ready' });
