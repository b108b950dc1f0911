/** batch-job: re-align each document's annotations (LCS, CPU) and rewrite them in a database (I/O). */
import fs from 'node:fs';
import path from 'node:path';
import { loadDriver, openStore } from '../batch_database.js';
import { OrderFreeDigest } from '../digest.js';
import { claimChunks, newChunkCounter } from '../chunking.js';
import { BusyInterval, nowNs, UsageError } from '../protocol.js';
import { runWorkers, workersReport } from '../worker_team.js';

/**
 * The spec's offset map: M[i] = where old byte i lands in new (M[n] = len(new)), from the LCS walk
 * over the suffix table dp[i][j] = LCS(old[i:], new[j:]).
 */
export function lcsOffsetMap(oldBytes, newBytes) {
  const n = oldBytes.length;
  const m = newBytes.length;
  const width = m + 1;
  const table = Math.min(n, m) < 0xffff ? new Uint16Array((n + 1) * width) : new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    const row = i * width;
    const below = row + width;
    const oldByte = oldBytes[i];
    for (let j = m - 1; j >= 0; j--) {
      if (oldByte === newBytes[j]) {
        table[row + j] = table[below + j + 1] + 1;
      } else {
        const down = table[below + j];
        const right = table[row + j + 1];
        table[row + j] = down >= right ? down : right;
      }
    }
  }
  const matchedTo = new Int32Array(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (oldBytes[i] === newBytes[j]) {
      matchedTo[i++] = j++;
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
      i++;
    } else {
      j++;
    }
  }
  const offsets = new Int32Array(n + 1);
  offsets[n] = m;
  for (let k = n - 1; k >= 0; k--) offsets[k] = matchedTo[k] >= 0 ? matchedTo[k] : offsets[k + 1];
  return offsets;
}

/** Moves each [begin, end) span onto the new text, dropping spans that collapse. */
export function alignAnnotations(oldText, newText, spans) {
  const offsets = lcsOffsetMap(Buffer.from(oldText, 'utf8'), Buffer.from(newText, 'utf8'));
  const aligned = [];
  for (const span of spans) {
    const begin = offsets[span.begin];
    const end = offsets[span.end];
    if (begin < end) aligned.push({ begin, end, label: span.label });
  }
  return aligned;
}

const KERNEL_DETAIL = 'plain JS LCS suffix table (Uint16Array), walk and offset map';

function documentPath(docsDir, docId) {
  return path.join(docsDir, `${docId}.json`);
}

const readDocumentSync = async (docsDir, docId) => JSON.parse(fs.readFileSync(documentPath(docsDir, docId), 'utf8'));
const readDocumentAsync = async (docsDir, docId) => JSON.parse(await fs.promises.readFile(documentPath(docsDir, docId), 'utf8'));

/** The whole job for one document; adds its alignment and I/O time to `timing`. */
async function processDocument(store, readDocument, docsDir, docId, timing) {
  const readStart = nowNs();
  const document = await readDocument(docsDir, docId);
  const spans = await store.annotationsOf(docId);
  const alignStart = nowNs();
  const aligned = alignAnnotations(document.old, document.new, spans);
  const writeStart = nowNs();
  await store.replaceAnnotations(docId, aligned, Buffer.byteLength(document.new, 'utf8'));
  const end = nowNs();
  timing.cpu_ns += writeStart - alignStart;
  timing.io_ns += (alignStart - readStart) + (end - writeStart);
}

/** The checksum from the database after the run, over a connection of its own (outside the timed region). */
async function annotationsDigest(db) {
  const store = await openStore(db);
  try {
    const digest = new OrderFreeDigest();
    for (const row of await store.allAnnotationRows()) {
      digest.addBytes(Buffer.from(`${row.doc_id}:${row.span_begin}:${row.span_end}:${row.label}`, 'utf8'));
    }
    return digest.hex();
  } finally {
    await store.close();
  }
}

/**
 * Runs `body(timing, start)` as the timed region (it opens and closes its own connections and
 * returns {docs, extra, busy}: busy, per worker or lane, its BusyInterval) and takes the checksum
 * from the database afterwards.
 */
async function timedJob(repetition, db, body) {
  const timing = { cpu_ns: 0, io_ns: 0 };
  const start = repetition.startClock();
  const { docs, extra, busy } = await body(timing, start);
  repetition.stopClock();
  if (busy) repetition.recordBusy(busy);
  const checksum = await repetition.checksum(() => annotationsDigest(db));
  return { items: docs, checksum, extra: { ...timing, ...extra } };
}

