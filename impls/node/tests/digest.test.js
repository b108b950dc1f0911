import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fnv1a64Hex, OrderFreeDigest, splitmix64Bytes } from '../src/digest.js';

test('fnv1a64("") = cbf29ce484222325', () => {
  assert.equal(fnv1a64Hex(Buffer.from('')), 'cbf29ce484222325');
});

test('fnv1a64("a") = af63dc4c8601ec8c', () => {
  assert.equal(fnv1a64Hex(Buffer.from('a')), 'af63dc4c8601ec8c');
});

test('SplitMix64 bytes(1, 0, 16) = c15c0289ec2d0a9167ec8e65a18debbe', () => {
  assert.equal(Buffer.from(splitmix64Bytes(1, 0, 16)).toString('hex'), 'c15c0289ec2d0a9167ec8e65a18debbe');
});

test('SplitMix64 in 32-bit halves matches a BigInt reference for large seeds and indices', () => {
  const reference = (seed, index, n) => {
    const mask = (1n << 64n) - 1n;
    let state = (seed + index * 0x9e3779b97f4a7c15n) & mask;
    const out = [];
    while (out.length < n) {
      state = (state + 0x9e3779b97f4a7c15n) & mask;
      let z = state;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
      z ^= z >> 31n;
      for (let b = 0n; b < 8n && out.length < n; b++) out.push(Number((z >> (8n * b)) & 0xffn));
    }
    return Buffer.from(out).toString('hex');
  };
  for (const [seed, index] of [[0n, 0], [18446744073709551615n, 12345], [0x123456789abcdefn, 999999]]) {
    assert.equal(Buffer.from(splitmix64Bytes(seed, index, 37)).toString('hex'), reference(seed, BigInt(index), 37));
  }
});

test('order-free digest: the sum does not depend on the order, and wraps mod 2^64', () => {
  const words = ['x', 'yy', 'zzz', 'a'];
  const forward = new OrderFreeDigest();
  const backward = new OrderFreeDigest();
  words.forEach((w) => forward.addAscii(w));
  [...words].reverse().forEach((w) => backward.addAscii(w));
  assert.equal(forward.hex(), backward.hex());
  const mask = (1n << 64n) - 1n;
  const expected = words.reduce((sum, w) => (sum + BigInt('0x' + fnv1a64Hex(Buffer.from(w)))) & mask, 0n);
  assert.equal(forward.hex(), expected.toString(16).padStart(16, '0'));
});
