/** keygen: random keys encoded as lower-case RFC 4648 Base32, sequentially or on worker threads; the protocol side. */
import { base32Module, base32Technique } from '../base32_wasm.js';
import { chunkBounds, chunkPlan, KEYS_CAP, newChunkCounter } from '../chunking.js';
import { OrderFreeDigest } from '../digest.js';
import { nowNs, UsageError } from '../protocol.js';
import { startTeam, workersReport } from '../worker_team.js';
import { appendKeys, base32Chunks, csprngChunks, encodedLength, fillKeyBytes, keyBuffers } from './keygen/worker.js';

// Worker threads load the keys' module only.
const WORKER_MODULE = new URL('./keygen/worker.js', import.meta.url);

export const STRONG_SOURCE = `crypto.randomFillSync (OpenSSL ${process.versions.openssl} RAND_bytes: per-thread CTR-DRBG AES-256 seeded from getrandom)`;

/**
 * Both kernels draw with crypto.randomFillSync, one call per chunk (or SplitMix64 for
 * --source seeded, the same code around it), and keep every key as a one-byte JS string; they
 * differ in the encoder (and, on worker threads, in how a chunk reaches the main thread).
 */
const BASE32_DETAILS = {
  simd: 'WebAssembly SIMD Base32 (10 bytes to 16 characters a step: i8x16.swizzle, i16x8 shifts, compare-and-add)',
  table: 'WebAssembly Base32 through a 1,024-entry character-pair table (the engine does not run SIMD, or PARBENCH_NODE_BASE32=table)',
};
/** The tuned kernel's detail with the Base32 technique that runs in this process. */
function tunedDetail(technique) {
  return KERNEL_DETAILS.tuned.replace('WebAssembly Base32 through a 1,024-entry character-pair table', BASE32_DETAILS[technique]);
}

export const KERNEL_DETAILS = {
  portable: 'reference, transliterated: crypto.randomFillSync, plain-JS Base32',
  // randomFillSync is already an AES-CTR keystream with AES-NI (OpenSSL's CTR-DRBG), and 4x
  // faster here than createCipheriv('aes-128-ctr'), whose update() allocates its output (node.md).
  tuned: 'crypto.randomFillSync (OpenSSL CTR-DRBG, AES-256-CTR keystream, AES-NI) + WebAssembly Base32 through a 1,024-entry character-pair table; worker threads transfer raw records the main thread decodes',
};

/** The checksum of a finished run for both sources: the order-free digest of the keys. */
export function keysChecksum(keys) {
  const digest = new OrderFreeDigest();
  for (const key of keys) digest.addAscii(key);
  return digest.hex();
}

/** The job of one repetition: its seed is the repetition's variant. */
function jobOf(params, kernel) {
  // The compiled encoder travels with the job: worker threads instantiate it, V8 shares its code.
  return { keyBytes: params.bytes, source: params.source, seed: params.seed, count: params.count, kernel, module: kernel === 'tuned' ? base32Module() : null };
}

const CEILING = 'csprng+base32';

/** The ceiling's extra fields from its two parts, timed separately. */
function ceilingExtra([csprngNs, base32Ns]) {
  return { ceiling: CEILING, ceiling_ns: csprngNs + base32Ns, csprng_ns: csprngNs, base32_ns: base32Ns };
}

/**
 * The checksum and the probed keys, after the clock. `keyAt(i)` finds key i of the generation
 * order (chunk c holds keys c·chunk …) in the collection, whatever order the chunks arrived in.
 */
function finish(repetition, keys, job, keyAt, extra) {
  if (keys.length !== job.count) throw new Error(`made ${keys.length} of ${job.count} keys`);
  return repetition.checksum(() => {
    extra.probes = (repetition.params.probes ?? []).map(keyAt);
    return { items: job.count, checksum: keysChecksum(keys), extra };
  });
}

/** seq: blocks of KEYS_CAP keys, one randomFillSync and one encoder pass per block, each key a string. */
function prepareSeq(kernel) {
  return {
    async runOnce(repetition) {
      const job = jobOf(repetition.params, kernel);
      const { chunk: block, chunks: blocks } = chunkPlan(job.count, 1, KEYS_CAP);
      repetition.startClock();
      const keys = [];
      const buffers = keyBuffers(kernel, job.module, block, job.keyBytes);
      for (let index = 0; index < blocks; index++) {
        const [first, end] = chunkBounds(index, block, job.count);
        fillKeyBytes(job, first, end - first, buffers.raw);
        buffers.encode(end - first);
        appendKeys(keys, buffers.recordsOf(end - first), buffers.width);
      }
      repetition.stopClock();
      const result = await finish(repetition, keys, job, (position) => keys[position], {});
      if (job.source === 'strong') Object.assign(result.extra, ceilingExtra(timeSeqCeiling({ ...job, chunk: block, chunks: blocks })));
      return result;
    },
  };
}

