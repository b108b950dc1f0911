"""The helpers every workload's checksum is built from: FNV-1a 64, the order-free digest, SplitMix64 bytes."""
from __future__ import annotations

from typing import Iterable

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def fnv1a64(data: bytes) -> int:
    hash_value = FNV_OFFSET
    for byte in data:
        hash_value = ((hash_value ^ byte) * FNV_PRIME) & MASK64
    return hash_value


def digest_sum(strings: Iterable[bytes]) -> int:
    """The order-free digest as a number: partial sums from workers are added with `+` and masked."""
    total = 0
    for data in strings:
        total += fnv1a64(data)
    return total & MASK64


def digest_hex(total: int) -> str:
    return f"{total & MASK64:016x}"


def order_free_digest(strings: Iterable[bytes]) -> str:
    return digest_hex(digest_sum(strings))


def splitmix64_bytes(seed: int, index: int, length: int) -> bytes:
    state = (seed + index * GOLDEN_GAMMA) & MASK64
    words = []
    for _ in range((length + 7) // 8):
        state = (state + GOLDEN_GAMMA) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        words.append((z ^ (z >> 31)).to_bytes(8, "little"))
    return b"".join(words)[:length]
