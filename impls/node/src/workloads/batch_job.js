/** batch-job: re-align each document's annotations (LCS, CPU) and rewrite them in a database (I/O). */
import fs from 'node:fs';
import path from 'node:path';
import { loadDriver, openStore } from './batch_job/database.js';
import { OrderFreeDigest } from '../digest.js';
import { claimChunks, newChunkCounter } from '../chunking.js';
import { BusyInterval, nowNs, UsageError } from '../protocol.js';
import { startTeam, workersReport } from '../worker_team.js';

/**
 * The spec's offset map: M[i] = where old byte i lands in new (M[n] = len(new)), from the LCS walk
 * over the suffix table dp[i][j] = LCS(old[i:], new[j:]), written as the spec's steps.
 */
export function lcsOffsetMap(oldBytes, newBytes) {
  const n = oldBytes.length;
  const m = newBytes.length;
  // Row n and column m stay 0: the LCS of an empty suffix.
  const dp = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i][j] = oldBytes[i] === newBytes[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const matchedTo = new Int32Array(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (oldBytes[i] === newBytes[j]) {
      matchedTo[i] = j;
      i++;
      j++;
    } else if (dp[i + 1][j] >= dp[i][j + 1]) {
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

const KERNEL_DETAIL = 'reference, transliterated';

/**
 * The statements that give the job its starting rows back from the harness's pristine copies,
 * before every repetition but the process's first (docs/protocol.md, batch-job): one transaction
 * on one connection, the same text on SQLite and PostgreSQL. The annotations go back in one order
 * so that their ids come out the same every time.
 */
export const RESET_JOB = [
  'DELETE FROM annotations',
  'INSERT INTO annotations (doc_id, span_begin, span_end, label) SELECT doc_id, span_begin, span_end, label FROM pristine_annotations ORDER BY doc_id, span_begin, span_end, label',
  'DELETE FROM documents',
  'INSERT INTO documents (doc_id, length, annotation_count, status) SELECT doc_id, length, annotation_count, status FROM pristine_documents',
];

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

// fs.promises reads run on libuv's thread pool, whose size bounds how many overlap. Node starts
// that pool as it boots, so its threads exist before the ready line in both start modes.
const UV_THREADPOOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE ?? 4);

/** `count` connections, one per lane or worker. */
function openStores(db, count) {
  return Promise.all(Array.from({ length: count }, () => openStore(db)));
}

function closeStores(stores) {
  return Promise.all(stores.map((store) => store.close()));
}

/**
 * `workers` promise chains (lanes) on the one event loop, each with its own connection, each
 * taking the next pending document; they overlap waiting on PostgreSQL and the file system, never
 * alignment. Lanes start in order and each takes a document before its first await. Cold opens
 * the lanes' connections inside every repetition, warm once here.
 */
async function prepareAsync({ docs_dir: docsDir, db }, workers, start) {
  const startBegin = nowNs();
  const warmStores = start === 'warm' ? await openStores(db, workers) : null;
  const runLanes = async (laneStores, timing) => {
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
  };
  return {
    startNs: warmStores ? nowNs() - startBegin : undefined,
    runOnce: (repetition) => timedJob(repetition, db, async (timing) => {
      if (warmStores) return runLanes(warmStores, timing);
      const laneStores = await openStores(db, workers);
      try {
        return await runLanes(laneStores, timing);
      } finally {
        await closeStores(laneStores);
      }
    }),
    close: async () => {
      if (warmStores) await closeStores(warmStores);
    },
  };
}

/**
 * `workers` worker threads, each with its own connection, started in every repetition (cold) or
 * once here with their connections open (warm); each takes its own document first, then claims
 * more with Atomics.add; the work list is read on the main thread (warm: over a connection it keeps).
 */
async function prepareWorkerThreads({ docs_dir: docsDir, db }, workers, start) {
  const startBegin = nowNs();
  const { team } = await startTeam(start, import.meta.url, workers);
  const listStore = start === 'warm' ? await openStore(db) : null;
  if (start === 'warm') await team.run('openWorkerStore', { db });
  const startNs = start === 'warm' ? nowNs() - startBegin : undefined;
  const pendingDocIds = () => (listStore ? listStore.pendingDocIds() : withStore(db, (store) => store.pendingDocIds()));
  return {
    startNs,
    runOnce: (repetition) => timedJob(repetition, db, async (timing, clockStart) => {
      const docIds = await pendingDocIds();
      const task = { docsDir, db, docIds: Int32Array.from(docIds), counter: newChunkCounter(workers).buffer };
      const results = await team.run('alignDocuments', task);
      for (const result of results) {
        timing.cpu_ns += result.cpu_ns;
        timing.io_ns += result.io_ns;
      }
      const report = workersReport(results, clockStart);
      if (report.chunks_done !== docIds.length) throw new Error(`workers processed ${report.chunks_done} of ${docIds.length} documents`);
      return { docs: docIds.length, extra: { chunks: docIds.length, workers_used: report.workers_used, workers_start_ns: report.workers_start_ns }, busy: results };
    }),
    close: async () => {
      if (start === 'warm') {
        await team.run('closeWorkerStore', {});
        await listStore.close();
      }
      await team.end();
    },
  };
}

/** Warm worker side: the connection this worker keeps for every repetition. */
export async function openWorkerStore({ db }, worker, post, state) {
  state.store = await openStore(db);
  return { chunks: 0 };
}

export async function closeWorkerStore(task, worker, post, state) {
  await state.store.close();
  state.store = undefined;
  return { chunks: 0 };
}

/**
 * Worker side: processes documents until none are left, over the connection it keeps (warm) or
 * one it opens and closes here (cold).
 */
export async function alignDocuments(task, worker, post, state) {
  if (state.store) return alignClaimedDocuments(state.store, task, worker);
  return withStore(task.db, (store) => alignClaimedDocuments(store, task, worker));
}

async function alignClaimedDocuments(store, { docsDir, docIds, counter }, worker) {
  const timing = { cpu_ns: 0, io_ns: 0 };
  const busy = new BusyInterval();
  let docs = 0;
  for (const index of claimChunks(new Int32Array(counter), worker, docIds.length)) {
    busy.begin();
    await processDocument(store, readDocumentSync, docsDir, docIds[index], timing);
    busy.end();
    docs++;
  }
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
      note: 'N promise chains (N = --workers) on one event loop, one connection each; better-sqlite3 is synchronous, so with SQLite only file reads overlap',
      start: {
        cold: 'the lanes\' N connections opened inside each repetition\'s clock and closed before it stops; the lanes (promise chains) started and settled inside it; libuv\'s thread pool is Node\'s own, started at boot',
        warm: 'the lanes\' N connections opened once before the ready line and kept; each repetition starts one promise chain per open connection and awaits them all',
      },
    },
    'worker-threads': {
      family: 'threads',
      workers: true,
      note: '--workers worker_threads, one connection per worker; each takes its own document first, then claims more with Atomics.add',
      start: {
        cold: 'the Workers started inside each repetition\'s clock, each opening and closing its connection there, and joined (exited) before it stops; the main thread\'s work-list connection too',
        warm: 'the Workers started once before the ready line, each opening its connection then, and the main thread\'s work-list connection; each repetition posts the work list to every worker and awaits its reply',
      },
    },
  },
  async prepare(invocation) {
    return withReset(await prepareModel(invocation), invocation.params.db);
  },
};

/**
 * The model's session, whose every repetition but the first runs RESET_JOB first, on a
 * connection of its own; after the repetition's start and before its clock, so it is prepare_ns.
 */
function withReset(session, db) {
  let first = true;
  return {
    ...session,
    runOnce: async (repetition) => {
      if (!first) await withStore(db, (store) => store.runInOneTransaction(RESET_JOB));
      first = false;
      return session.runOnce(repetition);
    },
  };
}

async function prepareModel({ model, params, workers, start }) {
  // stat, not fs.existsSync: access(2) ignores the benchmark user's CAP_DAC_READ_SEARCH (sdes_ecb.js).
  if (!fs.statSync(params.docs_dir, { throwIfNoEntry: false })) throw new UsageError(`--docs-dir '${params.docs_dir}' does not exist`);
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(params.db)) throw new UsageError(`--db '${params.db}' is neither sqlite:PATH nor postgresql://…`);
  // Loading the driver is start-up, not the job (worker threads load theirs inside, as they start).
  await loadDriver(params.db);
  if (model === 'seq') return prepareSeq(params);
  if (model === 'async') return prepareAsync(params, workers, start);
  return prepareWorkerThreads(params, workers, start);
}
