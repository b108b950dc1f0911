import fs from 'node:fs';
import { runRepetition } from '../src/protocol.js';

/**
 * Runs one model of a workload in-process, the way the protocol's run does, and returns every
 * repetition's line fields ({ns, items, checksum, extra}); repetition j gets variants[j] as its
 * stdin line (none: the line '0', which only the workloads without a variant get). `afterEach`
 * is called after every repetition (a test that watches the threads).
 */
export async function runModelRepetitions(workload, model, params, workers = 2, { kernel, start, variants, repetitions = variants?.length ?? 1, afterEach = () => {} } = {}) {
  const withDefaults = { ...params };
  for (const [name, spec] of Object.entries(workload.params)) {
    if (!(name in withDefaults)) withDefaults[name] = spec.default;
  }
  const invocation = {
    model,
    params: withDefaults,
    workers: workload.models[model].workers ? workers : undefined,
    start: workload.models[model].start ? (start ?? 'cold') : undefined,
    kernel: workload.kernels ? (kernel ?? 'portable') : undefined,
  };
  const session = await workload.prepare(invocation);
  try {
    const results = [];
    for (let index = 0; index < repetitions; index++) {
      const variantLine = variants === undefined ? String(withDefaults[workload.variantParam] ?? 0) : String(variants[index]);
      results.push(await runRepetition(workload, session, invocation, index, variantLine));
      await afterEach(index);
    }
    return results;
  } finally {
    await session.close?.();
  }
}

/** One repetition of a model, with the base params (or the given kernel). */
export async function runModel(workload, model, params, workers = 2, options = {}) {
  return (await runModelRepetitions(workload, model, params, workers, options))[0];
}

/** The threads of this process as the kernel lists them. */
export const threadCount = () => fs.readdirSync('/proc/self/task').length;

/** The ids of this process's threads, sorted. */
export const threadIds = () => fs.readdirSync('/proc/self/task').map(Number).sort((a, b) => a - b);

/**
 * The thread count once joined threads have left /proc: the kernel wakes a joiner before it unlinks
 * the exited task, so for a moment a joined thread is still listed. A thread still alive never
 * leaves, so after two seconds the count stays above `before`.
 */
export async function threadCountSettled(before) {
  const deadline = Date.now() + 2000;
  while (threadCount() > before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return threadCount();
}

/**
 * The thread count once no thread has come or gone for 50 ms (threads an earlier test joined
 * leave /proc a moment late): a baseline to count a test's own threads from.
 */
export async function quietThreadCount() {
  let count = threadCount();
  for (let still = 0; still < 5;) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = threadCount();
    still = now === count ? still + 1 : 0;
    count = now;
  }
  return count;
}

/**
 * The threads listed now that were not in `baselineIds` (threadIds() taken before): a test counts
 * the threads it made by their ids, not by the total, since a thread that an earlier test joined
 * can leave /proc after the baseline was taken (seen under load: the total one short).
 */
export const threadsBornSince = (baselineIds) => {
  const before = new Set(baselineIds);
  return threadIds().filter((id) => !before.has(id));
};

/** threadsBornSince(baselineIds) once those threads have ended (a joined thread leaves /proc a moment late): empty unless one is still alive after two seconds. */
export async function bornThreadsGone(baselineIds) {
  const deadline = Date.now() + 2000;
  while (threadsBornSince(baselineIds).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return threadsBornSince(baselineIds);
}
