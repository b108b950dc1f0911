import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BYTES_CAP, chunkBounds, chunkPlan, claimChunks, KEYS_CAP, newChunkCounter } from '../src/chunking.js';

test('total 3, workers 2 -> chunk 2, 2 chunks', () => {
  assert.deepEqual(chunkPlan(3, 2, BYTES_CAP), { chunk: 2, chunks: 2 });
});

test('total 10 MiB, workers 2 -> chunk 1 MiB (the cap), 10 chunks', () => {
  assert.deepEqual(chunkPlan(10 * 1048576, 2, BYTES_CAP), { chunk: 1048576, chunks: 10 });
});

test('keygen caps a chunk at 1024 keys: 100,000 keys on 2 workers -> 98 chunks', () => {
  assert.deepEqual(chunkPlan(100000, 2, KEYS_CAP), { chunk: 1024, chunks: 98 });
});

test('keygen smoke: 2000 keys on 2 workers -> chunk 1000, 2 chunks', () => {
  assert.deepEqual(chunkPlan(2000, 2, KEYS_CAP), { chunk: 1000, chunks: 2 });
});

test('--chunk overrides the rule, above the cap too', () => {
  assert.deepEqual(chunkPlan(3, 2, BYTES_CAP, 1), { chunk: 1, chunks: 3 });
  assert.deepEqual(chunkPlan(10 * 1048576, 2, BYTES_CAP, 4 * 1048576), { chunk: 4 * 1048576, chunks: 3 });
});

test('fewer units than workers: one unit per chunk', () => {
  assert.deepEqual(chunkPlan(1, 4, BYTES_CAP), { chunk: 1, chunks: 1 });
});

test('the last chunk ends at the total', () => {
  assert.deepEqual(chunkBounds(2, 4, 10), [8, 10]);
});

test('every worker takes its own chunk even when another worker drained the counter first', () => {
  const counter = newChunkCounter(3);
  const first = [...claimChunks(counter, 0, 7)];
  const second = [...claimChunks(counter, 1, 7)];
  const third = [...claimChunks(counter, 2, 7)];
  assert.deepEqual(first, [0, 3, 4, 5, 6]);
  assert.deepEqual(second, [1]);
  assert.deepEqual(third, [2]);
});

test('a worker beyond the last chunk takes none', () => {
  const counter = newChunkCounter(3);
  assert.deepEqual([...claimChunks(counter, 0, 2)], [0]);
  assert.deepEqual([...claimChunks(counter, 2, 2)], []);
});
