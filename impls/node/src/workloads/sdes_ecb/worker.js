/**
 * What a sdes-ecb worker thread runs: a chunk through the kernel that was asked for. Kept apart
 * from the workload's protocol side so that a worker thread loads only this and the kernels.
 */
import { chunkBounds, claimChunks } from '../../chunking.js';
import { BusyInterval } from '../../protocol.js';
import * as portable from './portable.js';
import { BLOCK_BYTES } from '../../sdes_bitwise_wasm.js';
import * as tuned from './tuned.js';

/**
 * Where the bitwise SIMD loop's constants lie in the tuned kernel's memory: the slot of the table
 * cipher's 256-byte table (a case runs one cipher), written by each repetition's key schedule.
 */
export const BITWISE_CONSTANTS_OFFSET = 0;

/**
 * Encrypts input[begin, end) into output. portable: the reference procedure's bitwise or table
 * cipher. tuned: the WebAssembly look-up `kernels.lookup` over the memory both arrays live in;
 * bitwise, the WebAssembly SIMD loop `kernels.bitwise` over its whole 16-byte blocks and the
 * shift-and-mask rounds over the rest (all of it for the js-shift-mask technique).
 */
export function encryptRange(cipher, kernels, input, output, begin, end) {
  if (cipher.kernel === 'portable') {
    if (cipher.kind === 'table') portable.encryptTable(cipher.table, input, output, begin, end);
    else portable.encryptBitwise(cipher.k1, cipher.k2, input, output, begin, end);
  } else if (cipher.kind === 'table') {
    kernels.lookup(input.byteOffset + begin, output.byteOffset + begin, end - begin, cipher.pairs ? 1 : 0);
  } else {
    let done = begin;
    if (kernels?.bitwise) {
      const blocks = (end - begin) & -BLOCK_BYTES;
      kernels.bitwise(input.byteOffset + begin, output.byteOffset + begin, blocks, BITWISE_CONSTANTS_OFFSET);
      done += blocks;
    }
    portable.encryptBitwise(cipher.k1, cipher.k2, input, output, done, end, tuned.encryptByte);
  }
}

/** The tuned kernel's WebAssembly functions over the (shared) memory, from the modules compiled on the main thread. */
export function instantiateKernels(memory, modules) {
  const instantiate = (module) => module && new WebAssembly.Instance(module, { env: { memory } }).exports;
  return { lookup: instantiate(modules.lookup).lookup, bitwise: instantiate(modules.bitwise)?.bitwise ?? null };
}

/** The input and output: in the tuned kernel's shared WebAssembly memory, or the portable kernel's two SharedArrayBuffers. */
function sharedViews({ memory, inputOffset, outputOffset, inputBuffer, outputBuffer, size }) {
  if (!memory) return { input: new Uint8Array(inputBuffer, 0, size), output: new Uint8Array(outputBuffer, 0, size) };
  return { input: new Uint8Array(memory.buffer, inputOffset, size), output: new Uint8Array(memory.buffer, outputOffset, size) };
}

/** Worker side: encrypts its chunks into the shared output; reports its busy interval. */
export function encryptChunks(task, worker) {
  const { input, output } = sharedViews(task);
  const kernels = task.cipher.kernel === 'tuned' ? instantiateKernels(task.memory, task.modules) : null;
  const busy = new BusyInterval();
  let done = 0;
  for (const index of claimChunks(new Int32Array(task.counter), worker, task.chunks)) {
    busy.begin();
    const [begin, end] = chunkBounds(index, task.chunk, task.size);
    encryptRange(task.cipher, kernels, input, output, begin, end);
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
