"""Reference answers for every workload, written independently of any runtime's implementation.

The harness trusts a timing only when the implementation's checksum equals what this module
computes, so it favours being obviously right (straight from the specs in workloads/) and
vectorises with numpy only where the pure form would take minutes at the quick scale.
"""
from __future__ import annotations

import base64
import hashlib
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


def _fnv1a64_rows(rows: np.ndarray) -> np.ndarray:
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
            total += int(_fnv1a64_rows(rows).sum(dtype=np.uint64))
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


# --- keygen ---------------------------------------------------------------------------------

def keygen_checksum(count: int, key_bytes: int, source: str, seed: int = 0) -> str:
    if source == "strong":
        chars = ((key_bytes + 4) // 5) * 8
        return f"{count}:{count * chars}"
    # Batches bound the memory (about 20 MB of text at a time) whatever the count.
    digest = 0
    batch = max(1, 20_000_000 // (key_bytes * 2))
    with np.errstate(over="ignore"):
        for first in range(0, count, batch):
            keys = splitmix64_matrix(seed, first, min(batch, count - first), key_bytes)
            digest += int(_fnv1a64_rows(base32_lower_rows(keys)).sum(dtype=np.uint64))
    return f"{digest & MASK64:016x}"


# --- sdes-ecb -------------------------------------------------------------------------------

P10 = (3, 5, 2, 7, 4, 10, 1, 9, 8, 6)
P8 = (6, 3, 7, 4, 8, 5, 10, 9)
IP = (2, 6, 3, 1, 4, 8, 5, 7)
IP_INV = (4, 1, 3, 5, 7, 2, 8, 6)
EP = (4, 1, 2, 3, 2, 3, 4, 1)
P4 = (2, 4, 3, 1)
S0 = ((1, 0, 3, 2), (3, 2, 1, 0), (0, 2, 1, 3), (3, 1, 3, 2))
S1 = ((0, 1, 2, 3), (2, 0, 1, 3), (3, 0, 1, 0), (2, 1, 0, 3))


def _permute(value: int, width: int, table: tuple[int, ...]) -> int:
    """Bit k of the output is bit table[k] of the input; bit 1 is the most significant."""
    out = 0
    for position in table:
        out = (out << 1) | ((value >> (width - position)) & 1)
    return out


def _rotate5(half: int, by: int) -> int:
    return ((half << by) | (half >> (5 - by))) & 0b11111


def sdes_subkeys(key: int) -> tuple[int, int]:
    p10 = _permute(key, 10, P10)
    left, right = p10 >> 5, p10 & 0b11111
    left, right = _rotate5(left, 1), _rotate5(right, 1)
    k1 = _permute((left << 5) | right, 10, P8)
    left, right = _rotate5(left, 2), _rotate5(right, 2)
    k2 = _permute((left << 5) | right, 10, P8)
    return k1, k2


def _f_k(block: int, subkey: int) -> int:
    left, right = block >> 4, block & 0xF
    mixed = _permute(right, 4, EP) ^ subkey
    l4, r4 = mixed >> 4, mixed & 0xF
    s0 = S0[((l4 >> 3) & 1) << 1 | (l4 & 1)][(l4 >> 1) & 0b11]
    s1 = S1[((r4 >> 3) & 1) << 1 | (r4 & 1)][(r4 >> 1) & 0b11]
    return ((left ^ _permute((s0 << 2) | s1, 4, P4)) << 4) | right


def sdes_encrypt_byte(key: int, plain: int) -> int:
    k1, k2 = sdes_subkeys(key)
    block = _f_k(_permute(plain, 8, IP), k1)
    block = ((block & 0xF) << 4) | (block >> 4)
    return _permute(_f_k(block, k2), 8, IP_INV)


def sdes_table(key: int) -> bytes:
    return bytes(sdes_encrypt_byte(key, b) for b in range(256))


def sdes_ecb_checksum(plaintext: bytes, key: int) -> str:
    return hashlib.sha256(plaintext.translate(sdes_table(key))).hexdigest()


# --- batch-job ------------------------------------------------------------------------------

def lcs_offset_map(old: bytes, new: bytes) -> list[int]:
    """M from workloads/batch-job.md: where each offset of `old` lands in `new`.

    The suffix table is filled one anti-diagonal at a time (cells with i + j = d depend only
    on diagonals d + 1 and d + 2), so numpy does each diagonal in one step; the walk and the
    tie-breaking are exactly the spec's.
    """
    n, m = len(old), len(new)
    a = np.frombuffer(old, dtype=np.uint8)
    b = np.frombuffer(new, dtype=np.uint8)
    dp = np.zeros((n + 2, m + 2), dtype=np.int32)
    for d in range(n + m - 2, -1, -1):
        i = np.arange(max(0, d - m + 1), min(n - 1, d) + 1)
        j = d - i
        equal = a[i] == b[j]
        dp[i, j] = np.where(equal, dp[i + 1, j + 1] + 1, np.maximum(dp[i + 1, j], dp[i, j + 1]))
    matched_to = [-1] * n
    i = j = 0
    while i < n and j < m:
        if old[i] == new[j]:
            matched_to[i] = j
            i += 1
            j += 1
        elif dp[i + 1, j] >= dp[i, j + 1]:
            i += 1
        else:
            j += 1
    offset_map = [0] * (n + 1)
    offset_map[n] = m
    for i in range(n - 1, -1, -1):
        offset_map[i] = matched_to[i] if matched_to[i] >= 0 else offset_map[i + 1]
    return offset_map


def align_annotations(old: bytes, new: bytes, spans: list[tuple[int, int, str]]):
    offset_map = lcs_offset_map(old, new)
    aligned = []
    for begin, end, label in spans:
        b, e = offset_map[begin], offset_map[end]
        if b < e:
            aligned.append((b, e, label))
    return aligned


def annotation_rows_digest(rows: Iterable[tuple[int, int, int, str]]) -> str:
    return order_free_digest(f"{d}:{b}:{e}:{label}".encode() for d, b, e, label in rows)


# --- spawn-chain and coroutine-swarm --------------------------------------------------------

def spawn_chain_checksum(n: int) -> str:
    return str(n)


def fizzbuzz(i: int) -> str:
    if i % 15 == 0:
        return "FizzBuzz"
    if i % 5 == 0:
        return "Buzz"
    if i % 3 == 0:
        return "Fizz"
    return str(i)


def coroutine_swarm_checksum(tasks: int, steps: int) -> str:
    """Tasks and steps count from 0 (task 0, step 0 → "0:0:FizzBuzz"), as the test vector says.

    As a stream: FNV-1a's state after each task's prefix "t:" is computed for a batch of tasks at
    once, then continued with each step's suffix "s:fizzbuzz(s)" — memory stays bounded by the
    batch, whatever tasks × steps is."""
    total = np.uint64(0)
    prime = np.uint64(FNV_PRIME)
    suffixes = [f"{s}:{fizzbuzz(s)}".encode() for s in range(steps)]
    batch = 1_000_000
    with np.errstate(over="ignore"):
        for first in range(0, tasks, batch):
            for prefixes in _task_prefixes(first, min(tasks, first + batch)):
                state = _fnv1a64_rows(prefixes)
                for suffix in suffixes:
                    h = state.copy()
                    for byte in suffix:
                        h ^= np.uint64(byte)
                        h *= prime
                    total += h.sum(dtype=np.uint64)
    return f"{int(total) & MASK64:016x}"


def _task_prefixes(first: int, stop: int):
    """The bytes "t:" for t in [first, stop), as (k, digits + 1) arrays, one per digit count."""
    start = first
    while start < stop:
        digits = len(str(start))
        end = min(stop, 10 ** digits)
        numbers = np.arange(start, end, dtype=np.int64)
        rows = np.empty((len(numbers), digits + 1), dtype=np.uint8)
        for column in range(digits):
            rows[:, digits - 1 - column] = ord("0") + (numbers // 10 ** column) % 10
        rows[:, digits] = ord(":")
        yield rows
        start = end
