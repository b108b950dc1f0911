/**
 * What a sdes-ecb worker thread runs: a chunk through the kernel that was asked for. Kept apart
 * from the workload's protocol side so that a worker thread loads only this and the kernels.
 */
import { chunkBounds, claimChunks } from '../../chunking.js';
import { BusyInterval } from '../../protocol.js';
import * as portable from './portable.js';
import * as tuned from './tuned.js';

/**
 * Encrypts input[begin, end) into output. portable: the reference procedure's bitwise or table
 * cipher. tuned: the same loop over the shift-and-mask rounds, or the WebAssembly look-up `lookup` over the memory
 * both arrays live in.
 */
export function encryptRange(cipher, lookup, input, output, begin, end) {
  if (cipher.kernel === 'portable') {
    if (cipher.kind === 'table') portable.encryptTable(cipher.table, input, output, begin, end);
    else portable.encryptBitwise(cipher.k1, cipher.k2, input, output, begin, end);
  } else if (cipher.kind === 'table') {
    lookup(input.byteOffset + begin, output.byteOffset + begin, end - begin, cipher.pairs ? 1 : 0);
  } else {
    portable.encryptBitwise(cipher.k1, cipher.k2, input, output, begin, end, tuned.encryptByte);
  }
}

/** The WebAssembly table look-up over the shared memory, from the module compiled on the main thread. */
export function instantiateTableLookup(memory, module) {
  return new WebAssembly.Instance(module, { env: { memory } }).exports.lookup;
}

/** The input and output: in the tuned kernel's shared WebAssembly memory, or the portable kernel's two SharedArrayBuffers. */
function sharedViews({ memory, inputOffset, outputOffset, inputBuffer, outputBuffer, size }) {
  if (!memory) return { input: new Uint8Array(inputBuffer, 0, size), output: new Uint8Array(outputBuffer, 0, size) };
  return { input: new Uint8Array(memory.buffer, inputOffset, size), output: new Uint8Array(memory.buffer, outputOffset, size) };
}

/** Worker side: encrypts its chunks into the shared output; reports its busy interval. */
export function encryptChunks(task, worker) {
  const { input, output } = sharedViews(task);
  const lookup = task.cipher.kind === 'table' && task.cipher.kernel === 'tuned' ? instantiateTableLookup(task.memory, task.module) : null;
  const busy = new BusyInterval();
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    busy.begin();
    const [begin, end] = chunkBounds(index, task.chunk, task.size);
    encryptRange(task.cipher, lookup, input, output, begin, end);
    busy.end();
    done++;
  }
  return { chunks: done, ...busy.toJSON() };
}

/** Worker side of the ceiling: copies its chunks with TypedArray.set (memmove). */
export function copyChunks(task, worker) {
  const { input, output } = sharedViews(task);
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    const [begin, end] = chunkBounds(index, task.chunk, task.size);
    output.set(input.subarray(begin, end), begin);
    done++;
  }
  return { chunks: done };
}
