import fs from 'node:fs';
import { runRepetition } from '../src/protocol.js';

/**
 * Runs one model of a workload in-process, the way the protocol's run does, and returns every
 * repetition's line fields ({ns, items, checksum, extra}); repetition j uses variants[j].
 */
export async function runModelRepetitions(workload, model, params, workers = 2, { kernel, variants, repetitions = variants?.length ?? 1 } = {}) {
  const withDefaults = { ...params };
  for (const [name, spec] of Object.entries(workload.params)) {
    if (!(name in withDefaults)) withDefaults[name] = spec.default;
  }
  const invocation = {
    model,
    params: withDefaults,
    workers: workload.models[model].workers ? workers : undefined,
    kernel: workload.kernels ? (kernel ?? 'portable') : undefined,
    variants,
  };
  const session = await workload.prepare(invocation);
  try {
    const results = [];
    for (let index = 0; index < repetitions; index++) results.push(await runRepetition(workload, session, invocation, index));
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
