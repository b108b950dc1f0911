"""keygen's reference answer, independent of every implementation: SplitMix64 keys, Base32, the digest."""
from __future__ import annotations

import numpy as np

from parbench.workloads.digest import (MASK64, base32_lower, base32_lower_rows, fnv1a64_rows, splitmix64_bytes,
                                       splitmix64_matrix)


def keygen_checksum(count: int, key_bytes: int, seed: int) -> str:
    """The digest of the seeded keys (the strong source's keys are random: only their form is checked)."""
    # Batches bound the memory (about 20 MB of text at a time) whatever the count.
    digest = 0
    batch = max(1, 20_000_000 // (key_bytes * 2))
    with np.errstate(over="ignore"):
        for first in range(0, count, batch):
            keys = splitmix64_matrix(seed, first, min(batch, count - first), key_bytes)
            digest += int(fnv1a64_rows(base32_lower_rows(keys)).sum(dtype=np.uint64))
    return f"{digest & MASK64:016x}"


def keygen_key(seed: int, index: int, key_bytes: int) -> str:
    """Key `index` of the seeded source, encoded: what a probe at that position must show."""
    return base32_lower(splitmix64_bytes(seed, index, key_bytes)).decode()


def encoded_length(key_bytes: int) -> int:
    return ((key_bytes + 4) // 5) * 8