function timeSeqCeiling(task) {
  return [csprngChunks, base32Chunks].map((part) => {
    const start = nowNs();
    part({ ...task, counter: newChunkCounter(1).buffer }, 0);
    return nowNs() - start;
  });
}

/**
 * `workers` worker threads, started in every repetition (cold) or once here (warm); each makes its
 * own chunk of keys, then claims more with Atomics.add, and posts each chunk to the main thread,
 * which appends its keys to the one array as they arrive: strings cannot be shared between isolates.
 */
async function prepareWorkerThreads(params, workers, kernel, start) {
  const width = encodedLength(params.bytes);
  const { chunk, chunks } = chunkPlan(params.count, workers, KEYS_CAP, params.chunk);
  const { team, startNs } = await startTeam(start, WORKER_MODULE, workers);
  return {
    startNs,
    async runOnce(repetition) {
      const job = jobOf(repetition.params, kernel);
      const task = () => ({ ...job, chunk, chunks, counter: newChunkCounter(workers).buffer });
      const keys = [];
      // Where each chunk's keys start in `keys`, for the probes.
      const chunkStarts = new Int32Array(chunks);
      const receive = ({ index, keys: strings, encoded }) => {
        chunkStarts[index] = keys.length;
        if (strings) for (const key of strings) keys.push(key);
        else appendKeys(keys, encoded, width);
      };
      const clockStart = repetition.startClock();
      const results = await team.run('generateChunks', task(), receive);
      repetition.stopClock();
      repetition.recordBusy(results);
      const report = workersReport(results, clockStart);
      const keyAt = (position) => keys[chunkStarts[Math.floor(position / chunk)] + (position % chunk)];
      const result = await finish(repetition, keys, job, keyAt, { chunk, chunks, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns });
      if (job.source === 'strong') Object.assign(result.extra, ceilingExtra(await timeParallelCeiling(repetition, team, task)));
      return result;
    },
    close: () => team.end(),
  };
}

/** Both parts of the ceiling on as many worker threads, running before the clocks. */
function timeParallelCeiling(repetition, team, task) {
  return team.withCeilingWorkers(repetition, async (ceilingTeam) => {
    const times = [];
    for (const part of ['csprngChunks', 'base32Chunks']) {
      const begin = nowNs();
      await ceilingTeam.run(part, task());
      times.push(nowNs() - begin);
    }
    return times;
  });
}

export const keygen = {
  name: 'keygen',
  params: {
    count: { kind: 'int', default: 2000 },
    bytes: { kind: 'int', default: 1000 },
    source: { kind: 'choice', choices: ['strong', 'seeded'], default: 'strong' },
    seed: { kind: 'uint64', default: 0n },
    chunk: { kind: 'int', default: 0 },
    probes: { kind: 'list', default: [] },
  },
  // Protocol 3: repetition j uses the seed read from stdin before it (the strong source ignores it).
  variantParam: 'seed',
  kernels: KERNEL_DETAILS,
  kernelDetail: (kernel) => (kernel === 'tuned' ? tunedDetail(base32Technique()) : KERNEL_DETAILS[kernel]),
  models: {
    seq: { family: 'seq', note: `blocks of ${KEYS_CAP} keys: one randomFillSync, the kernel's Base32 encoder, each key a latin1 string in one array` },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: `--workers worker_threads (cold: started and joined inside every repetition's timed region; warm: started once before the first repetition); each makes its own chunk of keys (randomFillSync, the kernel's Base32), then claims more with Atomics.add, and posts each chunk to the main thread, which keeps the keys as strings in one array (strings cannot cross isolates); chunk min(${KEYS_CAP}, ceil(count/workers)) keys or --chunk`,
      start: {
        cold: 'the Workers started inside each repetition\'s clock (each seeds its own OpenSSL DRBG there) and joined (exited) before it stops; the ceiling\'s Workers started and terminated within the repetition',
        warm: 'the Workers started once before the ready line (each seeds its DRBG in its first repetition, a warm-up where there is one); each repetition posts the task to every worker and awaits its reply, the keys arriving as posts; the ceiling runs on the same Workers',
      },
    },
  },
  prepare({ model, params, workers, start, kernel = 'portable' }) {
    const outside = params.probes.find((position) => position >= params.count);
    if (outside !== undefined) throw new UsageError(`--probes ${outside} is not a key index below --count ${params.count}`);
    return model === 'seq' ? prepareSeq(kernel) : prepareWorkerThreads(params, workers, kernel, start);
  },
};
