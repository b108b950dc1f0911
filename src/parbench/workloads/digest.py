"""The digests and generators every workload's oracle shares (docs/workloads/README.md), written
independently of any runtime's implementation; each workload's own oracle is in its package.

The harness trusts a timing only when the implementation's checksum equals what this module
computes, so it favours being obviously right (straight from the specs in workloads/) and
vectorises with numpy only where the pure form would take minutes at the quick scale.
"""
from __future__ import annotations

import base64
from collections import defaultdict
from typing import Iterable

import numpy as np

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def fnv1a64(data: bytes) -> int:
    h = FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & MASK64
    return h


def fnv1a64_rows(rows: np.ndarray) -> np.ndarray:
    """FNV-1a 64 of every row of a (k, length) uint8 array; numpy's uint64 wraps mod 2^64."""
    h = np.full(rows.shape[0], FNV_OFFSET, dtype=np.uint64)
    prime = np.uint64(FNV_PRIME)
    for column in range(rows.shape[1]):
        h ^= rows[:, column].astype(np.uint64)
        h *= prime
    return h


def order_free_digest(strings: Iterable[bytes]) -> str:
    """Sum mod 2^64 of fnv1a64 over the strings, as 16 hex digits (workloads/README.md)."""
    by_length: dict[int, list[bytes]] = defaultdict(list)
    for s in strings:
        by_length[len(s)].append(s)
    total = 0
    with np.errstate(over="ignore"):
        for length, group in by_length.items():
            rows = np.frombuffer(b"".join(group), dtype=np.uint8).reshape(len(group), length)
            total += int(fnv1a64_rows(rows).sum(dtype=np.uint64))
    return f"{total & MASK64:016x}"


def splitmix64_bytes(seed: int, index: int, n: int) -> bytes:
    return splitmix64_matrix(seed, index, 1, n)[0].tobytes()


def splitmix64_matrix(seed: int, first_index: int, count: int, n: int) -> np.ndarray:
    """Rows i = SplitMix64 bytes(seed, first_index + i, n), as a (count, n) uint8 array."""
    words = (n + 7) // 8
    with np.errstate(over="ignore"):
        index = np.arange(first_index, first_index + count, dtype=np.uint64)
        state = np.uint64(seed & MASK64) + index * np.uint64(GOLDEN_GAMMA)
        out = np.empty((count, words), dtype="<u8")
        for w in range(words):
            state = state + np.uint64(GOLDEN_GAMMA)
            z = state.copy()
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            out[:, w] = z ^ (z >> np.uint64(31))
    return out.view(np.uint8).reshape(count, words * 8)[:, :n]


def base32_lower(data: bytes) -> bytes:
    return base64.b32encode(data).lower()


# Characters of the last group that carry data, by how many bytes that group holds (RFC 4648).
BASE32_DATA_CHARS = {1: 2, 2: 4, 3: 5, 4: 7}


def _base32_chars(index: np.ndarray) -> np.ndarray:
    """5-bit values to RFC 4648's lower-case alphabet: a-z for 0-25, 2-7 for 26-31."""
    return (index + np.uint8(97) - np.uint8(73) * (index >= 26)).astype(np.uint8)


def base32_lower_rows(rows: np.ndarray) -> np.ndarray:
    """RFC 4648 Base32, lower case, with padding, of every row of a (k, n) uint8 array at once:
    the same bytes as base32_lower(row) (the test says so), without a Python loop per key.
    Each 5-byte group b0..b4 gives eight 5-bit characters, all in uint8 arithmetic."""
    count, n = rows.shape
    groups = (n + 4) // 5
    padded = np.zeros((count, groups * 5), dtype=np.uint8)
    padded[:, :n] = rows
    b0, b1, b2, b3, b4 = (padded[:, k::5] for k in range(5))
    out = np.empty((count, groups, 8), dtype=np.uint8)
    for k, index in enumerate((b0 >> 3, ((b0 & 7) << 2) | (b1 >> 6), (b1 >> 1) & 31,
                               ((b1 & 1) << 4) | (b2 >> 4), ((b2 & 15) << 1) | (b3 >> 7),
                               (b3 >> 2) & 31, ((b3 & 3) << 3) | (b4 >> 5), b4 & 31)):
        out[..., k] = _base32_chars(index)
    if n % 5:
        out[:, -1, BASE32_DATA_CHARS[n % 5]:] = ord("=")
    return out.reshape(count, groups * 8)
