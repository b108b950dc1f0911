"""coroutine-swarm's reference answer: the order-free digest of every task's lines, as a stream."""
from __future__ import annotations

import numpy as np

from parbench.workloads.digest import FNV_PRIME, MASK64, fnv1a64_rows


def fizzbuzz(i: int) -> str:
    if i % 15 == 0:
        return "FizzBuzz"
    if i % 5 == 0:
        return "Buzz"
    if i % 3 == 0:
        return "Fizz"
    return str(i)


def coroutine_swarm_checksum(tasks: int, steps: int, salt: int = 0) -> str:
    """Tasks and steps count from 0 (task 0, step 0 → "0:0:FizzBuzz"), as the test vector says;
    a repetition's salt s shifts every task id to t + s (protocol 2), so no two repetitions agree.

    As a stream: FNV-1a's state after each task's prefix "t:" is computed for a batch of tasks at
    once, then continued with each step's suffix "s:fizzbuzz(s)" — memory stays bounded by the
    batch, whatever tasks × steps is."""
    total = np.uint64(0)
    prime = np.uint64(FNV_PRIME)
    suffixes = [f"{s}:{fizzbuzz(s)}".encode() for s in range(steps)]
    batch = 1_000_000
    with np.errstate(over="ignore"):
        for first in range(0, tasks, batch):
            for prefixes in _task_prefixes(salt + first, salt + min(tasks, first + batch)):
                state = fnv1a64_rows(prefixes)
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
