/** The one chunking rule of every data-parallel model, and the order in which workers take chunks. */

/** sdes-ecb's cap: 1 MiB of input per chunk. */
export const BYTES_CAP = 1048576;
/** keygen's cap: 1024 keys per chunk. */
export const KEYS_CAP = 1024;

/**
 * chunk = min(cap, ceil(total / workers)), or `override` when it is positive (`--chunk N`);
 * chunks = ceil(total / chunk). So every worker has a chunk at every size of at least `workers` units.
 */
export function chunkPlan(total, workers, cap, override = 0) {
  const chunk = override > 0 ? override : Math.max(1, Math.min(cap, Math.ceil(total / workers)));
  return { chunk, chunks: Math.ceil(total / chunk) };
}

/** The [begin, end) units of chunk `index`. */
export function chunkBounds(index, chunk, total) {
  const begin = index * chunk;
  return [begin, Math.min(begin + chunk, total)];
}

/** A shared counter of the next unclaimed chunk, set so that chunks 0..workers-1 are already taken. */
export function newChunkCounter(workers) {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  counter[0] = workers;
  return counter;
}

/**
 * The chunk indices worker `worker` processes: its own chunk (index = worker) first, then chunks
 * claimed with Atomics.add until none are left. Starting a worker thread takes milliseconds, so
 * without its own first chunk the first worker up could take every chunk of a small input.
 */
export function* claimChunks(counter, worker, chunks) {
  if (worker < chunks) yield worker;
  for (let index = Atomics.add(counter, 0, 1); index < chunks; index = Atomics.add(counter, 0, 1)) yield index;
}
