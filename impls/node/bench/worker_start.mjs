/**
 * What starting and joining one worker thread costs, bare and with each workload's worker module
 * loaded (the part of every parallel repetition before any work):
 *   node bench/worker_start.mjs [RUNS=20]
 * (docs/runtimes/node.md, "Distance to the ceiling").
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { report } from './measure.mjs';

const runs = Number(process.argv[2] ?? 20);
const source = (path) => new URL(`../src/${path}`, import.meta.url).href;
const pg = pathToFileURL(createRequire(import.meta.url).resolve('pg')).href;
const importing = (...urls) => new URL(`data:text/javascript,${urls.map((url) => `import ${JSON.stringify(url)};`).join('')}`);

const kinds = {
  'bare (eval "")': () => new Worker('', { eval: true }),
  'empty ES module': () => new Worker(new URL('data:text/javascript,')),
  'sdes-ecb worker module': () => new Worker(importing(source('workloads/sdes_ecb/worker.js'))),
  'keygen worker module': () => new Worker(importing(source('workloads/keygen/worker.js'))),
  'batch-job module (drivers lazy)': () => new Worker(importing(source('workloads/batch_job.js'))),
  'batch-job module + pg': () => new Worker(importing(source('workloads/batch_job.js'), pg)),
};

function startAndJoin(make) {
  return new Promise((resolve, reject) => {
    const worker = make();
    worker.once('exit', resolve);
    worker.once('error', reject);
  });
}

// A worker's life is asynchronous: timed by hand rather than with measure.mjs's timeIt.
async function timeWorkers(make) {
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  for (let run = 0; run < runs; run++) await startAndJoin(make);
  const used = process.cpuUsage(cpuStart);
  return { cpu: (used.user + used.system) / 1e3 / runs, wall: Number(process.hrtime.bigint() - wallStart) / 1e6 / runs };
}

console.log(`one worker started and joined, mean of ${runs} in a row (CPU is the whole process's)`);
for (const [name, make] of Object.entries(kinds)) {
  await startAndJoin(make);
  report(name, await timeWorkers(make));
}
