import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { OrderFreeDigest, splitmix64Bytes } from '../src/digest.js';
import { alignAnnotations, batchJob, lcsOffsetMap } from '../src/workloads/batch_job.js';
import { runModel, runModelRepetitions } from './helpers.js';

const offsets = (oldText, newText) => Array.from(lcsOffsetMap(Buffer.from(oldText), Buffer.from(newText)));

test('offset map: unchanged text maps every offset to itself, M[n] = len(new)', () => {
  assert.deepEqual(offsets('abc', 'abc'), [0, 1, 2, 3]);
});

test('offset map: an insertion shifts the offsets after it', () => {
  assert.deepEqual(offsets('abcd', 'xabcd'), [1, 2, 3, 4, 5]);
});

test('offset map: an unmatched byte takes the offset of the next matched one', () => {
  assert.deepEqual(offsets('abXcd', 'abcd'), [0, 1, 2, 2, 3, 4]);
});

test('offset map: on a tie (dp[i+1][j] >= dp[i][j+1]) the walk steps i', () => {
  assert.deepEqual(offsets('ab', 'ba'), [0, 0, 2]);
});

test('annotation [b, e) becomes [M[b], M[e]) and is dropped when M[b] >= M[e]', () => {
  const aligned = alignAnnotations('abXcd', 'abcd', [
    { begin: 0, end: 5, label: 'ALL' },
    { begin: 2, end: 3, label: 'GONE' },
    { begin: 3, end: 5, label: 'TAIL' },
  ]);
  assert.deepEqual(aligned, [{ begin: 0, end: 4, label: 'ALL' }, { begin: 2, end: 4, label: 'TAIL' }]);
});

// A small job made here, so the test needs no harness: words from SplitMix64, ~5 % of them edited.
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'parbench-node-batch-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));

function makeJob(docs, words, name = 'job') {
  const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'actor', 'fiber', 'queue', 'mailbox', 'yield'];
  const labels = ['PERSON', 'PLACE', 'ORG'];
  const docsDir = path.join(folder, `${name}-docs`);
  fs.mkdirSync(docsDir, { recursive: true });
  const template = path.join(folder, `${name}.sqlite`);
  const db = new Database(template);
  db.pragma('journal_mode = WAL'); // WAL from the start, as the harness writes it: workers that switch a rollback-journal database to WAL at once can deadlock, and SQLite answers "locked" without waiting
  db.exec(`CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL, annotation_count INTEGER NOT NULL, status TEXT NOT NULL);
           CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL);
           CREATE INDEX annotations_by_doc ON annotations(doc_id);`);
  const expected = new OrderFreeDigest();
  for (let id = 1; id <= docs; id++) {
    const random = splitmix64Bytes(7, id, words * 3 + 40);
    const oldWords = Array.from({ length: words }, (_, w) => vocabulary[random[w] % vocabulary.length]);
    const newWords = oldWords.flatMap((word, w) => {
      const roll = random[words + w] % 40;
      return roll === 0 ? [] : roll === 1 ? ['inserted', word] : roll === 2 ? ['replaced'] : [word];
    });
    const oldText = oldWords.join(' ');
    const newText = newWords.join(' ');
    fs.writeFileSync(path.join(docsDir, `${id}.json`), JSON.stringify({ id, old: oldText, new: newText }));
    const spans = Array.from({ length: 10 }, (_, s) => {
      const begin = (random[2 * words + s] * 7) % oldText.length;
      return { begin, end: Math.min(oldText.length, begin + 1 + (random[2 * words + s + 10] % 30)), label: labels[s % 3] };
    });
    db.prepare("INSERT INTO documents VALUES (?, ?, ?, 'pending')").run(id, oldText.length, spans.length);
    for (const span of spans) db.prepare('INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)').run(id, span.begin, span.end, span.label);
    for (const span of alignAnnotations(oldText, newText, spans)) expected.addBytes(Buffer.from(`${id}:${span.begin}:${span.end}:${span.label}`));
  }
  // The harness's fresh database also holds the starting rows, for the reset between repetitions.
  db.exec(`CREATE TABLE pristine_documents AS SELECT * FROM documents;
           CREATE TABLE pristine_annotations AS SELECT doc_id, span_begin, span_end, label FROM annotations;`);
  db.close();
  return { docsDir, template, expected: expected.hex() };
}

/** Every model, in each start mode it offers (`undefined`: a model with none). */
const CASES = Object.entries(batchJob.models).flatMap(([model, info]) => Object.keys(info.start ?? { none: '' }).map((start) => [model, info.start ? start : undefined]));

test('every model, cold and warm, writes the same aligned annotations to SQLite', async () => {
  const job = makeJob(12, 150);
  for (const [model, start] of CASES) {
    const label = `${model} ${start ?? ''}`;
    const copy = path.join(folder, `${model}-${start}.sqlite`);
    fs.copyFileSync(job.template, copy);
    const result = await runModel(batchJob, model, { docs_dir: job.docsDir, db: `sqlite:${copy}` }, 3, { start });
    assert.equal(result.items, 12, label);
    assert.equal(result.checksum, job.expected, label);
    assert.equal(result.extra.start, start, label);
    const db = new Database(copy, { readonly: true });
    const statuses = db.prepare('SELECT status, count(*) AS n FROM documents GROUP BY status').all();
    db.close();
    assert.deepEqual(statuses, [{ status: 'aligned', n: 12 }], label);
    if (batchJob.models[model].workers) {
      assert.equal(result.extra.chunks, 12, label);
      assert.equal(result.extra.workers_used, 3, `${label}: every worker processed a document`);
    }
  }
});

test('every repetition but the first starts again from the pristine rows, timed as prepare_ns', async () => {
  const job = makeJob(8, 100, 'again');
  for (const [model, start] of CASES) {
    const label = `${model} ${start ?? ''}`;
    const copy = path.join(folder, `again-${model}-${start}.sqlite`);
    fs.copyFileSync(job.template, copy);
    const results = await runModelRepetitions(batchJob, model, { docs_dir: job.docsDir, db: `sqlite:${copy}` }, 2, { start, repetitions: 3 });
    for (const [index, result] of results.entries()) {
      // Without the reset a later repetition finds no pending document.
      assert.equal(result.items, 8, `${label} rep ${index}`);
      assert.equal(result.checksum, job.expected, `${label} rep ${index}`);
    }
    // The reset (a transaction with its commit) is what the later repetitions add before the clock.
    assert.ok(results[1].extra.prepare_ns > results[0].extra.prepare_ns, `${label}: ${results.map((r) => r.extra.prepare_ns)}`);
    const db = new Database(copy, { readonly: true });
    const pristine = db.prepare("SELECT (SELECT count(*) FROM pristine_documents WHERE status = 'pending') AS docs, (SELECT count(*) FROM pristine_annotations) AS spans").get();
    db.close();
    assert.deepEqual(pristine, { docs: 8, spans: 80 }, `${label}: the pristine rows are untouched`);
  }
});