/** Opens a connection, runs `body(store)` and closes the connection, whatever happens. */
async function withStore(db, body) {
  const store = await openStore(db);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

function prepareSeq({ docs_dir: docsDir, db }) {
  return {
    runOnce: (repetition) => timedJob(repetition, db, (timing) => withStore(db, async (store) => {
      const docIds = await store.pendingDocIds();
      for (const docId of docIds) await processDocument(store, readDocumentSync, docsDir, docId, timing);
      return { docs: docIds.length };
    })),
  };
}

// fs.promises reads run on libuv's thread pool, whose size bounds how many overlap.
const UV_THREADPOOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

/**
 * `workers` promise chains (lanes) on the one event loop, each with its own connection, each
 * taking the next pending document; they overlap waiting on PostgreSQL and the file system, never
 * alignment. Lanes start in order and each takes a document before its first await.
 */
function prepareAsync({ docs_dir: docsDir, db }, workers) {
  return {
    runOnce: (repetition) => timedJob(repetition, db, async (timing) => {
      const laneStores = await Promise.all(Array.from({ length: workers }, () => openStore(db)));
      try {
        const docIds = await laneStores[0].pendingDocIds();
        let next = 0;
        // A lane is busy from its first document's start to its last one's end.
        const lane = async (laneStore) => {
          const busy = new BusyInterval();
          let docs = 0;
          for (; next < docIds.length; docs++) {
            busy.begin();
            await processDocument(laneStore, readDocumentAsync, docsDir, docIds[next++], timing);
            busy.end();
          }
          return { docs, ...busy.toJSON() };
        };
        const perLane = await Promise.all(laneStores.map(lane));
        const extra = { chunks: docIds.length, workers_used: perLane.filter((result) => result.docs > 0).length, uv_threadpool_size: UV_THREADPOOL_SIZE };
        return { docs: docIds.length, extra, busy: perLane };
      } finally {
        await Promise.all(laneStores.map((laneStore) => laneStore.close()));
      }
    }),
  };
}

/**
 * Every repetition starts `workers` worker threads, each with its own connection; each takes its
 * own document first, then claims more with Atomics.add; the work list is read on the main thread.
 */
function prepareWorkerThreads({ docs_dir: docsDir, db }, workers) {
  return {
    runOnce: (repetition) => timedJob(repetition, db, async (timing, start) => {
      const docIds = await withStore(db, (store) => store.pendingDocIds());
      const task = { docsDir, db, docIds: Int32Array.from(docIds), counter: newChunkCounter(workers).buffer };
      const results = await runWorkers(import.meta.url, 'alignDocuments', workers, task);
      for (const result of results) {
        timing.cpu_ns += result.cpu_ns;
        timing.io_ns += result.io_ns;
      }
      const report = workersReport(results, start);
      if (report.chunks_done !== docIds.length) throw new Error(`workers processed ${report.chunks_done} of ${docIds.length} documents`);
      return { docs: docIds.length, extra: { chunks: docIds.length, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns }, busy: results };
    }),
  };
}

/** Worker side: opens its own connection and processes documents until none are left. */
export async function alignDocuments({ docsDir, db, docIds, counter }, worker) {
  const timing = { cpu_ns: 0, io_ns: 0 };
  const busy = new BusyInterval();
  let docs = 0;
  await withStore(db, async (store) => {
    for (const index of claimChunks(new Int32Array(counter), worker, docIds.length)) {
      busy.begin();
      await processDocument(store, readDocumentSync, docsDir, docIds[index], timing);
      busy.end();
      docs++;
    }
  });
  return { ...timing, chunks: docs, ...busy.toJSON() };
}

export const batchJob = {
  name: 'batch-job',
  params: {
    docs_dir: { kind: 'string' },
    db: { kind: 'string' },
  },
  // The alignment is the spec's LCS in plain JS (typed arrays); there is nothing engineered to call tuned.
  kernels: { portable: KERNEL_DETAIL },
  kernelDetail: () => KERNEL_DETAIL,
  models: {
    seq: { family: 'seq', note: 'one connection, opened and closed inside the timed region' },
    async: {
      family: 'async',
      workers: true,
      note: 'N promise chains (N = --workers) on one event loop, one connection each, opened and closed inside the timed region; better-sqlite3 is synchronous, so with SQLite only file reads overlap',
    },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: 'every repetition starts --workers worker_threads inside the timed region and joins them (exit); one connection per worker; each takes its own document first, then claims more with Atomics.add',
    },
  },
  async prepare({ model, params, workers }) {
    // stat, not fs.existsSync: access(2) ignores the benchmark user's CAP_DAC_READ_SEARCH (sdes_ecb.js).
    if (!fs.statSync(params.docs_dir, { throwIfNoEntry: false })) throw new UsageError(`--docs-dir '${params.docs_dir}' does not exist`);
    if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(params.db)) throw new UsageError(`--db '${params.db}' is neither sqlite:PATH nor postgresql://…`);
    // Loading the driver is start-up, not the job (worker threads load theirs inside, as they start).
    await loadDriver(params.db);
    if (model === 'seq') return prepareSeq(params);
    if (model === 'async') return prepareAsync(params, workers);
    return prepareWorkerThreads(params, workers);
  },
};
