// Node.js: one worker_threads worker per core; the tasks are handed out one message at a time.
import { Worker, isMainThread, parentPort } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";

const MASK = (1n << 64n) - 1n;

function task(seed, steps) {
  // xorshift64 on two 32-bit halves (BigInt would be 50x slower): the same sequence as the others
  let hi = Number(((BigInt(seed) * 2654435761n + 1n) >> 32n) & 0xffffffffn) >>> 0;
  let lo = Number((BigInt(seed) * 2654435761n + 1n) & 0xffffffffn) >>> 0;
  for (let i = 0; i < steps; i++) {
    // x ^= x << 13
    hi = (hi ^ ((hi << 13) | (lo >>> 19))) >>> 0; lo = (lo ^ (lo << 13)) >>> 0;
    // x ^= x >> 7
    lo = (lo ^ ((lo >>> 7) | (hi << 25))) >>> 0; hi = (hi ^ (hi >>> 7)) >>> 0;
    // x ^= x << 17
    hi = (hi ^ ((hi << 17) | (lo >>> 15))) >>> 0; lo = (lo ^ (lo << 17)) >>> 0;
  }
  return ((BigInt(hi) << 32n) | BigInt(lo)) & MASK;
}

if (isMainThread) {
  const [tasks, steps] = process.argv.slice(2).map(Number);
  const workers = Array.from({ length: availableParallelism() },
                             () => new Worker(fileURLToPath(import.meta.url)));
  let next = 0, done = 0, sum = 0n;
  const feed = (worker) => {
    if (next < tasks) worker.postMessage([next++, steps]);
    else worker.terminate();
  };
  for (const worker of workers) {
    worker.on("message", (result) => {
      sum ^= BigInt(result);
      done += 1;
      if (done === tasks) console.log(sum.toString());
      feed(worker);
    });
    feed(worker);
  }
} else {
  parentPort.on("message", ([seed, steps]) => parentPort.postMessage(task(seed, steps).toString()));
}
